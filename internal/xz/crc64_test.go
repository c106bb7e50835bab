package xz

import (
	"hash/crc64"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/checksum"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestCRC64 compares crc64Update (carry-less multiplication where the CPU
// has it) and crc64UpdateGeneric with hash/crc64 over lengths around the
// folding and interleaving boundaries, from various starting values, in
// pieces.
func TestCRC64(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 5*crc64Half+77)
	rng.Read(data)
	tab := crc64.MakeTable(crc64.ECMA)
	for _, impl := range []struct {
		name   string
		update func(uint64, []byte) uint64
	}{{"crc64Update", crc64Update}, {"crc64UpdateGeneric", crc64UpdateGeneric}} {
		for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 257, 1000,
			checksum.FoldMin - 1, checksum.FoldMin, checksum.FoldMin + 64, checksum.FoldMin + 255, checksum.FoldMin + 256, checksum.FoldMin + 448 + 9,
			2*crc64Half - 1, 2 * crc64Half, 2*crc64Half + 1, 4*crc64Half + 8, len(data)} {
			for _, start := range []uint64{0, 1, 0xFFFFFFFFFFFFFFFF, 0x0123456789ABCDEF} {
				if got, want := impl.update(start, data[:n]), crc64.Update(start, tab, data[:n]); got != want {
					t.Fatalf("%s: %d bytes from %#x: %#x, want %#x", impl.name, n, start, got, want)
				}
			}
		}
	}
	var d crc64Digest
	for p := data; len(p) > 0; {
		k := min(len(p), 1+rng.Intn(3*crc64Half))
		d.Write(p[:k])
		p = p[k:]
	}
	h := crc64.New(tab)
	h.Write(data)
	if string(d.Sum(nil)) != string(h.Sum(nil)) {
		t.Fatalf("digest in pieces %x, want %x", d.Sum(nil), h.Sum(nil))
	}
}

// BenchmarkCRC64 compares crc64Update and crc64UpdateGeneric with
// hash/crc64 on 256 KiB writes
// (the size the extraction layer reads).
func BenchmarkCRC64(b *testing.B) {
	data := make([]byte, 256<<10)
	rand.New(rand.NewSource(2)).Read(data)
	tab := crc64.MakeTable(crc64.ECMA)
	b.Run("crc64Update", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var c uint64
		cpu := testenv.StartCPU()
		for range b.N {
			c = crc64Update(c, data)
		}
		cpu.Report(b, int64(len(data)))
	})
	b.Run("interleaved", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var c uint64
		cpu := testenv.StartCPU()
		for range b.N {
			c = crc64UpdateGeneric(c, data)
		}
		cpu.Report(b, int64(len(data)))
	})
	b.Run("hash/crc64", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var c uint64
		cpu := testenv.StartCPU()
		for range b.N {
			c = crc64.Update(c, tab, data)
		}
		cpu.Report(b, int64(len(data)))
	})
}
