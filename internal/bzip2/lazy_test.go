package bzip2

import (
	"hash/crc32"
	"math/bits"
	"testing"
)

// crcBuiltAtInit records, during package initialisation (before any test
// runs), whether the CRC table already existed.
var crcBuiltAtInit = crcTable != nil

// TestCRCTableLazy checks that the 8 KiB CRC table is built on first use,
// not at init, and that crcUpdate then agrees with hash/crc32 (bzip2's CRC
// is the IEEE CRC-32 with bits reversed: not reflected).
func TestCRCTableLazy(t *testing.T) {
	if crcBuiltAtInit {
		t.Fatal("CRC table built at package initialisation")
	}
	data := []byte("the quick brown fox jumps over the lazy dog, twice over")
	rev := make([]byte, len(data))
	for i, b := range data {
		rev[i] = bits.Reverse8(b)
	}
	got := ^crcUpdate(0xFFFFFFFF, data, new([crcChunk]byte))
	if want := bits.Reverse32(crc32.ChecksumIEEE(rev)); got != want {
		t.Fatalf("crcUpdate = %#x, want %#x", got, want)
	}
}
