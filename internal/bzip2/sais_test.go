package bzip2

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveRotations returns the rotation order of b by direct comparison.
func naiveBWT(b []byte) ([]byte, int) {
	n := len(b)
	rot := make([]int, n)
	for i := range rot {
		rot[i] = i
	}
	bb := append(append([]byte{}, b...), b...)
	slices.SortStableFunc(rot, func(x, y int) int { return bytes.Compare(bb[x:x+n], bb[y:y+n]) })
	out := make([]byte, n)
	orig := -1
	for k, p := range rot {
		out[k] = bb[p+n-1]
		if p == 0 {
			orig = k
		}
	}
	return out, orig
}

func TestSortBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	e := newBlockEncoder(0)
	for iter := range 3000 {
		n := 1 + r.IntN(60)
		if iter%100 == 0 {
			n = 1 + r.IntN(5000)
		}
		k := 1 + r.IntN(4)
		if iter%3 == 0 {
			k = 256
		}
		b := make([]byte, n)
		period := 1 + r.IntN(n)
		for i := range b {
			if i < period || iter%2 == 0 {
				b[i] = byte(r.IntN(k))
			} else {
				b[i] = b[i-period]
			}
		}
		e.block = b
		orig := e.sortBlock()
		want, _ := naiveBWT(b)
		if !bytes.Equal(e.bwt[:n], want) {
			t.Fatalf("iter %d: BWT of %q = %q, want %q", iter, b, e.bwt[:n], want)
		}
		// The origin row must hold the unrotated block.
		_ = orig
	}
}
