package lzma

import (
	"bytes"
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
				mf := newMatchFinder(false, hb, dict, nice, 1<<20)
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

// TestHashChainSkip checks that skipping positions updates the hash-chain
// finder exactly as searching them: hcSkip's stretches (cut where the chain
// slots wrap and at the last eight bytes of the buffer) leave the same
// tables and chains as hcGetMatches at every position, and the matches
// found after a skip are the same.
func TestHashChainSkip(t *testing.T) {
	for _, hb := range []int{4, 5} {
		for _, kind := range []string{"text", "repeat", "mixed"} {
			t.Run(fmt.Sprintf("hc%d/%s", hb, kind), func(t *testing.T) {
				data := testData(kind, 30000, 5)
				const dict, nice = 1 << 12, 32 // chain slots wrap every 4097 positions
				search := newMatchFinder(false, hb, dict, nice, 16)
				skip := newMatchFinder(false, hb, dict, nice, 16)
				search.reset(data)
				skip.reset(data)
				var ms, ms2 []match
				step := 0
				for skip.pos < len(data) {
					// Alternate searches and skips of growing lengths,
					// up to the end of the data.
					if step%2 == 0 {
						ms = search.hcGetMatches(ms)
						ms2 = skip.hcGetMatches(ms2)
						if fmt.Sprint(ms) != fmt.Sprint(ms2) {
							t.Fatalf("pos %d: matches %v after skips, %v after searches", skip.pos-1, ms2, ms)
						}
					} else {
						n := min(step%300+1, len(data)-skip.pos)
						for i := 0; i < n; i++ {
							ms = search.hcGetMatches(ms)
						}
						skip.hcSkip(n)
					}
					step++
				}
				for _, tb := range []struct {
					name string
					a, b []uint32
				}{{"hash2", search.hash2, skip.hash2}, {"hash3", search.hash3, skip.hash3}, {"hash4", search.hash4, skip.hash4}, {"son", search.son, skip.son}} {
					for i := range tb.a {
						if tb.a[i] != tb.b[i] {
							t.Fatalf("%s[%d] = %d after skips, %d after searches", tb.name, i, tb.b[i], tb.a[i])
						}
					}
				}
				if search.pos != skip.pos || search.cycPos != skip.cycPos {
					t.Fatalf("position %d/%d after skips, %d/%d after searches", skip.pos, skip.cycPos, search.pos, search.cycPos)
				}
			})
		}
	}
}

// TestHashChainTableSizes checks that a hash-chain finder allocates only
// the tables it reads (a 3-byte table of 1<<hc3Bits entries, no 4-byte
// table beside 5-byte hashing) and that its first reset leaves the new
// tables untouched, while a later one clears them.
func TestHashChainTableSizes(t *testing.T) {
	for _, hb := range []int{4, 5} {
		mf := newMatchFinder(false, hb, 1<<18, 32, 16)
		if len(mf.hash3) != 1<<hc3Bits || mf.hash4b != nil {
			t.Errorf("hc%d: 3-byte table %d entries, 4-byte table %d: want %d and none", hb, len(mf.hash3), len(mf.hash4b), 1<<hc3Bits)
		}
		if !mf.tablesZero {
			t.Errorf("hc%d: new tables not marked zero", hb)
		}
		data := bytes.Repeat([]byte("abcdefgh"), 1000)
		mf.reset(data)
		mf.hcSkip(len(data) - 8)
		mf.reset(data)
		for name, tab := range map[string][]uint32{"hash2": mf.hash2, "hash3": mf.hash3, "hash4": mf.hash4} {
			for i, v := range tab {
				if v != 0 {
					t.Fatalf("hc%d: %s[%d] = %d after the second reset", hb, name, i, v)
				}
			}
		}
	}
	mf := newMatchFinder(true, 5, 1<<20, 32, 16)
	if len(mf.hash3) != 1<<16 || len(mf.hash4b) != 1<<18 {
		t.Errorf("bt5: 3-byte table %d entries, 4-byte table %d", len(mf.hash3), len(mf.hash4b))
	}
}
