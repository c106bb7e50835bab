package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// sample returns n bytes of compressible, slightly random data.
func sample(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"archive ", "stream ", "block ", "index ", "\x00\x01\x02", "check ", "\xe8\x10\x00\x00\x00"}
	var b bytes.Buffer
	for b.Len() < n {
		if r.IntN(8) == 0 {
			b.WriteByte(byte(r.Uint32()))
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return b.Bytes()[:n]
}

// xzCompress runs the xz tool on data with args.
func xzCompress(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	xz := testenv.Tool(t, "xz")
	cmd := exec.Command(xz, append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz %v: %v", args, err)
	}
	return out
}

func decodeAll(t *testing.T, comp []byte, oneByte bool) ([]byte, int64, error) {
	t.Helper()
	var r io.Reader = bytes.NewReader(comp)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	z := NewReader(r, 0)
	var out io.Reader = z
	if oneByte {
		out = iotest.OneByteReader(z)
	}
	got, err := io.ReadAll(out)
	return got, z.InputOffset(), err
}

func TestAgainstXZTool(t *testing.T) {
	data := sample(600<<10, 1)
	cases := []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"crc32", []string{"-C", "crc32"}},
		{"crc64", []string{"-C", "crc64"}},
		{"sha256", []string{"-C", "sha256"}},
		{"none", []string{"-C", "none"}},
		{"blocks", []string{"--block-size=100000"}},
		{"threads-sizes-in-headers", []string{"-T2", "--block-size=200000"}},
		{"delta", []string{"--delta=dist=4", "--lzma2=preset=1"}},
		{"x86", []string{"--x86", "--lzma2"}},
		{"arm", []string{"--arm", "--lzma2"}},
		{"armthumb", []string{"--armthumb", "--lzma2"}},
		{"powerpc", []string{"--powerpc", "--lzma2"}},
		{"sparc", []string{"--sparc", "--lzma2"}},
		{"ia64", []string{"--ia64", "--lzma2"}},
		{"x86-start", []string{"--x86=start=4096", "--lzma2"}},
		{"three-filters", []string{"--delta=dist=2", "--x86", "--lzma2=preset=0"}},
		{"incompressible", []string{"-0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			comp := xzCompress(t, data, c.args...)
			for _, oneByte := range []bool{false, true} {
				got, used, err := decodeAll(t, comp, oneByte)
				if err != nil {
					t.Fatalf("oneByte=%v: %v", oneByte, err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("oneByte=%v: output differs (%d bytes, want %d)", oneByte, len(got), len(data))
				}
				if used != int64(len(comp)) {
					t.Fatalf("oneByte=%v: consumed %d of %d input bytes", oneByte, used, len(comp))
				}
			}
		})
	}
}

func TestMultiStreamAndPadding(t *testing.T) {
	a, b := sample(70000, 2), sample(1000, 3)
	ca, cb := xzCompress(t, a), xzCompress(t, b, "-C", "sha256")
	empty := xzCompress(t, nil)
	pad := make([]byte, 8)
	in := bytes.Join([][]byte{ca, pad, cb, empty, pad[:4]}, nil)
	got, used, err := decodeAll(t, in, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]byte{}, a...), b...); !bytes.Equal(got, want) {
		t.Fatal("concatenated streams decode wrongly")
	}
	if used != int64(len(in)) {
		t.Fatalf("consumed %d of %d", used, len(in))
	}

	bad := []struct {
		name string
		in   []byte
		want error
	}{
		{"padding-not-multiple-of-4", bytes.Join([][]byte{ca, pad[:3]}, nil), archive.ErrFormat},
		{"garbage-after-stream", bytes.Join([][]byte{ca, []byte("junk")}, nil), archive.ErrFormat},
		{"truncated", ca[:len(ca)-5], archive.ErrFormat},
		{"truncated-in-data", ca[:len(ca)/2], archive.ErrFormat},
		{"empty", nil, archive.ErrFormat},
		{"not-xz", []byte("hello, world"), archive.ErrFormat},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := decodeAll(t, c.in, false)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

func TestCorruptionIsDetected(t *testing.T) {
	data := sample(50000, 4)
	for _, check := range []string{"crc32", "crc64", "sha256", "none"} {
		comp := xzCompress(t, data, "-C", check, "-6")
		// Flip every byte in turn (sampled): the result must be an error
		// wrapping a sentinel or, rarely for check=none, the same length of
		// output; never a panic or more output than the original.
		for i := 0; i < len(comp); i += 1 + len(comp)/300 {
			mod := bytes.Clone(comp)
			mod[i] ^= 0x55
			got, _, err := decodeAll(t, mod, false)
			if err == nil {
				if check != "none" || len(got) != len(data) {
					t.Fatalf("check=%s: flip at %d accepted (%d bytes)", check, i, len(got))
				}
				continue
			}
			if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
				t.Fatalf("check=%s: flip at %d: error %v wraps no sentinel", check, i, err)
			}
		}
	}
}

func TestDictionaryLimit(t *testing.T) {
	comp := xzCompress(t, sample(1000, 5), "-9") // 64 MiB dictionary
	z := NewReader(bytes.NewReader(comp), 1<<20)
	_, err := io.ReadAll(z)
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("error %v, want ErrLimit", err)
	}
}

// TestXZUtilsFiles decodes XZ Utils' own test files from the shared corpus:
// good-* must match the ground truth, bad-* must fail with a sentinel.
func TestXZUtilsFiles(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range units {
		if u.Format != "xz" {
			continue
		}
		n++
		t.Run(filepath.Base(u.Unit), func(t *testing.T) {
			comp, err := os.ReadFile(u.Path(root))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := decodeAll(t, comp, false)
			switch u.Expect {
			case "ok":
				if err != nil {
					t.Fatal(err)
				}
				if u.Expected == "" || u.GTNote != "" {
					return
				}
				list, err := corpus.Listing(root, u.Expected)
				if err != nil || len(list) != 1 {
					t.Fatalf("listing: %v (%d rows)", err, len(list))
				}
				sum := sha256.Sum256(got)
				if hex.EncodeToString(sum[:]) != list[0].SHA256 || int64(len(got)) != list[0].Size {
					t.Fatalf("output differs from the ground truth (%d bytes)", len(got))
				}
			case "error-corrupt":
				if err == nil {
					t.Fatal("corrupt file decoded without error")
				}
				if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
					t.Fatalf("error %v wraps no sentinel", err)
				}
				if !strings.Contains(err.Error(), "offset") {
					t.Errorf("error %q carries no offset", err)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no xz units in the corpus index")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	for _, s := range [][]byte{sample(100, 6), sample(5000, 7)} {
		if xz, err := exec.LookPath("xz"); err == nil {
			cmd := exec.Command(xz, "-c", "-C", "crc64")
			cmd.Stdin = bytes.NewReader(s)
			if out, err := cmd.Output(); err == nil {
				f.Add(out)
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		z := NewReader(bytes.NewReader(in), 1<<22)
		// Output is bounded: an LZMA2 chunk of at most 64 KiB packed yields
		// at most 2 MiB, so a small input cannot produce unbounded output.
		got, err := io.Copy(io.Discard, io.LimitReader(z, 1<<30))
		if got > int64(len(in))*(2<<20) {
			t.Fatalf("%d bytes from %d of input", got, len(in))
		}
		if err != nil && !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, archive.ErrLimit) {
			t.Fatalf("error %v wraps no sentinel", err)
		}
		if z.InputOffset() > int64(len(in)) {
			t.Fatalf("consumed %d of %d bytes", z.InputOffset(), len(in))
		}
	})
}

// BenchmarkReader decodes an .xz file of the standard mixed data made by
// xz -6 (-T1); compare with `xz -dc -T1` on the same file. It reports the
// CPU time too (cpu-ns/op), steadier than wall time on a shared machine.
func BenchmarkReader(b *testing.B) {
	data := testenv.MixedData(b, 32<<20)
	cmd := exec.Command(testenv.Tool(b, "xz"), "-c", "-6", "-T1")
	cmd.Stdin = bytes.NewReader(data)
	comp, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	z := NewReader(bytes.NewReader(comp), 0)
	buf := make([]byte, 256<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	for range b.N {
		z.Reset(bytes.NewReader(comp), 0)
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, buf)
		if err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
	}
	cpu.Report(b, int64(len(data)))
}
