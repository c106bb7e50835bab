package filters

import (
	"bytes"
	"math/rand"
	"testing"
)

// refRARDelta is the filter written as plainly as possible.
func refRARDelta(dst, src []byte, channels int) {
	n := min(len(dst), len(src))
	channels = max(1, min(channels, n))
	s := 0
	for ch := 0; ch < channels; ch++ {
		var prev byte
		for i := ch; i < n; i += channels {
			prev -= src[s]
			dst[i] = prev
			s++
		}
	}
}

// TestRARDeltaReference compares RARDelta with the plain loop for every
// size up to 200 (and some larger ones), channel counts around the
// specialised ones, and destinations shorter or longer than the source.
func TestRARDeltaReference(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	sizes := []int{1000, 4096, 4099, 65536}
	for n := 0; n <= 200; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		src := make([]byte, n)
		rng.Read(src)
		for _, ch := range []int{0, 1, 2, 3, 4, 5, 7, 8, 16, 32, 300} {
			for _, dn := range []int{n, n / 2, n + 3} {
				want := bytes.Repeat([]byte{0xAA}, dn)
				got := bytes.Repeat([]byte{0xAA}, dn)
				refRARDelta(want, src, ch)
				RARDelta(got, src, ch)
				if !bytes.Equal(got, want) {
					t.Fatalf("n=%d channels=%d dst=%d: differs at %d", n, ch, dn, firstDiff(got, want))
				}
			}
		}
	}
}
