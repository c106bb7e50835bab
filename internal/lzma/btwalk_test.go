package lzma

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestBtWalksMatchBtFind checks that the single-threaded binary-tree
// finder, whose walks run several positions side by side (btwalk.go),
// returns at every searched position the matches of one walk at a time
// (btFind) and leaves the same trees, for 4- and 5-byte hashing, with
// dictionaries smaller than the input (walks reaching slots that later
// positions claim), the parser's mix of searches and skips, and data
// whose walks are long (a table of numbers), short (random) or runs.
func TestBtWalksMatchBtFind(t *testing.T) {
	defer func(old bool) { btAdapt = old }(btAdapt)
	btAdapt = false
	var numbers []byte
	for i := 0; len(numbers) < 120000; i++ {
		numbers = fmt.Appendf(numbers, "%d,%d.%02d,%d\n", 1000000+i*37%99991, i%977, i%100, i*i%100003)
	}
	var runs []byte
	for i := 0; len(runs) < 120000; i++ {
		runs = append(runs, make([]byte, 500+i*937%9000)...)
		runs = append(runs, bytes.Repeat([]byte("abcab"), 1+i%300)...)
		runs = append(runs, testData("random", 50+i%200, int64(i))...)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"mixed", testData("mixed", 120000, 9)},
		{"numbers", numbers},
		{"random", testData("random", 60000, 4)},
		{"runs", runs},
	} {
		for _, hb := range []int{4, 5} {
			for _, dict := range []uint32{1 << 12, 1 << 15} {
				for _, level := range []int{5, 9} {
					name := fmt.Sprintf("%s/bt%d/dict=%d/mx%d", tc.name, hb, dict, level)
					t.Run(name, func(t *testing.T) { testBtWalks(t, tc.data, hb, dict, level) })
				}
			}
		}
	}
}

// TestBtWalksAdapt checks TestBtWalksMatchBtFind's finders with the
// switch to one walk at a time (btAdapt) on and off, and the pipelined
// finder's worker likewise (TestMTFinderMatchesSingle).
func TestBtWalksAdapt(t *testing.T) {
	mixed := testData("mixed", 1<<20+777, 5)[:1<<19]
	var tarLike []byte
	for i := 0; len(tarLike) < 1<<19; i++ {
		// Runs of zeros with text between them, as a tar of sources:
		// positions wait for the walks of the ones before.
		tarLike = append(tarLike, make([]byte, 100+i*37%500)...)
		tarLike = append(tarLike, mixed[i*997%(len(mixed)-2000):][:300+i%1500]...)
	}
	defer func(old bool) { btAdapt = old }(btAdapt)
	for _, adapt := range []bool{false, true} {
		btAdapt = adapt
		for _, hb := range []int{4, 5} {
			name := fmt.Sprintf("adapt=%v/bt%d", adapt, hb)
			t.Run(name+"/single", func(t *testing.T) {
				if serial := testBtWalks(t, tarLike[:1<<18], hb, 1<<15, 5); serial != adapt {
					t.Errorf("walked one at a time: %v, want %v", serial, adapt)
				}
			})
		}
		t.Run(fmt.Sprintf("adapt=%v/pipelined", adapt), func(t *testing.T) { testMTFinderMatchesSingle(t, tarLike, 1<<17) })
	}
}

// testBtWalks reports whether the finder walked one position at a time
// somewhere (btAdapt).
func testBtWalks(t *testing.T, data []byte, hb int, dict uint32, level int) (serial bool) {
	o := LevelOptions(level)
	mk := func() *matchFinder {
		mf := newMatchFinder(true, hb, dict, o.FastBytes, o.Cycles)
		mf.reset(data)
		return mf
	}
	got, ref := mk(), mk()
	var a, b []match
	for step := 0; got.pos < len(data); step++ {
		if step%5 == 2 {
			n := min(1+step%41, len(data)-got.pos)
			got.skip(n)
			for range n {
				b = refFind(ref, b)
			}
			continue
		}
		serial = serial || got.seq > 0
		pos := got.pos
		a = got.find(a)
		b = refFind(ref, b)
		if !slices.Equal(a, b) {
			t.Fatalf("position %d: walks side by side %v, one at a time %v", pos, a, b)
		}
	}
	if got.pos != ref.pos || !slices.Equal(got.son, ref.son) {
		t.Fatalf("trees differ at the end (positions %d, %d)", got.pos, ref.pos)
	}
	return serial
}

// refFind is the finder's search at its current position with one walk
// (btFind).
func refFind(mf *matchFinder, ms []match) []match {
	pos := mf.pos
	limit := min(mf.end-pos, mf.nice)
	if limit < mf.hb {
		mf.advance()
		return ms[:0]
	}
	cur := uint32(pos) + mf.delta
	maxD := mf.maxDist(cur)
	ph := mf.preHashed(cur)
	ms, best := mf.shortMatches(ms[:0], pos, cur, ph.c2, ph.c3, ph.c4b, maxD, limit)
	ms = mf.btFind(ms, pos, cur, ph.c4, maxD, limit, best)
	mf.advance()
	return ms
}
