package security

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sevenZipNumber encodes a 7z variable-length number.
func sevenZipNumber(v uint64) []byte {
	for n := 0; n < 8; n++ {
		if v < 1<<(7*(n+1)) {
			b := []byte{byte(0xFF<<(8-n)) | byte(v>>(8*n))}
			for k := 0; k < n; k++ {
				b = append(b, byte(v>>(8*k)))
			}
			return b
		}
	}
	b := []byte{0xFF}
	return binary.LittleEndian.AppendUint64(b, v)
}

// sevenZipFile wraps packed streams and a plain header in a 7z file.
func sevenZipFile(packed, hdr []byte) []byte {
	var start [20]byte
	binary.LittleEndian.PutUint64(start[0:], uint64(len(packed)))
	binary.LittleEndian.PutUint64(start[8:], uint64(len(hdr)))
	binary.LittleEndian.PutUint32(start[16:], crc32.ChecksumIEEE(hdr))
	b := []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(start[:]))
	b = append(b, start[:]...)
	b = append(b, packed...)
	return append(b, hdr...)
}

// modelBomb7z returns a 7z of n folders, one entry each, every folder a
// PPMd coder claiming mem bytes of model over a few random packed bytes
// that decode to 1 MiB (and fail their checks).
func modelBomb7z(n int, mem uint32) []byte {
	rng := rand.New(rand.NewPCG(7, uint64(mem)))
	const packedSize = 256
	packed := make([]byte, n*packedSize)
	for i := range packed {
		packed[i] = byte(rng.Uint32())
	}
	n64 := uint64(n)
	h := []byte{0x01, 0x04, 0x06, 0}
	h = append(h, sevenZipNumber(n64)...)
	h = append(h, 0x09)
	for i := 0; i < n; i++ {
		packed[i*packedSize] = 0 // the range coder's first byte
		h = append(h, sevenZipNumber(packedSize)...)
	}
	h = append(h, 0x00, 0x07, 0x0B)
	h = append(h, sevenZipNumber(n64)...)
	h = append(h, 0)
	for i := 0; i < n; i++ {
		h = append(h, 1, 0x23, 3, 4, 1, 5, 6)
		h = binary.LittleEndian.AppendUint32(h, mem)
	}
	h = append(h, 0x0C)
	for i := 0; i < n; i++ {
		h = append(h, sevenZipNumber(1<<20)...)
	}
	h = append(h, 0x00, 0x00, 0x05)
	h = append(h, sevenZipNumber(n64)...)
	var names []byte
	for i := 0; i < n; i++ {
		names = append(names, utf16le(fmt.Sprintf("f%d\x00", i))...)
	}
	h = append(h, 0x11)
	h = append(h, sevenZipNumber(uint64(len(names)+1))...)
	h = append(h, 0)
	h = append(h, names...)
	h = append(h, 0x00, 0x00)
	return sevenZipFile(packed, h)
}

// manyEntries7z returns a 7z of n empty entries with empty names.
func manyEntries7z(n int) []byte {
	h := []byte{0x01, 0x05}
	h = append(h, sevenZipNumber(uint64(n))...)
	bits := bytes.Repeat([]byte{0xFF}, (n+7)/8)
	h = append(h, 0x0E)
	h = append(h, sevenZipNumber(uint64(len(bits)))...)
	h = append(h, bits...)
	h = append(h, 0x11)
	h = append(h, sevenZipNumber(uint64(1+2*n))...)
	h = append(h, make([]byte, 1+2*n)...)
	h = append(h, 0x00, 0x00)
	return sevenZipFile(nil, h)
}

// peakRSS runs garc in dir and returns its exit code and peak resident
// set size in bytes.
func peakRSS(t *testing.T, dir string, args ...string) (int, int64) {
	t.Helper()
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, garcBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var se bytes.Buffer
	cmd.Stderr = &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("garc %q did not finish within 120 s", args)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("garc %q: %v", args, err)
	}
	if strings.Contains(se.String(), "panic:") {
		t.Fatalf("garc %q panicked:\n%s", args, se.String())
	}
	rss, ok := maxRSS(cmd.ProcessState)
	if !ok {
		t.Skip("peak memory is not reported on this system")
	}
	return cmd.ProcessState.ExitCode(), rss
}

// TestSevenZipModelMemory: folders each claiming a model close to
// --max-dict take, together, no more than --max-dict (+256 MiB for
// everything else) whatever the command and thread count.
func TestSevenZipModelMemory(t *testing.T) {
	for _, tc := range []struct {
		maxDict string
		limit   int64
		mem     uint32
	}{
		{"1g", 1 << 30, 1000 << 20},
		{"128m", 128 << 20, 120 << 20},
	} {
		dir := t.TempDir()
		arc := filepath.Join(dir, "bomb.7z")
		if err := os.WriteFile(arc, modelBomb7z(4, tc.mem), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"x", "t", "l"} {
			for _, threads := range []string{"1", "2"} {
				args := []string{cmd, "--max-dict", tc.maxDict, "--threads", threads, arc}
				if cmd == "x" {
					args = append(args, "-o"+filepath.Join(dir, "out"+threads), "-y")
				}
				code, rss := peakRSS(t, dir, args...)
				t.Logf("--max-dict %s %s --threads %s: exit %d, peak RSS %d MiB", tc.maxDict, cmd, threads, code, rss>>20)
				if rss > tc.limit+256<<20 {
					t.Errorf("--max-dict %s %s --threads %s: peak RSS %d MiB", tc.maxDict, cmd, threads, rss>>20)
				}
				// Each folder fits the limit alone: it waits for the
				// others (never exit 8) and then fails its checks.
				if code != 0 && code != 2 {
					t.Errorf("--max-dict %s %s --threads %s: exit %d", tc.maxDict, cmd, threads, code)
				}
			}
		}
	}
}

// TestSevenZipEntryMemory: a header declaring a million empty entries
// takes no more than --max-dict + 256 MiB, or is refused with exit 8.
func TestSevenZipEntryMemory(t *testing.T) {
	dir := t.TempDir()
	arc := filepath.Join(dir, "many.7z")
	if err := os.WriteFile(arc, manyEntries7z(1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		maxDict string
		limit   int64
	}{{"4g", 4 << 30}, {"64m", 64 << 20}} {
		for _, cmd := range []string{"x", "t", "l"} {
			args := []string{cmd, "--max-dict", tc.maxDict, arc}
			if cmd == "x" {
				args = append(args, "-o"+filepath.Join(dir, "out"), "-y")
			}
			code, rss := peakRSS(t, dir, args...)
			t.Logf("--max-dict %s %s: exit %d, peak RSS %d MiB", tc.maxDict, cmd, code, rss>>20)
			if rss > tc.limit+256<<20 {
				t.Errorf("--max-dict %s %s: peak RSS %d MiB", tc.maxDict, cmd, rss>>20)
			}
			if tc.limit < 256<<20 && code != 8 {
				t.Errorf("--max-dict %s %s: exit %d, want 8", tc.maxDict, cmd, code)
			}
		}
	}
}

// TestSevenZipUpdateMemory: garc a and d read the archive they update
// under --max-dict as x, t and l do: a header of a million entries is
// refused with exit 8 under 64 MiB, and the archive is left as it was.
func TestSevenZipUpdateMemory(t *testing.T) {
	dir := t.TempDir()
	arc := filepath.Join(dir, "many.7z")
	orig := manyEntries7z(1_000_000)
	extra := filepath.Join(dir, "extra.txt")
	if err := os.WriteFile(extra, []byte("one more file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"a", "--max-dict", "64m", arc, extra},
		{"d", "--max-dict", "64m", arc, "no-such-entry"},
	} {
		if err := os.WriteFile(arc, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		code, rss := peakRSS(t, dir, args...)
		t.Logf("%s: exit %d, peak RSS %d MiB", args[0], code, rss>>20)
		if code != 8 {
			t.Errorf("%s --max-dict 64m on a million-entry header: exit %d, want 8", args[0], code)
		}
		if got, err := os.ReadFile(arc); err != nil || !bytes.Equal(got, orig) {
			t.Errorf("%s: the archive changed (%v)", args[0], err)
		}
	}
}
