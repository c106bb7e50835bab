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

// TestHashChainGiveUp checks mf.giveUp and mf.aheadGiveUp: a walk that
// finds no match longer than the short tables' within giveUp steps (the
// lookahead's within aheadGiveUp) stops, one that has found a longer
// match takes all mf.cycles steps, and without giveUp every walk takes
// them all. The chain at the probe holds, newest first, copies of its
// first 6 bytes (no longer than the 3-byte table's match), optionally an
// 8-byte copy, and a 12-byte copy at a chosen step.
func TestHashChainGiveUp(t *testing.T) {
	probe := []byte("QRSTUVWXYZABCDEFGHIJ")
	filler := func(n int, seed uint32) []byte {
		b := make([]byte, n)
		for i := range b {
			seed = seed*1664525 + 1013904223
			b[i] = 'a' + byte(seed>>24)%26
		}
		return b
	}
	copyOf := func(n int, seed uint32) []byte {
		return append(append(append([]byte{}, probe[:n]...), filler(1, seed)...), filler(40, seed+1)...)
	}
	cases := []struct {
		name    string
		chain   []int // copy lengths, newest first
		giveUp  int
		ahead   bool // the lookahead's search (with aheadGiveUp 2)
		wantLen int
		walk    string // what the walk should do, for the messages
		floor   int    // the lookahead's floor
	}{
		{"12 at step 7, give up after 6", []int{6, 6, 6, 6, 6, 6, 12}, 6, false, 6, "stops", 0},
		{"12 at step 6, give up after 6", []int{6, 6, 6, 6, 6, 12}, 6, false, 12, "finds", 0},
		{"12 at step 7, no giving up", []int{6, 6, 6, 6, 6, 6, 12}, 0, false, 12, "finds", 0},
		{"8 at step 2, 12 at step 9", []int{6, 8, 6, 6, 6, 6, 6, 6, 12}, 6, false, 12, "finds", 0},
		{"12 at step 17, after an 8", []int{6, 8, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 12}, 6, false, 8, "all steps", 0},
		{"lookahead: 12 at step 3", []int{6, 6, 12}, 10, true, 6, "stops", 0},
		{"lookahead: 12 at step 2", []int{6, 12}, 10, true, 12, "finds", 0},
		{"lookahead: 8 at step 2, 12 at step 9", []int{6, 8, 6, 6, 6, 6, 6, 6, 12}, 10, true, 12, "finds", 0},
		// The lookahead's floor: an 8-byte copy is no longer than a
		// floor of 8, so it gives the walk no more steps.
		{"lookahead, floor 8: 8 at step 2, 12 at step 4", []int{6, 8, 6, 12}, 10, true, 6, "stops", 8},
		{"lookahead, floor 7: 8 at step 2, 12 at step 4", []int{6, 8, 6, 12}, 10, true, 12, "finds", 7},
		{"lookahead, floor 8: 12 at step 2", []int{6, 12}, 10, true, 12, "finds", 8},
		{"search: 12 at step 3", []int{6, 6, 12}, 10, false, 12, "finds", 0},
		// After a match of fastLongMatch (8) bytes, fastAfterLong (8)
		// more steps.
		{"8 at step 2, 12 at step 11", []int{6, 8, 6, 6, 6, 6, 6, 6, 6, 6, 12}, 6, false, 8, "stops", 0},
		{"8 at step 2, 12 at step 10", []int{6, 8, 6, 6, 6, 6, 6, 6, 6, 12}, 6, false, 12, "finds", 0},
		{"7 at step 2, 12 at step 11", []int{6, 7, 6, 6, 6, 6, 6, 6, 6, 6, 12}, 6, false, 12, "finds", 0},
		{"8 at step 2, 12 at step 11, no giving up", []int{6, 8, 6, 6, 6, 6, 6, 6, 6, 6, 12}, 0, false, 12, "finds", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var data []byte
			data = append(data, filler(100, 1)...)
			for i := len(c.chain) - 1; i >= 0; i-- { // oldest first
				data = append(data, copyOf(c.chain[i], uint32(10+i))...)
			}
			at := len(data)
			data = append(data, probe...)
			data = append(data, filler(50, 99)...)
			mf := newMatchFinder(false, 5, 1<<16, 32, 16)
			mf.giveUp, mf.aheadGiveUp = c.giveUp, 2
			mf.reset(data)
			mf.hcSkip(at)
			var ms []match
			if c.ahead {
				ms = mf.hcGetMatchesAhead(nil, c.floor)
			} else {
				ms = mf.hcGetMatches(nil)
			}
			if len(ms) == 0 {
				t.Fatalf("no match at the probe (the walk %s)", c.walk)
			}
			if got := int(ms[len(ms)-1].len); got != c.wantLen {
				t.Errorf("longest match %d, want %d (the walk %s); matches %v", got, c.wantLen, c.walk, ms)
			}
		})
	}
}

// TestGiveUpLevels checks which encoders give their chain walks up early:
// the hash chains of levels 1 and 2, in proportion to their steps.
func TestGiveUpLevels(t *testing.T) {
	for level := 1; level <= 9; level++ {
		o := LevelOptions(level)
		o.DictSize = min(o.DictSize, 1<<20) // the give-up steps do not depend on it
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		want, wantAhead := 0, 0
		if level <= 2 {
			want, wantAhead = 10, 4
		}
		if mf := newEncoder(&o).mf; mf.giveUp != want || mf.aheadGiveUp != wantAhead {
			t.Errorf("level %d (%s, %d steps): giveUp %d and %d, want %d and %d", level, o.MatchFinder, o.Cycles, mf.giveUp, mf.aheadGiveUp, want, wantAhead)
		}
	}
	o := LevelOptions(1)
	o.MatchFinder, o.Cycles = "bt4", 32
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	if mf := newEncoder(&o).mf; mf.giveUp != 0 || mf.aheadGiveUp != 0 {
		t.Errorf("level 1 with bt4: giveUp %d and %d, want none", mf.giveUp, mf.aheadGiveUp)
	}
	o = LevelOptions(1)
	o.Cycles = 32
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	if mf := newEncoder(&o).mf; mf.giveUp != 20 || mf.aheadGiveUp != 8 {
		t.Errorf("level 1 with 32 steps: giveUp %d and %d, want 20 and 8", mf.giveUp, mf.aheadGiveUp)
	}
}

// TestSmallDictionaryTables checks the table sizes of small and large
// dictionaries: a small one gets about as many main and 3-byte slots as
// it has positions (at least 1<<smallTableBits), a large one 7-Zip's
// sizes, and every hash of a stream's bytes falls in its table. The hash
// chains' main table has 7-Zip's size too, half as many slots as
// positions (at least 2^18 with 5-byte hashes): one slot a position cost
// twice 7-Zip's table (mx4: 64 MiB against 32 MiB) and put garc's peak
// memory above 7zz's.
func TestSmallDictionaryTables(t *testing.T) {
	for _, c := range []struct {
		bt            bool
		hb            int
		dict          uint32
		main, h3, h4b int
	}{
		{true, 4, 4 << 10, 1 << 12, 1 << 12, 0},
		{true, 5, 4 << 10, 1 << 12, 1 << 12, 1 << 12},
		{true, 4, 1 << 10, 1 << 10, 1 << 10, 0},
		{true, 4, 64 << 10, 1 << 16, 1 << 16, 0},
		{true, 5, 1 << 20, 1 << 19, 1 << 16, 1 << 18},
		{true, 4, 64 << 20, 1 << 24, 1 << 16, 0},
		{false, 4, 4 << 10, 1 << 12, 1 << hc3Bits, 0},
		{false, 5, 4 << 10, 1 << 18, 1 << hc3Bits, 0},
		{false, 4, 1 << 20, 1 << 19, 1 << hc3Bits, 0},
		{false, 5, 256 << 10, 1 << 18, 1 << hc3Bits, 0}, // mx1
		{false, 5, 1 << 20, 1 << 19, 1 << hc3Bits, 0},   // mx2
		{false, 5, 4 << 20, 1 << 21, 1 << hc3Bits, 0},   // mx3
		{false, 5, 16 << 20, 1 << 23, 1 << hc3Bits, 0},  // mx4
		{false, 5, 3 << 20, 1 << 21, 1 << hc3Bits, 0},   // rounded up to a power of two, halved
		{true, 4, 16 << 20, 1 << 23, 1 << 16, 0},
	} {
		name := fmt.Sprintf("bt %v, %d-byte hashes, dictionary %d", c.bt, c.hb, c.dict)
		mf := newMatchFinder(c.bt, c.hb, c.dict, 32, 16)
		if len(mf.hash4) != c.main || len(mf.hash3) != c.h3 || len(mf.hash4b) != c.h4b {
			t.Errorf("%s: tables of %d, %d and %d entries, want %d, %d and %d", name, len(mf.hash4), len(mf.hash3), len(mf.hash4b), c.main, c.h3, c.h4b)
			continue
		}
		if len(mf.son) < int(mf.cyclic) {
			t.Errorf("%s: %d chain or tree entries for %d positions", name, len(mf.son), mf.cyclic)
		}
		if !c.bt || c.dict > 64<<10 {
			continue // the binary trees' sized hashes, on dictionaries quick to fill
		}
		data := testData("mixed", 3*int(c.dict)/2, 9)
		mf.reset(data)
		var ms []match
		for mf.pos < len(data) {
			ms = mf.find(ms) // the hashes index their tables, or this panics
		}
	}
}
