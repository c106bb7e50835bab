package bzip2

import (
	"math/rand/v2"
	"testing"
)

func walkSetup() (tt, lf []uint32, pre []byte, origPtr int) {
	const n = 900000
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := n - 1; i > 0; i-- { // Sattolo: one cycle
		j := r.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	tt, lf = make([]uint32, n), make([]uint32, n)
	for i := range perm {
		tt[i] = perm[i]<<8 | uint32(i&0xff)
		lf[perm[i]] = uint32(i)<<8 | uint32(perm[i]&0xff)
	}
	return tt, lf, make([]byte, n), 0
}

func BenchmarkWalkSingle(b *testing.B) {
	tt, _, pre, o := walkSetup()
	b.SetBytes(int64(len(tt)))
	for b.Loop() {
		p := tt[o] >> 8
		for k := range pre {
			t := tt[p]
			p = t >> 8
			pre[k] = byte(t)
		}
	}
}

func BenchmarkWalkDual(b *testing.B) {
	tt, lf, pre, o := walkSetup()
	b.SetBytes(int64(len(tt)))
	for b.Loop() {
		fwd, bwd := tt[o]>>8, uint32(o)
		lo, hi := 0, len(pre)-1
		for lo < hi {
			t := tt[fwd]
			u := lf[bwd]
			fwd = t >> 8
			bwd = u >> 8
			pre[lo] = byte(t)
			pre[hi] = byte(u)
			lo++
			hi--
		}
	}
}
