package ppmd

import (
	"math/rand/v2"
	"testing"
)

// TestStateListLoops pins the state-list loops of the escape path
// (findCount, findMaskedCount, maskedSum, maskSymbols), which step two
// states at a time, against one-state-a-step versions, for lists of every
// length from 1 to 256 states with random symbols, frequencies and masks,
// at the counts on both ends of every state's interval.
func TestStateListLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	for n := 1; n <= 256; n++ {
		st := make([]byte, n*stateSize)
		perm := r.Perm(256)
		for i := 0; i < n; i++ {
			st[i*stateSize] = byte(perm[i])
			st[i*stateSize+1] = byte(1 + r.IntN(124))
			for k := 2; k < stateSize; k++ {
				st[i*stateSize+k] = byte(r.Uint32())
			}
		}
		var mask [256]byte
		for i := range mask {
			if r.IntN(3) != 0 {
				mask[i] = 0xFF
			}
		}
		total, masked := uint32(0), uint32(0)
		for i := 0; i < n; i++ {
			f := uint32(st[i*stateSize+1])
			total += f
			if mask[st[i*stateSize]] != 0 {
				masked += f
			}
		}
		if got := maskedSum(st, &mask); got != masked {
			t.Fatalf("n=%d: maskedSum %d, want %d", n, got, masked)
		}
		// The counts at both ends of every state's interval, and past
		// the last one.
		var counts []uint32
		for i, cum := 0, uint32(0); i < n; i++ {
			if f := uint32(st[i*stateSize+1]); mask[st[i*stateSize]] != 0 {
				counts = append(counts, cum, cum+f-1)
				cum += f
			}
		}
		for _, count := range append(counts, masked) {
			wantI, wantCum := len(st), masked
			cum := uint32(0)
			for i := 0; i < n; i++ {
				f := uint32(st[i*stateSize+1])
				if mask[st[i*stateSize]] == 0 {
					continue
				}
				if count < cum+f {
					wantI, wantCum = i*stateSize, cum
					break
				}
				cum += f
			}
			if i, c := findMaskedCount(st, &mask, count); i != wantI || c != wantCum {
				t.Fatalf("n=%d count=%d: findMaskedCount (%d, %d), want (%d, %d)", n, count, i, c, wantI, wantCum)
			}
		}
		first := uint32(st[1])
		counts = counts[:0]
		for i, cum := 1, first; i < n; i++ {
			f := uint32(st[i*stateSize+1])
			counts = append(counts, cum, cum+f-1)
			cum += f
		}
		for _, count := range append(counts, total) {
			wantI, wantCum := len(st), total
			cum := first
			for i := 1; i < n; i++ {
				f := uint32(st[i*stateSize+1])
				if count < cum+f {
					wantI, wantCum = i*stateSize, cum
					break
				}
				cum += f
			}
			if i, c := findCount(st, count); i != wantI || c != wantCum {
				t.Fatalf("n=%d count=%d: findCount (%d, %d), want (%d, %d)", n, count, i, c, wantI, wantCum)
			}
		}
		want := mask
		for i := 0; i < n; i++ {
			want[st[i*stateSize]] = 0
		}
		maskSymbols(st, &mask)
		if mask != want {
			t.Fatalf("n=%d: maskSymbols left %x, want %x", n, mask, want)
		}
	}
}
