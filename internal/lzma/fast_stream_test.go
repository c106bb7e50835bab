package lzma

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"testing"
)

// encodeLZMA2Pieces compresses data with a Writer2 fed in pieces of
// random sizes (up to max), with the block stream on or off.
func encodeLZMA2Pieces(t *testing.T, data []byte, o WriterOptions, stream bool, maxPiece int, seed int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if !stream {
		w.stream = nil
	} else if w.stream == nil {
		t.Fatal("Writer2 does not stream its blocks")
	}
	rng := rand.New(rand.NewSource(seed))
	for p := data; len(p) > 0; {
		n := min(len(p), 1+rng.Intn(maxPiece))
		if k, err := w.Write(p[:n]); err != nil || k != n {
			t.Fatalf("Write: %d of %d bytes, %v", k, n, err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBlockStreamIdentical checks that Writer2 with one thread and a
// hash-chain finder, which codes its blocks in a sliding window with one
// finder (blockStream), writes the same stream as when it compresses
// each block in a buffer of its own after preloading the history, and
// as two threads; for block boundaries anywhere in the writes, blocks
// smaller and larger than a chunk, stored chunks, the lone-block
// encoder, tiny last blocks and rebased finder positions.
func TestBlockStreamIdentical(t *testing.T) {
	mixed := mixedInput(t, 5<<20+333)
	synthetic := testData("mixed", 3<<20+12345, 31)
	random := testData("random", 700000, 32)
	zero := testData("zero", 5<<20, 33)
	oldNormalize := normalizeAt
	defer func() { normalizeAt = oldNormalize }()
	cases := []streamCase{
		{name: "mixed-default", level: 1, data: mixed, block: 2 << 20},
		{name: "mixed-small-blocks", level: 1, data: mixed[:1<<20], block: 1 << 16, dict: 1 << 15},
		{name: "synthetic", level: 3, data: synthetic, block: 1 << 20, dict: 1 << 18},
		{name: "random-stored", level: 1, data: random, block: 1 << 18, dict: 1 << 16},
		{name: "zero-2MiB-chunks", level: 1, data: zero, block: 4 << 20, dict: 1 << 16},
		{name: "lone-small-block", level: 3, data: mixed[:100000]},
		{name: "exactly-one-block", level: 1, data: mixed[:1<<17], block: 1 << 17, dict: 1 << 16},
		{name: "tiny-last-block", level: 1, data: mixed[:1<<17+2], block: 1 << 17, dict: 1 << 16},
		{name: "hc4-optimal", level: 5, finder: "hc4", data: synthetic[:1<<20], block: 1 << 18, dict: 1 << 17},
		{name: "normalize", level: 1, data: mixed[:3<<20], block: 1 << 19, dict: 1 << 16, normalizeAt: 1 << 20},
		{name: "empty", level: 1, data: nil},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("mx%d/%s", c.level, c.name), func(t *testing.T) {
			o := c.options(oldNormalize)
			ref := encodeLZMA2Pieces(t, c.data, o, false, 1<<20, 1)
			got := encodeLZMA2Pieces(t, c.data, o, true, 300000, 2)
			if !bytes.Equal(got, ref) {
				t.Fatalf("streamed blocks: %d bytes, differ from buffered blocks (%d bytes)", len(got), len(ref))
			}
			o2 := o
			o2.Threads = 2
			if two := encodeLZMA2Pieces(t, c.data, o2, false, 1<<20, 3); !bytes.Equal(two, ref) {
				t.Fatalf("two threads: %d bytes, differ from one (%d bytes)", len(two), len(ref))
			}
			w, _ := NewWriter2(io.Discard, o)
			checkLZMA2(t, c.name, got, w.Props(), int64(len(c.data)), c.data)
		})
	}
}

// TestBlockStreamMemory checks that at the fast levels one thread holds
// a window of the dictionary, a chunk and some slack instead of a block
// buffer of DictSize+BlockSize (20 MiB at mx3; at mx1 a block buffer and
// its output would be a little smaller, newBlockStream), and that
// a reused Writer2 allocates no more per stream than with block buffers
// (TestWriter2Allocs).
func TestBlockStreamMemory(t *testing.T) {
	data := testData("mixed", 8<<20, 34)
	for _, level := range []int{1, 3} {
		o := LevelOptions(level)
		w, err := NewWriter2(io.Discard, o)
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			w.Reset(io.Discard)
			for p := data; len(p) > 0; {
				n := min(len(p), 1<<20)
				if _, err := w.Write(p[:n]); err != nil {
					t.Fatal(err)
				}
				p = p[n:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		run()
		want := streamWindow(&o)
		if w.stream == nil || w.blockBytes > want {
			t.Errorf("mx%d: %d bytes of block buffers, want a stream window of at most %d",
				level, w.blockBytes, want)
		}
		if level == 3 && int64(want) >= int64(o.DictSize)+o.BlockSize {
			t.Errorf("mx3: a stream window of %d bytes, not less than a block buffer (%d)", want, int64(o.DictSize)+o.BlockSize)
		}
		if allocs := testing.AllocsPerRun(1, run); allocs > 2 {
			t.Errorf("mx%d: %.0f allocations per reused stream", level, allocs)
		}
	}
}

// TestBlockStreamCancel cancels a streaming Writer2 (at its n-th poll of
// the context: before the window is first full, and while blocks are
// coded) and checks that Write or Close report it.
func TestBlockStreamCancel(t *testing.T) {
	data := testData("mixed", 3<<20, 35)
	o := LevelOptions(1)
	o.DictSize, o.BlockSize = 1<<16, 1<<20
	for _, tc := range []struct {
		cancelAt int
		coding   bool // the encoder has started when the context is cancelled
	}{{2, false}, {30, true}, {45, true}} {
		t.Run(fmt.Sprint("poll", tc.cancelAt), func(t *testing.T) {
			ctx := newPollCtx(tc.cancelAt)
			o.Context = ctx
			w, err := NewWriter2(io.Discard, o)
			if err != nil {
				t.Fatal(err)
			}
			coding := false
			ctx.onCancel = func() { coding = w.stream.e != nil }
			if w.stream == nil {
				t.Fatal("Writer2 does not stream its blocks")
			}
			for p := data; len(p) > 0 && err == nil; {
				n := min(len(p), 100000)
				_, err = w.Write(p[:n])
				p = p[n:]
			}
			if err == nil {
				err = w.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if coding != tc.coding {
				t.Errorf("encoder running at the cancellation: %v, want %v", coding, tc.coding)
			}
		})
	}
}

// TestBlockStreamRandom compares streamed and buffered blocks for random
// dictionary and block sizes, inputs and write sizes (fixed seeds), so
// that block ends, chunk ends and window slides meet in many ways.
func TestBlockStreamRandom(t *testing.T) {
	kinds := []string{"mixed", "text", "repeat", "random", "zero"}
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		level := []int{1, 3}[rng.Intn(2)]
		o := LevelOptions(level)
		o.DictSize = 1 << (12 + rng.Intn(7))
		o.BlockSize = int64(1<<16 + rng.Intn(1<<18))
		kind := kinds[rng.Intn(len(kinds))]
		data := testData(kind, 1+rng.Intn(1<<20), seed)
		name := fmt.Sprintf("seed%d/mx%d/%s/%d/dict%d/block%d", seed, level, kind, len(data), o.DictSize, o.BlockSize)
		ref := encodeLZMA2Pieces(t, data, o, false, 1<<20, seed)
		got := encodeLZMA2Pieces(t, data, o, true, 1+rng.Intn(200000), seed+100)
		if !bytes.Equal(got, ref) {
			t.Fatalf("%s: streamed blocks: %d bytes, differ from buffered blocks (%d bytes)", name, len(got), len(ref))
		}
	}
}

// TestBlockStreamReuse writes streams of different sizes (below the
// dictionary, several blocks, empty) with one streaming Writer2 and
// checks each against a fresh Writer2's.
func TestBlockStreamReuse(t *testing.T) {
	o := LevelOptions(3)
	o.DictSize, o.BlockSize = 1<<16, 1<<17
	data := testData("mixed", 600000, 36)
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{1000, 600000, 0, 70000, 600000, 1} {
		want := encodeLZMA2Pieces(t, data[:n], o, true, 1<<20, int64(i))
		buf.Reset()
		w.Reset(&buf)
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("stream %d (%d bytes): %d bytes, differ from a fresh writer's %d", i, n, buf.Len(), len(want))
		}
	}
}

// streamCase is an input and the writer options of a test that compares a
// streamed encoding with the block-buffered one.
type streamCase struct {
	name        string
	level       int
	finder      string // match finder, "" for the level's
	data        []byte
	block       int64  // block size, 0 for the level's
	dict        uint32 // dictionary size, 0 for the level's
	normalizeAt uint32 // finder position rebase point, 0 for normal
}

// options returns the case's writer options and sets normalizeAt for it
// (normal: the value to restore when the case sets none).
func (c streamCase) options(normal uint32) WriterOptions {
	o := LevelOptions(c.level)
	if c.finder != "" {
		o.MatchFinder = c.finder
	}
	if c.block != 0 {
		o.BlockSize = c.block
	}
	if c.dict != 0 {
		o.DictSize = c.dict
	}
	normalizeAt = normal
	if c.normalizeAt != 0 {
		normalizeAt = c.normalizeAt
	}
	return o
}
