package checksum

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2s"
)

// katInput returns the known-answer-test input of length n: 0x00, 0x01, …
func katInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

type katVector struct {
	n    int
	want []byte
}

func readKAT(t testing.TB) []katVector {
	t.Helper()
	f, err := os.Open("testdata/blake2sp-unkeyed.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []katVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		n, h, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		ln, err := strconv.Atoi(n)
		if err != nil {
			t.Fatal(err)
		}
		want, err := hex.DecodeString(h)
		if err != nil || len(want) != 32 {
			t.Fatalf("bad digest in %q", line)
		}
		vs = append(vs, katVector{ln, want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 256 {
		t.Fatalf("read %d vectors, want 256", len(vs))
	}
	return vs
}

func TestBLAKE2spKAT(t *testing.T) {
	for _, v := range readKAT(t) {
		in := katInput(v.n)
		got := SumBLAKE2sp(in)
		if !bytes.Equal(got[:], v.want) {
			t.Errorf("SumBLAKE2sp(len %d) = %x, want %x", v.n, got, v.want)
		}
		// Byte-at-a-time streaming.
		h := NewBLAKE2sp()
		for i := range in {
			h.Write(in[i : i+1])
		}
		if s := h.Sum(nil); !bytes.Equal(s, v.want) {
			t.Errorf("bytewise len %d = %x, want %x", v.n, s, v.want)
		}
		// Sum must not disturb the state: hashing more afterwards and
		// resetting must still work.
		h.Reset()
		h.Write(in)
		h.Sum(nil)
		if s := h.Sum(nil); !bytes.Equal(s, v.want) {
			t.Errorf("second Sum len %d = %x, want %x", v.n, s, v.want)
		}
	}
}

// TestBLAKE2sCore checks the unrolled compression function and parameter
// block against x/crypto's sequential BLAKE2s-256.
func TestBLAKE2sCore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 129, 1000, 4096} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		got := sumNode(&sequentialParams, data, false)
		want := blake2s.Sum256(data)
		if got != want {
			t.Errorf("len %d: %x, want %x", n, got, want)
		}
	}
}

// TestBLAKE2spSplits hashes long inputs in random pieces, crossing the
// direct-compression path, and compares with one-shot hashing.
func TestBLAKE2spSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{511, 512, 513, 575, 576, 577, 1023, 1024, 1025, 4095, 4096, 100000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		want := referenceBLAKE2sp(data)
		if got := SumBLAKE2sp(data); got != want {
			t.Fatalf("len %d one-shot %x, reference %x", n, got, want)
		}
		for trial := 0; trial < 20; trial++ {
			h := NewBLAKE2sp()
			rest := data
			for len(rest) > 0 {
				k := r.IntN(min(len(rest), 1500) + 1)
				h.Write(rest[:k])
				rest = rest[k:]
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d split trial %d: %x, want %x", n, trial, got, want)
			}
		}
	}
}

// referenceBLAKE2sp is the textbook definition: deal the 64-byte blocks
// round-robin to eight leaves, hash each leaf as a whole node, hash the
// concatenated leaf digests in the root. It shares only the compression
// function with the streaming code.
func referenceBLAKE2sp(data []byte) [32]byte {
	var leafData [leaves][]byte
	for i := 0; i*64 < len(data); i++ {
		end := min(len(data), (i+1)*64)
		leafData[i%leaves] = append(leafData[i%leaves], data[i*64:end]...)
	}
	var inner []byte
	for i := range leaves {
		p := treeParams{digestLen: 32, fanout: 8, depth: 2, nodeOffset: uint64(i), innerLen: 32}
		d := sumNode(&p, leafData[i], i == leaves-1)
		inner = append(inner, d[:]...)
	}
	p := treeParams{digestLen: 32, fanout: 8, depth: 2, nodeDepth: 1, innerLen: 32}
	return sumNode(&p, inner, true)
}

func TestBLAKE2spInterface(t *testing.T) {
	h := NewBLAKE2sp()
	if h.Size() != 32 || h.BlockSize() != 64 {
		t.Fatalf("Size %d BlockSize %d", h.Size(), h.BlockSize())
	}
	prefix := []byte("prefix")
	s := h.Sum(prefix)
	if !bytes.Equal(s[:6], prefix) || len(s) != 38 {
		t.Fatalf("Sum did not append: %x", s)
	}
}

func TestBLAKE2spAllocs(t *testing.T) {
	h := NewBLAKE2sp()
	buf := make([]byte, 10000)
	var out [32]byte
	n := testing.AllocsPerRun(100, func() {
		h.Reset()
		h.Write(buf[:1])
		h.Write(buf[:777])
		h.Write(buf)
		h.Sum(out[:0])
	})
	if n != 0 {
		t.Fatalf("%v allocations per run, want 0", n)
	}
}

func FuzzBLAKE2sp(f *testing.F) {
	f.Add([]byte("hello"), uint16(3), uint16(100))
	f.Add(katInput(1500), uint16(513), uint16(64))
	f.Fuzz(func(t *testing.T, data []byte, a, b uint16) {
		want := SumBLAKE2sp(data)
		if ref := referenceBLAKE2sp(data); ref != want {
			t.Fatalf("one-shot %x, reference %x", want, ref)
		}
		h := NewBLAKE2sp()
		i, j := int(a)%(len(data)+1), int(b)%(len(data)+1)
		if i > j {
			i, j = j, i
		}
		h.Write(data[:i])
		h.Write(data[i:j])
		h.Write(data[j:])
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("split %d,%d: %x, want %x", i, j, got, want)
		}
	})
}

func BenchmarkBLAKE2sp(b *testing.B) {
	for _, size := range []int{64, 1 << 10, 1 << 20} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			buf := make([]byte, size)
			h := NewBLAKE2sp()
			var out [32]byte
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				h.Reset()
				h.Write(buf)
				h.Sum(out[:0])
			}
		})
	}
}

func BenchmarkXCryptoBLAKE2s(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		blake2s.Sum256(buf)
	}
}

// SumBLAKE2sp returns the BLAKE2sp digest of data, through the streaming
// hash.
func SumBLAKE2sp(data []byte) [32]byte {
	var d blake2sp
	d.Reset()
	d.Write(data)
	return d.sum()
}

// sumNode hashes data as one complete BLAKE2s node with parameters p. The
// textbook construction of the tests builds BLAKE2sp from it.
func sumNode(p *treeParams, data []byte, lastNode bool) [32]byte {
	var h [8]uint32
	p.init(&h)
	var t uint64
	for len(data) > 64 {
		t += 64
		compress(&h, data[:64], t, 0, 0)
		data = data[64:]
	}
	var out [32]byte
	finalBlock(&h, data, t, lastNode, &out)
	return out
}
