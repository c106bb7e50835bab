package lzcore

import (
	"bytes"
	"testing"
)

func TestMoveHistory(t *testing.T) {
	// ring of 8 bytes holding stream bytes 'a'.. written at positions
	// 0..total-1 (index = pos % 8), next write at w = total % 8
	for _, tc := range []struct {
		total int
		keep  int64
		want  string
	}{
		{0, 0, ""},
		{5, 5, "abcde"},
		{5, 3, "cde"},
		{8, 8, "abcdefgh"},
		{11, 8, "defghijk"},  // wrapped: the last 8 bytes
		{11, 20, "defghijk"}, // keep beyond the ring
		{11, 2, "jk"},        // no wrap needed
		{13, 6, "hijklm"},    // wrap inside the kept bytes
	} {
		ring := make([]byte, 8)
		for p := 0; p < tc.total; p++ {
			ring[p%8] = byte('a' + p)
		}
		dst := make([]byte, 16)
		n := MoveHistory(dst, ring, 8, tc.total%8, tc.keep)
		if got := string(dst[:n]); got != tc.want {
			t.Errorf("total %d keep %d: %q, want %q", tc.total, tc.keep, got, tc.want)
		}
	}
	// a destination smaller than the history keeps the newest bytes
	ring := []byte("abcdefgh")
	dst := make([]byte, 3)
	if n := MoveHistory(dst, ring, 8, 0, 8); n != 3 || !bytes.Equal(dst, []byte("fgh")) {
		t.Errorf("small destination: %d %q", n, dst)
	}
}
