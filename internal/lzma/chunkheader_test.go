package lzma

import "testing"

func TestChunkHeader(t *testing.T) {
	for _, tc := range []struct {
		h                           []byte
		hdr, unpacked, packedWanted int
	}{
		{[]byte{0}, 0, 0, 0},
		{[]byte{3}, 0, 0, 0},
		{[]byte{0x7F}, 0, 0, 0},
		{[]byte{1, 0x00, 0x00}, 3, 1, 1},
		{[]byte{2, 0xFF, 0xFF}, 3, 1 << 16, 1 << 16},
		{[]byte{0x80, 0x01, 0x02, 0x03, 0x04}, 5, 0x0102 + 1, 0x0304 + 1},
		{[]byte{0xBF, 0xFF, 0xFF, 0xFF, 0xFF}, 5, 2 << 20, 1 << 16},
		{[]byte{0xC0, 0x00, 0x10, 0x00, 0x20, 0x5D}, 6, 0x11, 0x21},
		{[]byte{0xFF, 0x12, 0x34, 0x56, 0x78, 0x5D}, 6, 0x1F1234 + 1, 0x5678 + 1},
	} {
		if got := ChunkHeaderLen(tc.h[0]); got != tc.hdr {
			t.Errorf("ChunkHeaderLen(%#x) = %d, want %d", tc.h[0], got, tc.hdr)
		}
		if tc.hdr == 0 {
			continue
		}
		if u, p := ChunkSizes(tc.h); u != tc.unpacked || p != tc.packedWanted {
			t.Errorf("ChunkSizes(% x) = %d, %d, want %d, %d", tc.h, u, p, tc.unpacked, tc.packedWanted)
		}
	}
}
