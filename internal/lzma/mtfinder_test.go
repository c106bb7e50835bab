package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestThreadsIdentical checks that Writer2's output does not depend on the
// thread count (the pipelined match finder and parallel blocks give the
// same bytes as one thread), for inputs smaller and larger than a block,
// and that the streams decode.
func TestThreadsIdentical(t *testing.T) {
	before := runtime.NumGoroutine()
	mixed := testData("mixed", 1<<20+12345, 21)
	for _, level := range []int{1, 5, 9} {
		for _, tc := range []struct {
			name  string
			data  []byte
			block int64
			dict  uint32
		}{
			{"small-default", testData("text", 100000, 3), 0, 0},
			{"mixed-one-block", mixed[:300000], 1 << 19, 1 << 18},
			{"mixed-3-blocks", mixed, 1 << 19, 1 << 18},
			{"synthetic-3-blocks", testData("mixed", 1<<20+777, 5), 1 << 19, 1 << 17},
			// More blocks than threads: up to eight in flight at once.
			{"mixed-17-blocks", mixed, 1 << 16, 1 << 15},
		} {
			o := LevelOptions(level)
			if tc.block != 0 {
				o.BlockSize, o.DictSize = tc.block, tc.dict
			}
			var ref []byte
			for _, threads := range []int{1, 2, 3, 4, 8} {
				o.Threads = threads
				name := fmt.Sprintf("mx%d/%s/threads=%d", level, tc.name, threads)
				comp, prop := encodeLZMA2(t, tc.data, o)
				if threads == 1 {
					ref = comp
					checkLZMA2(t, name, comp, prop, int64(len(tc.data)), tc.data)
				} else if !bytes.Equal(comp, ref) {
					t.Fatalf("%s: output differs from one thread (%d vs %d bytes)", name, len(comp), len(ref))
				}
			}
		}
	}
	testenv.CheckGoroutines(t, before)
}

// TestThreadsReuse encodes several streams with one Writer2 (Reset)
// across thread counts and checks them against fresh writers.
func TestThreadsReuse(t *testing.T) {
	before := runtime.NumGoroutine()
	data := testData("mixed", 700000, 22)
	o := LevelOptions(5)
	o.DictSize, o.BlockSize = 1<<17, 1<<18
	ref, _ := encodeLZMA2(t, data, o)
	o.Threads = 2
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		buf.Reset()
		w.Reset(&buf)
		// Odd-sized writes.
		for p := data; len(p) > 0; {
			n := min(len(p), 4096*(i+1)+13)
			if _, err := w.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), ref) {
			t.Fatalf("round %d: output differs", i)
		}
	}
	testenv.CheckGoroutines(t, before)
}

type failWriter struct{ n int }

var errFail = errors.New("write failed")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errFail
	}
	f.n--
	return len(p), nil
}

// TestThreadsWriteError checks that a failing destination ends Writer2
// with the error and leaves no goroutine behind.
func TestThreadsWriteError(t *testing.T) {
	before := runtime.NumGoroutine()
	data := testData("mixed", 1<<20, 23)
	for _, threads := range []int{2, 3, 4} {
		for _, okWrites := range []int{0, 1, 2} {
			o := LevelOptions(5)
			o.DictSize, o.BlockSize, o.Threads = 1<<16, 1<<17, threads
			w, err := NewWriter2(&failWriter{n: okWrites}, o)
			if err != nil {
				t.Fatal(err)
			}
			_, werr := w.Write(data)
			cerr := w.Close()
			if !errors.Is(werr, errFail) && !errors.Is(cerr, errFail) {
				t.Fatalf("threads=%d: error not reported: %v, %v", threads, werr, cerr)
			}
		}
	}
	testenv.CheckGoroutines(t, before)
}

// TestThreadsMemory checks how many block buffers and encoders Writer2
// holds at once: a binary-tree block runs with the parallel finder on two
// threads, so Threads/2 blocks (rounded up) are in flight, each with its
// own encoder; with one block in flight the writer compresses it while
// Write waits, in the one buffer that also carries the history to the
// next block. Hash-chain blocks (no parallel finder) run one per thread,
// and with one thread in a stream window instead. The blocks in flight
// hold one buffer each: the next block is filled only once one of them is
// done (into its buffer), as 7-Zip holds one input block per coder.
func TestThreadsMemory(t *testing.T) {
	data := testData("mixed", 600000, 24)
	const dict, block = 1 << 15, 1 << 16
	for _, tc := range []struct {
		level, threads int
		buffers, encs  int
	}{
		{5, 1, 1, 1},
		{5, 2, 1, 1},
		{5, 3, 2, 2},
		{5, 4, 2, 2},
		{9, 8, 4, 4},
		{1, 1, 1, 1},
		{1, 2, 2, 2},
	} {
		o := LevelOptions(tc.level)
		o.DictSize, o.BlockSize, o.Threads = dict, block, tc.threads
		w, err := NewWriter2(io.Discard, o)
		if err != nil {
			t.Fatal(err)
		}
		for p := data; len(p) > 0; {
			n := min(len(p), 10007)
			if _, err := w.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		limit := tc.buffers * (dict + block)
		if w.stream != nil {
			// One thread at a hash-chain level streams its blocks
			// through one window (fast_stream.go).
			limit = streamWindow(&o)
		}
		if w.blockBytes > limit {
			t.Errorf("mx%d threads=%d: %d bytes of block buffers, want at most %d (%d buffers)",
				tc.level, tc.threads, w.blockBytes, limit, tc.buffers)
		}
		if w.nEnc > tc.encs {
			t.Errorf("mx%d threads=%d: %d encoders, want at most %d", tc.level, tc.threads, w.nEnc, tc.encs)
		}
	}
}

// TestMTFinderMatchesSingle drives the pipelined finder and the
// single-threaded one over the same block (with history, searching most
// positions and skipping runs of others, as the parser does) and checks
// that they return the same matches at every searched position, for 4-
// and 5-byte main hashing. The pipelined finder runs one worker goroutine
// beside the caller (7-Zip's layout); it used to run two.
func TestMTFinderMatchesSingle(t *testing.T) {
	mixed := testData("mixed", 1<<20+777, 5)[:1<<19+1<<17]
	// Runs of zeros, of repeated bytes and of a repeated pattern and
	// text line, with breaks in them, ending in a run (so the limits
	// shrink at the end): the worker's long-match path.
	var runs []byte
	for i := 0; len(runs) < 1<<19+1<<17; i++ {
		runs = append(runs, make([]byte, 1000+i*937%70000)...)
		runs = append(runs, mixed[i*4099%len(mixed):][:200+i%900]...)
		runs = append(runs, bytes.Repeat([]byte{0xff}, 300+i%5000)...)
		runs = append(runs, bytes.Repeat([]byte{byte(i), 1, 2, byte(i >> 3)}, 100+i%3000)...)
		runs = append(runs, bytes.Repeat([]byte("GET /index.html 200\n"), 1+i%40)...)
		runs = append(runs, byte(i), byte(i*7))
	}
	runs = append(runs[:1<<19+1<<17-5000], make([]byte, 5000)...)
	const hist = 1 << 17
	for _, tc := range []struct {
		name string
		data []byte
	}{{"mixed", mixed}, {"runs", runs}} {
		t.Run(tc.name, func(t *testing.T) { testMTFinderMatchesSingle(t, tc.data, hist) })
	}
}

func testMTFinderMatchesSingle(t *testing.T, data []byte, hist int) {
	for _, hb := range []int{4, 5} {
		o := LevelOptions(9)
		o.DictSize, o.MatchFinder = 1<<17, fmt.Sprintf("bt%d", hb)
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		ref := newEncoder(&o)
		o.Threads = 2
		par := newEncoder(&o)
		for _, e := range []*encoder{ref, par} {
			if err := e.resetBlock(data, hist, 0); err != nil {
				t.Fatal(err)
			}
		}
		before := runtime.NumGoroutine()
		par.mt = newMTFinder()
		par.mt.start(par.mf, par.mf.end-par.mf.hb+1)
		// (At most one more: the previous worker, which has closed
		// its done channel, may still be counted in before.)
		if n := runtime.NumGoroutine() - before; n > 1 || !par.mt.running {
			t.Errorf("bt%d: the parallel finder runs %d goroutines (running %v), want 1", hb, n, par.mt.running)
		}
		var a, b []match
		for step := 0; ref.mf.pos < len(data); step++ {
			if step%7 == 3 {
				n := min(1+step%37, len(data)-ref.mf.pos)
				ref.skip(n)
				par.skip(n)
				continue
			}
			pos := ref.mf.pos
			a = ref.find(a[:0])
			b = par.find(b[:0])
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("bt%d: position %d: parallel finder %v, single %v", hb, pos, b, a)
			}
		}
		if par.mf.pos != ref.mf.pos {
			t.Fatalf("bt%d: parallel finder at %d, single at %d", hb, par.mf.pos, ref.mf.pos)
		}
		par.mt.stop()
	}
}

// TestShortMatchHashCollision checks that a candidate of the 2-byte hash
// table whose two bytes differ from the current ones (another pair with
// the same 10-bit hash) is not reported as a match, by the single-threaded
// and the pipelined finder alike.
func TestShortMatchHashCollision(t *testing.T) {
	// Two different byte pairs with the same hash.
	var a, b [2]byte
	seen := map[uint32][2]byte{}
	for v := 0; v < 1<<16; v++ {
		p := [2]byte{byte(v), byte(v >> 8)}
		h := hash2of(p[:])
		if q, ok := seen[h]; ok {
			a, b = q, p
			break
		}
		seen[h] = p
	}
	if a == b {
		t.Fatal("no colliding pair")
	}
	// a's pair, then bytes that repeat nowhere, then b's pair: at b the
	// 2-byte table's candidate is a, which must not match.
	data := []byte{a[0], a[1], 0x10, 0x21, 0x32, 0x43, 0x54, 0x65, b[0], b[1], 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb}
	for _, threads := range []int{1, 2} {
		o := LevelOptions(5)
		o.DictSize, o.Threads = 1<<16, threads
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		e := newEncoder(&o)
		if err := e.resetBlock(data, 0, 0); err != nil {
			t.Fatal(err)
		}
		if threads == 2 {
			e.mt = newMTFinder()
			e.mt.start(e.mf, e.mf.end-e.mf.hb+1)
		}
		e.skip(8)
		if ms := e.find(nil); len(ms) != 0 {
			t.Errorf("threads=%d: matches %v at the colliding pair", threads, ms)
		}
		if e.mt != nil {
			e.mt.stop()
		}
	}
}

// TestTakeOverStopsAsOnePosition checks the worker's take-over loop of a
// long match going on: one call over a run goes exactly as far, and leaves
// the same tree links, matches and state, as calls of one position each
// while produce's condition holds, whether the run ends in the data, at
// the end of the chunk of candidates or when the batch has no room left.
func TestTakeOverStopsAsOnePosition(t *testing.T) {
	data := append(append(testData("mixed", 3000, 7), make([]byte, 5000)...), testData("mixed", 3000, 8)...)
	const start = 3100 // inside the zeros
	for _, tc := range []struct {
		name      string
		chunkLen  int // candidates available from start
		batchRoom int // matches the batch can take
	}{
		{"run-ends", 8000, 1 << 14},
		{"chunk-ends", 1000, 1 << 14},
		{"batch-full", 8000, 300 + 1 + 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want []match
			var gotSon, wantSon []uint32
			var gotState, wantState runState
			for _, one := range []bool{false, true} {
				mf := newMatchFinder(true, 4, 1<<16, 32, 32)
				mf.reset(data)
				for i := range mf.son {
					mf.son[i] = uint32(i)
				}
				// The newest candidate of each position of the zeros is the
				// position before it; after them, none.
				chunk := make([]uint32, tc.chunkLen)
				for i := range chunk {
					if p := start + i; p < 3000+5000 {
						chunk[i] = uint32(p) + mf.delta - 1
					}
				}
				r := runState{pos: start, cyc: (start + mf.delta) % mf.cyclic, limit: mf.nice}
				b := make([]match, 0, tc.batchRoom)
				last := len(data) - mf.hb + 1
				if !one {
					b = mf.takeOver(b, chunk, &r, 1, last)
				} else {
					for {
						b = mf.takeOver(b, chunk, &r, 1, r.pos+1)
						if r.done == mtBatchPosition || cap(b)-len(b) < mf.mtPerPos() || r.pos >= last || r.ci == len(chunk) {
							break
						}
						limit := min(mf.end-r.pos, mf.nice)
						if uint32(r.pos)+mf.delta-chunk[r.ci] != 1 || !(limit < r.limit || data[r.pos+limit-1] == data[r.pos+limit-2]) {
							break
						}
					}
				}
				if one {
					want, wantSon, wantState = b, mf.son, r
				} else {
					got, gotSon, gotState = b, mf.son, r
				}
			}
			if gotState != wantState {
				t.Fatalf("one call ends at %+v, one position at a time at %+v", gotState, wantState)
			}
			if gotState.pos == start+1 {
				t.Fatalf("the run was not taken over: state %+v", gotState)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("matches differ: %d against %d entries", len(got), len(want))
			}
			if !slices.Equal(gotSon, wantSon) {
				t.Fatal("tree links differ")
			}
		})
	}
}

// TestMTSkipHashesNoFurther checks that the pipelined finder's consumer,
// skipping positions that are not hashed ahead yet, enters them into the
// direct tables and hashes no position after them (shortSkip): their
// candidates are never read. The next search finds what the
// single-threaded finder finds (TestMTFinderMatchesSingle covers more).
func TestMTSkipHashesNoFurther(t *testing.T) {
	data := testData("mixed", 1<<18, 3)
	o := LevelOptions(5)
	o.DictSize = 1 << 17
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	ref := newEncoder(&o)
	par := newEncoder(&o)
	for _, e := range []*encoder{ref, par} {
		if err := e.resetBlock(data, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	par.mt = newMTFinder()
	par.mt.start(par.mf, par.mf.end-par.mf.hb+1)
	defer par.mt.stop()
	var a, b []match
	for i := 0; i < 1000; i++ {
		a = ref.find(a[:0])
		b = par.find(b[:0])
	}
	// Past the positions hashed ahead of the last search.
	const n = 5000
	ref.skip(n)
	par.skip(n)
	if want := uint32(par.mf.pos) + par.mf.delta; par.mf.hcur != want {
		t.Errorf("after a skip to position %d the direct tables hold positions up to %d, want %d",
			par.mf.pos, int(par.mf.hcur-par.mf.delta), int(want-par.mf.delta))
	}
	for i := 0; i < 1000; i++ {
		pos := ref.mf.pos
		a = ref.find(a[:0])
		b = par.find(b[:0])
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("position %d after the skip: parallel finder %v, single %v", pos, b, a)
		}
	}
}
