package ppmd

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestStateListLoops checks the unrolled state-list loops of the decoder
// (findCount, findMaskedCount, maskedSum, findStateLong) against plain
// one-state-a-step versions, on lists of every length from 1 to 256 with
// random frequencies and masks, for every count up to beyond the sum (a
// corrupt stream's code may give any count).
func TestStateListLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	for n := 1; n <= 256; n++ {
		// The list lives inside an arena, as in the model.
		mem := make([]byte, 64+n*stateSize+64)
		s := uint32(64)
		st := statesAt(mem, s, uint32(n))
		syms := r.Perm(256)[:n]
		var mask [256]byte
		for i := range mask {
			if r.IntN(3) != 0 {
				mask[i] = 0xFF
			}
		}
		sum, msum := uint32(0), uint32(0)
		for i := 0; i < n; i++ {
			st[i*stateSize] = byte(syms[i])
			f := uint32(1 + r.IntN(124))
			st[i*stateSize+1] = byte(f)
			sum += f
			msum += f & uint32(mask[syms[i]])
		}
		if got := maskedSum(st, &mask); got != msum {
			t.Fatalf("n=%d: maskedSum %d, want %d", n, got, msum)
		}
		for count := uint32(st[1]); count <= sum+2; count++ {
			o, cum := findCount(st, count)
			wo, wcum := len(st), sum
			c := uint32(0)
			for i := 0; i < n; i++ {
				f := uint32(st[i*stateSize+1])
				if count < c+f {
					wo, wcum = i*stateSize, c
					break
				}
				c += f
			}
			if o != wo || cum != wcum {
				t.Fatalf("n=%d count=%d: findCount (%d, %d), want (%d, %d)", n, count, o, cum, wo, wcum)
			}
		}
		for count := uint32(0); count <= msum+2; count++ {
			o, cum := findMaskedCount(st, &mask, count)
			wo, wcum := len(st), msum
			c := uint32(0)
			for i := 0; i < n; i++ {
				f := uint32(st[i*stateSize+1]) & uint32(mask[st[i*stateSize]])
				if count < c+f {
					wo, wcum = i*stateSize, c
					break
				}
				c += f
			}
			if o != wo || cum != wcum {
				t.Fatalf("n=%d count=%d: findMaskedCount (%d, %d), want (%d, %d)", n, count, o, cum, wo, wcum)
			}
		}
		for i, sym := range syms {
			if got, want := findStateLong(mem, s, uint32(n), byte(sym)), s+uint32(i*stateSize); got != want {
				t.Fatalf("n=%d: findStateLong(%d) = %d, want %d", n, sym, got, want)
			}
			if got, want := findState(mem, s, byte(sym)), s+uint32(i*stateSize); got != want {
				t.Fatalf("n=%d: findState(%d) = %d, want %d", n, sym, got, want)
			}
		}
		if n < 256 {
			absent := byte(r.Perm(256)[0])
			for contains(syms, int(absent)) {
				absent++
			}
			func() {
				defer func() {
					if e, _ := recover().(error); !errors.Is(e, errModelInvariant) {
						t.Fatalf("n=%d: findStateLong of an absent symbol: recovered %v, want errModelInvariant", n, e)
					}
				}()
				findStateLong(mem, s, uint32(n), absent)
			}()
		}
	}
}

func contains(a []int, v int) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}
