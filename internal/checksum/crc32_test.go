package checksum

import (
	"hash"
	"hash/crc32"
	"math/rand"
	"testing"
)

// TestUpdateCRC32 compares UpdateCRC32 with hash/crc32 over lengths around
// the folding boundaries, from several starting values, whole and in
// pieces.
func TestUpdateCRC32(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 70000)
	rng.Read(data)
	for _, n := range []int{0, 1, 63, 64, 255, 256, FoldMin - 1, FoldMin, FoldMin + 1, FoldMin + 64,
		FoldMin + 255, FoldMin + 256, FoldMin + 448 + 9, 4096, 65536 + 3, len(data)} {
		for _, start := range []uint32{0, 1, 0xFFFFFFFF, 0x01234567} {
			if got, want := UpdateCRC32(start, data[:n]), crc32.Update(start, crc32.IEEETable, data[:n]); got != want {
				t.Fatalf("%d bytes from %#x: %#x, want %#x", n, start, got, want)
			}
		}
	}
	var c uint32
	for p := data; len(p) > 0; {
		k := min(len(p), 1+rng.Intn(5000))
		c = UpdateCRC32(c, p[:k])
		p = p[k:]
	}
	if want := crc32.ChecksumIEEE(data); c != want {
		t.Fatalf("in pieces %#x, want %#x", c, want)
	}
	var d CRC32
	var h hash.Hash32 = &d
	h.Write(data[:5000])
	h.Write(data[5000:])
	want := crc32.NewIEEE()
	want.Write(data)
	if got := h.Sum(nil); string(got) != string(want.Sum(nil)) {
		t.Fatalf("CRC32 Sum %x, want %x", got, want.Sum(nil))
	}
	h.Reset()
	if h.Sum32() != 0 {
		t.Fatalf("Sum32 after Reset %#x, want 0", h.Sum32())
	}
}

// BenchmarkUpdateCRC32 compares UpdateCRC32 with hash/crc32 on 256 KiB.
func BenchmarkUpdateCRC32(b *testing.B) {
	data := make([]byte, 256<<10)
	rand.New(rand.NewSource(2)).Read(data)
	b.Run("UpdateCRC32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var c uint32
		for range b.N {
			c = UpdateCRC32(c, data)
		}
	})
	b.Run("hash/crc32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var c uint32
		for range b.N {
			c = crc32.Update(c, crc32.IEEETable, data)
		}
	})
}

// TestUpdateCRC32Allocs: an update allocates nothing, on the folding path
// (where the CPU has it) as on hash/crc32's.
func TestUpdateCRC32Allocs(t *testing.T) {
	data := make([]byte, 64<<10)
	var crc uint32
	if n := testing.AllocsPerRun(20, func() { crc = UpdateCRC32(crc, data) }); n != 0 {
		t.Errorf("UpdateCRC32 of %d bytes: %.0f allocations, want 0 (folding path: %v)", len(data), n, HasVPCLMUL())
	}
}
