package lzma

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestParseFastFarShortMatches checks that the fast parser codes a 2-byte
// match at a distance of fastFar2 or more, and a 3-byte one at fastFar3
// or more, as a literal, and takes them closer. The input is filler (a
// period of 7 bytes below 0x80, so that few 2- and 3-byte table slots
// change between the copies) with a pattern of bytes from 0x80 up at p0
// and again at p0+dist, so that the only match at the second copy is the
// pattern's.
func TestParseFastFarShortMatches(t *testing.T) {
	for _, tc := range []struct {
		n     int
		dist  int
		match bool
	}{
		{2, 8, true},
		{2, fastFar2, true}, // 0-based fastFar2-1
		{2, fastFar2 + 1, false},
		{2, 100, false},
		{3, 500, true},
		{3, fastFar3, true},
		{3, fastFar3 + 1, false},
		{3, 5000, false},
		{4, 5000, true},
	} {
		t.Run(fmt.Sprintf("len%d/dist%d", tc.n, tc.dist), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(tc.n*100000 + tc.dist)))
			const p0 = 3000
			p1 := p0 + tc.dist
			data := make([]byte, p1+3000)
			var period [7]byte
			for i := range period {
				period[i] = byte(rng.Intn(0x80))
			}
			for i := range data {
				data[i] = period[i%len(period)]
			}
			for i := 0; i < tc.n; i++ {
				data[p0+i] = byte(0x80 + i)
				data[p1+i] = byte(0x80 + i)
			}
			// No match may reach into the second copy from before it
			// or run on after it.
			if data[p1-1] == data[p0-1] {
				data[p1-1] ^= 1
			}
			if data[p1+tc.n] == data[p0+tc.n] {
				data[p1+tc.n] ^= 1
			}
			e := fastEncoder(t, data)
			for e.ep < p1 {
				l, d := e.parseFast()
				e.encodeSymbol(symbol{len: l, dist: d})
			}
			if e.ep != p1 {
				t.Fatalf("a symbol ran over the second copy: at %d, want %d", e.ep, p1)
			}
			l, d := e.parseFast()
			want := symbol{len: 1, dist: litMarker}
			if tc.match {
				want = symbol{len: uint32(tc.n), dist: uint32(tc.dist - 1)}
			}
			if got := (symbol{len: l, dist: d}); got != want {
				t.Errorf("got symbol %+v, want %+v", got, want)
			}
		})
	}
}

// repEndSink makes TestLongestRep's buffer escape to the heap.
var repEndSink []byte

// TestLongestRep checks the fast parser's rep test against a direct
// comparison: reps at or above valid are not used, lengths stop at limit,
// and the first of equally long reps wins.
func TestLongestRep(t *testing.T) {
	buf := []byte("abcabcabXabcabcabcabcQ")
	pos := 12 // "abcabcabcQ"
	tests := []struct {
		reps     [4]uint32
		valid    uint64
		limit    int
		best, id int
	}{
		{[4]uint32{2, 5, 8, 11}, 12, 10, 9, 0},    // distance 3: "abcabcabc" then Q differs from a
		{[4]uint32{8, 2, 5, 11}, 12, 10, 9, 1},    // same match at index 1; distance 9 gives 5 bytes
		{[4]uint32{8, 2, 5, 11}, 2, 10, 0, 0},     // every rep at or above valid
		{[4]uint32{8, 2, 5, 11}, 3, 4, 4, 1},      // limit 4
		{[4]uint32{0, 1, 3, 4}, 12, 10, 0, 0},     // none matches two bytes
		{[4]uint32{11, 11, 11, 11}, 12, 10, 8, 0}, // "abcabcab" then X
	}
	// Two bytes at the end of the buffer: the rep test must not form a
	// pointer past them (checkptr, which -race enables, fails on it).
	end := make([]byte, 16) // a size class of its own: nothing after it
	repEndSink = end        // on the heap, where checkptr looks
	copy(end, "abcabcabXabcab")
	end[14], end[15] = 'a', 'b'
	if best, id := longestRep(end, 14, &[4]uint32{1, 0, 0, 0}, 12, 2); best != 2 || id != 0 {
		t.Errorf("at the end of the buffer: longestRep = %d, %d; want 2, 0", best, id)
	}
	for i, tc := range tests {
		best, id := longestRep(buf, pos, &tc.reps, tc.valid, tc.limit)
		// The reference: a plain byte comparison.
		wantBest, wantID := 0, 0
		for k, r := range tc.reps {
			if uint64(r) >= tc.valid {
				continue
			}
			l := 0
			for l < tc.limit && buf[pos+l] == buf[pos+l-int(r)-1] {
				l++
			}
			if l >= 2 && l > wantBest {
				wantBest, wantID = l, k
			}
		}
		if best != wantBest || id != wantID || best != tc.best || id != tc.id {
			t.Errorf("case %d: longestRep = %d, %d; reference %d, %d; table %d, %d", i, best, id, wantBest, wantID, tc.best, tc.id)
		}
	}
}

// TestParseFastSparseLiteralRuns checks the fast parser's sparse search
// of long literal runs: after fastSparseAfter literals in a row it
// searches one position in fastSparseEvery, so a copy that starts between
// two searched positions is found at the next one; a copy after a shorter
// run is found where it starts.
func TestParseFastSparseLiteralRuns(t *testing.T) {
	for _, tc := range []struct {
		run, from, n int // the copy of data[from:from+n] at run
		wantAt       int
	}{
		{14, 0, 12, 14}, // a short run: searched everywhere
		{fastSparseAfter - 3, 0, 12, fastSparseAfter - 3},
		{101, 10, 30, 104}, // run 101: 101, 102 and 103 are only inserted
		{104, 10, 30, 104}, // a searched position
	} {
		t.Run(fmt.Sprintf("run%d", tc.run), func(t *testing.T) {
			rng := rand.New(rand.NewSource(7))
			data := make([]byte, tc.run+tc.n+50)
			rng.Read(data)
			copy(data[tc.run:tc.run+tc.n], data[tc.from:tc.from+tc.n])
			data[tc.run+tc.n] = ^data[tc.from+tc.n] // the copy ends there
			e := fastEncoder(t, data)
			for e.ep < len(data) {
				at := e.ep
				l, d := e.parseFast()
				if d != litMarker {
					want := symbol{len: uint32(tc.run + tc.n - tc.wantAt), dist: uint32(tc.run - tc.from - 1)}
					if at != tc.wantAt || (symbol{len: l, dist: d}) != want {
						t.Fatalf("first match at %d: %+v; want at %d: %+v", at, symbol{len: l, dist: d}, tc.wantAt, want)
					}
					return
				}
				if e.litRun != at {
					t.Fatalf("random prefix: a match before %d", at)
				}
				e.encodeSymbol(symbol{len: l, dist: d})
			}
			t.Fatal("no match found")
		})
	}
}

// fastEncoder returns a level-1 encoder at the start of a block over
// data, for driving parseFast and encodeSymbol by hand.
func fastEncoder(t *testing.T, data []byte) *encoder {
	t.Helper()
	o := LevelOptions(1)
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	e := newEncoder(&o)
	if err := e.resetBlock(data, 0, 0); err != nil {
		t.Fatal(err)
	}
	e.rc.reset()
	return e
}
