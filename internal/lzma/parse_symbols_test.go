package lzma

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
)

// TestMatchAtRepDistance checks that a symbol the optimal parser priced as
// a match is coded as a match even when its distance is one of the reps
// (the reps shift as after a match, the state is a match state), that
// the same distance without the flag is coded as that rep, and that both
// streams decode to the input.
func TestMatchAtRepDistance(t *testing.T) {
	// 200 random bytes, then 4 bytes copied from distance 10 (0-based 9),
	// 3 from distance 3 (0-based 2) and 4 from distance 10 again, then
	// random bytes.
	rng := rand.New(rand.NewSource(7))
	data := make([]byte, 260)
	rng.Read(data)
	copyFrom := func(pos, dist, n int) {
		for i := range n {
			data[pos+i] = data[pos+i-dist-1]
		}
	}
	copyFrom(200, 9, 4)
	copyFrom(204, 2, 3)
	copyFrom(207, 9, 4)
	for _, tc := range []struct {
		match     bool
		wantReps  [4]uint32
		wantState uint32
	}{
		{true, [4]uint32{9, 2, 9, 0}, stateMatchAfterNonLit},
		{false, [4]uint32{9, 2, 0, 0}, stateRepAfterNonLit},
	} {
		o := LevelOptions(5)
		o.DictSize = 1 << 16
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		e := newEncoder(&o)
		e.resetStream(data)
		lits := func(to int) {
			for e.ep < to {
				e.encodeSymbol(symbol{len: 1, dist: litMarker})
			}
		}
		lits(200)
		e.encodeSymbol(symbol{len: 4, dist: 9, match: true})
		e.encodeSymbol(symbol{len: 3, dist: 2, match: true})
		if e.reps != [4]uint32{2, 9, 0, 0} {
			t.Fatalf("reps before the test symbol: %v", e.reps)
		}
		e.encodeSymbol(symbol{len: 4, dist: 9, match: tc.match})
		if e.reps != tc.wantReps || e.state != tc.wantState {
			t.Errorf("match=%v: reps %v state %d, want reps %v state %d", tc.match, e.reps, e.state, tc.wantReps, tc.wantState)
		}
		lits(len(data))
		e.rc.flush()
		props := []byte{93, 0, 0, 1, 0} // lc 3, lp 0, pb 2; 64 KiB
		r, err := NewReader(bytes.NewReader(e.rc.out), props, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("match=%v: decoded %d bytes (%v), not the input", tc.match, len(got), err)
		}
	}
}

// TestBacktrackMatchFlags checks that the optimal parser's backtrack
// marks the matches it priced (plain and as a composite's first symbol)
// and nothing else.
func TestBacktrackMatchFlags(t *testing.T) {
	o := LevelOptions(5)
	o.DictSize = 1 << 16
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	e := newEncoder(&o)
	opt := e.opt
	// 0 -match 2-> 2 -literal-> 3 -match 3, literal, rep0 2-> 9
	// -rep 2, literal, rep0 2-> 14 -rep 2-> 16 -literal, rep0 2-> 19
	opt[2] = optNode{kind: stepMatch, len: 2, dist: 7}
	opt[3] = optNode{kind: stepLiteral, len: 1, dist: litMarker}
	opt[9] = optNode{kind: stepComposite, first: stepMatch, len: 6, len1: 3, dist: 11}
	opt[14] = optNode{kind: stepComposite, first: stepRep, len: 5, len1: 2, dist: 7}
	opt[16] = optNode{kind: stepRep, len: 2, dist: 11}
	opt[19] = optNode{kind: stepComposite, first: stepNone, len: 3, dist: 11}
	e.pend = e.pend[:0]
	e.backtrack(19)
	want := []symbol{
		{len: 2, dist: 7, match: true},
		{len: 1, dist: litMarker},
		{len: 3, dist: 11, match: true},
		{len: 1, dist: litMarker},
		{len: 2, dist: 11},
		{len: 2, dist: 7},
		{len: 1, dist: litMarker},
		{len: 2, dist: 7},
		{len: 2, dist: 11},
		{len: 1, dist: litMarker},
		{len: 2, dist: 11},
	}
	if len(e.pend) != len(want) {
		t.Fatalf("got %d symbols %+v, want %+v", len(e.pend), e.pend, want)
	}
	for i := range want {
		if e.pend[i] != want[i] {
			t.Errorf("symbol %d: got %+v, want %+v", i, e.pend[i], want[i])
		}
	}
}
