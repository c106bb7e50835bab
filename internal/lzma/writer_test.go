package lzma

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	ulzma "github.com/ulikunitz/xz/lzma"
)

func encodeLZMA(t testing.TB, data []byte, o WriterOptions) ([]byte, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func encodeLZMA2(t testing.TB, data []byte, o WriterOptions) ([]byte, byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func decodeOurs(t testing.TB, comp, props []byte, size int64) []byte {
	t.Helper()
	z, err := NewReader(bytes.NewReader(comp), props, size, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out.Bytes()
}

func TestWriterRoundTrip(t *testing.T) {
	for _, level := range []int{1, 3, 5, 9} {
		for _, kind := range dataKinds {
			for _, n := range []int{0, 1, 2, 3, 17, 1000, 100000} {
				data := testData(kind, n, int64(n))
				o := LevelOptions(level)
				for _, eos := range []bool{false, true} {
					o.EOSMarker = eos
					name := fmt.Sprintf("mx%d/%s/%d/eos=%v", level, kind, n, eos)
					comp, props := encodeLZMA(t, data, o)
					size := int64(len(data))
					if eos {
						size = -1
					}
					got := decodeOurs(t, comp, props, size)
					if !bytes.Equal(got, data) {
						t.Fatalf("%s: round trip differs", name)
					}
					if n == 0 && !eos {
						continue // ulikunitz insists on reading past an empty stream
					}
					// ulikunitz decodes it (with the .lzma header).
					r, err := ulzma.NewReader(bytes.NewReader(wrapLZMAAlone(comp, props, map[bool]int64{false: int64(n), true: -1}[eos])))
					if err != nil {
						t.Fatalf("%s: ulikunitz: %v", name, err)
					}
					got, err = io.ReadAll(r)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("%s: ulikunitz decode: %v", name, err)
					}
				}
			}
		}
	}
}

func TestWriter2RoundTrip(t *testing.T) {
	for _, level := range []int{1, 5} {
		for _, kind := range dataKinds {
			for _, n := range []int{0, 1, 1000, 200000} {
				data := testData(kind, n, int64(n))
				o := LevelOptions(level)
				comp, prop := encodeLZMA2(t, data, o)
				name := fmt.Sprintf("mx%d/%s/%d", level, kind, n)
				z, err := NewReader2(bytes.NewReader(comp), prop, int64(len(data)), 0)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(z)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: decode: %v", name, err)
				}
				r, err := ulzma.Reader2Config{DictCap: 1 << 20}.NewReader2(bytes.NewReader(comp))
				if err != nil {
					t.Fatal(err)
				}
				got, err = io.ReadAll(r)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: ulikunitz decode: %v", name, err)
				}
			}
		}
	}
}

// TestWriter2Allocs checks that a reused Writer2 allocates nothing per
// block with one thread, and a bounded number per block with two (the
// job, its goroutine and the finder's channels), independent of the data
// size.
func TestWriter2Allocs(t *testing.T) {
	data := testData("mixed", 1<<20, 9)
	for _, threads := range []int{1, 2} {
		o := LevelOptions(5)
		o.DictSize, o.BlockSize, o.Threads = 1<<16, 1<<17, threads
		w, err := NewWriter2(io.Discard, o)
		if err != nil {
			t.Fatal(err)
		}
		run := func(p []byte) func() {
			return func() {
				w.Reset(io.Discard)
				if _, err := w.Write(p); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		run(data)() // warm up: encoders and buffers
		small := testing.AllocsPerRun(3, run(data[:len(data)/4]))
		big := testing.AllocsPerRun(3, run(data))
		perBlock := (big - small) / 6 // 8 blocks against 2
		switch {
		case threads == 1 && big > 2:
			t.Errorf("threads=1: %.0f allocations per stream of 8 blocks (%.0f for 2)", big, small)
		case threads == 2 && perBlock > 32:
			t.Errorf("threads=2: %.1f allocations per block", perBlock)
		}
		t.Logf("threads=%d: %.0f allocations for 2 blocks, %.0f for 8", threads, small, big)
	}
}

// TestDictSizeLimits checks the exported limits against 7-Zip's (1.5 GiB
// on 64-bit) and that the encoders accept exactly that range.
func TestDictSizeLimits(t *testing.T) {
	if MaxDictSize != 1536<<20 || MinDictSize != 4096 {
		t.Fatalf("MaxDictSize %d, MinDictSize %d: want 7-Zip's 1536 MiB and 4 KiB", MaxDictSize, MinDictSize)
	}
	for _, tc := range []struct {
		dict uint32
		ok   bool
	}{{MinDictSize - 1, false}, {MinDictSize, true}, {MaxDictSize, true}, {MaxDictSize + 1, false}, {1<<32 - 1, false}} {
		o := LevelOptions(5)
		o.DictSize = tc.dict
		_, err1 := NewWriter(io.Discard, o)
		_, err2 := NewWriter2(io.Discard, o)
		if (err1 == nil) != tc.ok || (err2 == nil) != tc.ok {
			t.Errorf("dictionary %d: errors %v, %v; want accepted=%v", tc.dict, err1, err2, tc.ok)
		}
	}
}

func TestParseMatchFinder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want MatchFinderKind
		bt   bool
		hash int
	}{{"hc4", HC4, false, 4}, {"HC5", HC5, false, 5}, {"bt4", BT4, true, 4}, {"Bt5", BT5, true, 5}, {"bt", 0, false, 0}, {"bt9", 0, false, 0}, {"", 0, false, 0}} {
		k, err := ParseMatchFinder(tc.in)
		if k != tc.want || (err == nil) != (tc.want != 0) {
			t.Errorf("ParseMatchFinder(%q) = %v, %v; want %v", tc.in, k, err, tc.want)
			continue
		}
		if err == nil && (k.binaryTree() != tc.bt || k.hashBytes() != tc.hash || !strings.EqualFold(k.String(), tc.in)) {
			t.Errorf("%q: binaryTree %v, hashBytes %d, String %q", tc.in, k.binaryTree(), k.hashBytes(), k)
		}
	}
	o := LevelOptions(5)
	o.MatchFinder = "BT5"
	if err := o.normalize(); err != nil || o.finder != BT5 || o.MatchFinder != "bt5" {
		t.Errorf("normalize: %v, finder %v, name %q", err, o.finder, o.MatchFinder)
	}
}

// TestWriter2SlotFreedByAnyBlock checks that Writer2 starts a block as soon
// as any running block is done, not only the oldest: block 0 is held until
// block 2 has started, which with two threads needs block 1's slot
// (issue 14: with 8 MiB blocks of uneven cost, waiting for the oldest left
// a thread idle). The output is still written in order and is the same as
// one thread's. The wait for block 2 has a deadline only so that the old
// behaviour fails instead of hanging.
func TestWriter2SlotFreedByAnyBlock(t *testing.T) {
	const dict, block = 1 << 15, 1 << 16
	data := testData("mixed", 4*block+1000, 31)
	for _, level := range []int{1, 5} {
		o := LevelOptions(level)
		o.DictSize, o.BlockSize = dict, block
		o.Threads = 1
		want, _ := encodeLZMA2(t, data, o)
		o.Threads = 2
		if level >= 5 {
			o.Threads = 4 // binary-tree blocks take two threads each
		}
		third := make(chan struct{})
		var released bool
		blockStarted = func(spos int64) {
			switch spos {
			case 0:
				select {
				case <-third:
					released = true
				case <-time.After(20 * time.Second):
				}
			case 2 * block:
				close(third)
			}
		}
		got, _ := encodeLZMA2(t, data, o)
		blockStarted = nil
		if !released {
			t.Errorf("mx%d: block 2 did not start while block 0 ran", level)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("mx%d: output differs from one thread's", level)
		}
	}
}

// TestWriter2OutBufferRoom checks that a block's output buffer is made
// once with room for the block's largest output, instead of growing by
// doubling as the chunks are appended, which at mx1 -mmt2 left 8 to 13
// MiB of garbage in the peak RSS (issue 14). Incompressible blocks need the
// most room: their chunks are stored.
func TestWriter2OutBufferRoom(t *testing.T) {
	const dict, block = 1 << 15, 1 << 18
	for _, tc := range []struct {
		name    string
		level   int
		threads int
		data    []byte
	}{
		{"mx1-threads2-mixed", 1, 2, testData("mixed", 5*block, 32)},
		{"mx1-threads2-random", 1, 2, testData("random", 5*block, 33)},
		{"mx5-threads4-mixed", 5, 4, testData("mixed", 3*block, 34)}, // two blocks at a time, on two threads each
	} {
		o := LevelOptions(tc.level)
		o.DictSize, o.BlockSize, o.Threads = dict, block, tc.threads
		w, err := NewWriter2(io.Discard, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(tc.data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if len(w.spareOut) == 0 {
			t.Fatalf("%s: no output buffers kept", tc.name)
		}
		want := block + block>>10 + 64
		for _, b := range w.spareOut {
			if cap(b) != want {
				t.Errorf("%s: output buffer of capacity %d, want %d (made once)", tc.name, cap(b), want)
			}
		}
	}
}

// TestWriter2ReserveSteps checks the capacities a block buffer grows
// through as the 7z writer fills it 256 KiB at a time: doubling below 1
// MiB, then the whole DictSize+BlockSize at once. A step of 1 MiB was
// backed by a 2 MiB huge page that stayed resident as garbage.
func TestWriter2ReserveSteps(t *testing.T) {
	for _, level := range []int{1, 3} {
		o := LevelOptions(level)
		o.Threads = 2
		z, err := NewWriter2(io.Discard, o)
		if err != nil {
			t.Fatal(err)
		}
		full := int(o.DictSize) + int(o.BlockSize)
		var b []byte
		var caps []int
		for len(b) < full {
			n := min(256<<10, full-len(b))
			if nb := z.reserve(b, n); cap(nb) != cap(b) {
				caps = append(caps, cap(nb))
				b = nb
			}
			b = b[:len(b)+n]
		}
		for _, c := range caps {
			if c >= 1<<20 && c != full {
				t.Errorf("mx%d: block buffer grew through %d bytes (steps %v), want below 1 MiB or %d", level, c, caps, full)
			}
		}
		if caps[len(caps)-1] != full {
			t.Errorf("mx%d: last step %d, want %d", level, caps[len(caps)-1], full)
		}
	}
}

// TestLevelDictSizes checks the dictionary and block sizes of the levels
// against those of 7-Zip 23 and later on 64-bit systems
// (Get_Lzma_DicSize, and blocks of 4 dictionaries between 1 MiB and 256
// MiB, here at least 2 MiB).
func TestLevelDictSizes(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		level int
		dict  uint32
		block int64
	}{
		{0, 256 << 10, 2 * mib},
		{1, 256 << 10, 2 * mib},
		{2, 1 * mib, 4 * mib},
		{3, 4 * mib, 16 * mib},
		{4, 16 * mib, 64 * mib},
		{5, 32 * mib, 128 * mib},
		{6, 64 * mib, 256 * mib},
		{7, 128 * mib, 256 * mib},
		{8, 256 * mib, 256 * mib},
		{9, 256 * mib, 256 * mib},
	} {
		o := LevelOptions(tc.level)
		if o.DictSize != tc.dict || o.BlockSize != tc.block {
			t.Errorf("level %d: dictionary %d, block %d; want %d, %d", tc.level, o.DictSize, o.BlockSize, tc.dict, tc.block)
		}
	}
}
