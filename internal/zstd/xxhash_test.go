package zstd

import (
	"bytes"
	"testing"
)

// TestXXH64WriteRun: hashing a run with writeRun gives the hash of
// writing its bytes, whatever was written before it (a partial stripe or
// none) and whatever its length (within a stripe, across stripes, with a
// rest).
func TestXXH64WriteRun(t *testing.T) {
	prefix := []byte("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ")
	for _, pre := range []int{0, 1, 5, 31, 32, 33, 46} {
		for _, n := range []int{0, 1, 7, 31, 32, 33, 64, 100, 1000, 128 << 10} {
			for _, c := range []byte{0, 0x5A, 0xFF} {
				var want, got xxh64
				want.reset()
				got.reset()
				want.write(prefix[:pre])
				got.write(prefix[:pre])
				want.write(bytes.Repeat([]byte{c}, n))
				got.writeRun(c, n)
				want.write([]byte("tail"))
				got.write([]byte("tail"))
				if w, g := want.sum(), got.sum(); w != g {
					t.Errorf("%d bytes, then %d of %#x: %#x, want %#x", pre, n, c, g, w)
				}
			}
		}
	}
}
