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
	e.encodeWork = new(encodeWork)
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
		if iter%5 == 1 {
			// Exactly periodic blocks: a unit repeated.
			period = 1 + r.IntN(min(n, 7))
			n -= n % period
			b = b[:n]
		}
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
		// The origin row must hold the unrotated block: undo the
		// transform from it.
		if got := inverseBWT(want, orig); !bytes.Equal(got, b) {
			t.Fatalf("iter %d: origin %d of %q gives %q", iter, orig, b, got)
		}
	}
}

// inverseBWT undoes the transform naively (by the LF mapping).
func inverseBWT(last []byte, orig int) []byte {
	n := len(last)
	var count [257]int
	for _, c := range last {
		count[int(c)+1]++
	}
	for i := 1; i < 257; i++ {
		count[i] += count[i-1]
	}
	lf := make([]int, n)
	for i, c := range last {
		lf[i] = count[c]
		count[c]++
	}
	out := make([]byte, n)
	row := orig
	for i := n - 1; i >= 0; i-- {
		out[i] = last[row]
		row = lf[row]
	}
	return out
}

func TestLeastRotation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 5000 {
		n := 1 + r.IntN(30)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(1+r.IntN(3)))
		}
		bb := append(append([]byte{}, b...), b...)
		best := 0
		for i := 1; i < n; i++ {
			if bytes.Compare(bb[i:i+n], bb[best:best+n]) < 0 {
				best = i
			}
		}
		got := leastRotation(b)
		if !bytes.Equal(bb[got:got+n], bb[best:best+n]) {
			t.Fatalf("leastRotation(%q) = %d, want %d", b, got, best)
		}
	}
}
