package lzma

import (
	"fmt"
	"testing"
)

// TestHashChainMatches checks the hash-chain finder against a brute-force
// search: every reported match is real, lengths increase strictly, and
// with enough chain steps the longest match of at least the hashed length
// within the dictionary is found.
func TestHashChainMatches(t *testing.T) {
	for _, hb := range []int{4, 5} {
		for _, kind := range []string{"text", "repeat", "mixed"} {
			t.Run(fmt.Sprintf("hc%d/%s", hb, kind), func(t *testing.T) {
				data := testData(kind, 20000, 3)
				const dict, nice = 1 << 12, 64
				mf := newMatchFinder(false, hb, dict, nice, 1<<20, 0)
				mf.reset(data)
				var ms []match
				for pos := 0; pos < len(data); pos++ {
					ms = mf.hcGetMatches(ms)
					limit := min(len(data)-pos, nice)
					prev := 0
					for _, m := range ms {
						d := int(m.dist) + 1
						if int(m.len) <= prev || int(m.len) > limit || d > pos || d > dict {
							t.Fatalf("pos %d: bad match %+v after length %d", pos, m, prev)
						}
						for i := 0; i < int(m.len); i++ {
							if data[pos+i] != data[pos+i-d] {
								t.Fatalf("pos %d: match %+v differs at byte %d", pos, m, i)
							}
						}
						prev = int(m.len)
					}
					if limit < hb {
						continue
					}
					best := 0
					for d := 1; d <= min(pos, dict); d++ {
						l := 0
						for l < limit && data[pos+l] == data[pos+l-d] {
							l++
						}
						best = max(best, l)
					}
					if best >= hb && prev != best {
						t.Fatalf("pos %d: longest match %d, brute force %d", pos, prev, best)
					}
				}
			})
		}
	}
}
