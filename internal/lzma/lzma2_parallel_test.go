package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// multiSegment returns an LZMA2 stream of data whose dictionary is reset
// every seg bytes (as 7-Zip's multithreaded encoder does at its blocks),
// made by joining separately compressed streams without their end bytes,
// and its property byte.
func multiSegment(tb testing.TB, data []byte, seg int, level int) ([]byte, byte) {
	tb.Helper()
	opts := LevelOptions(level)
	opts.DictSize = 1 << 16
	opts.BlockSize = 1 << 20
	var out bytes.Buffer
	var prop byte
	for i := 0; i < len(data) || i == 0; i += seg {
		var b bytes.Buffer
		w, err := NewWriter2(&b, opts)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(data[i:min(i+seg, len(data))]); err != nil {
			tb.Fatal(err)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		prop = w.Props()
		s := b.Bytes()
		out.Write(s[:len(s)-1]) // without the end byte
	}
	out.WriteByte(0)
	return out.Bytes(), prop
}

// decodeAll decodes stream with threads (1: sequential) through Read with
// a small buffer, or WriteTo, and returns the output, whether segments
// were decoded in parallel and the error (nil at the end).
func decodeAll(tb testing.TB, stream []byte, prop byte, size int64, threads int, writeTo bool) ([]byte, bool, error) {
	tb.Helper()
	z, err := NewReader2(bytes.NewReader(stream), prop, size, 1<<24)
	if err != nil {
		return nil, false, err
	}
	z.SetThreads(threads)
	var out bytes.Buffer
	if writeTo {
		_, err = z.WriteTo(&out)
	} else {
		buf := make([]byte, 3000)
		for {
			n, rerr := z.Read(buf)
			out.Write(buf[:n])
			if rerr != nil {
				if rerr != io.EOF {
					err = rerr
				}
				break
			}
		}
	}
	par := z.par != nil && z.par.segments > 0
	z.SetThreads(1) // waits for the segments still decoding
	return out.Bytes(), par, err
}

func TestParallel2MatchesSequential(t *testing.T) {
	for _, tc := range []struct {
		kind          string
		n, seg, level int
		wantPar       bool
	}{
		{"text", 512 << 10, 100 << 10, 1, true},
		{"mixed", 900 << 10, 64 << 10, 5, true},
		{"random", 300 << 10, 70 << 10, 1, true}, // uncompressed chunks
		{"zero", 1 << 20, 256 << 10, 1, true},
		{"text", 200 << 10, 1 << 20, 1, false}, // one segment: sequential
		{"text", 0, 1 << 20, 1, false},
	} {
		data := testData(tc.kind, tc.n, 7)
		stream, prop := multiSegment(t, data, tc.seg, tc.level)
		for _, size := range []int64{int64(len(data)), -1} {
			for _, threads := range []int{2, 3} {
				for _, wt := range []bool{false, true} {
					name := fmt.Sprintf("%s/%d/seg%d/size%d/t%d/writeTo=%v", tc.kind, tc.n, tc.seg, size, threads, wt)
					got, par, err := decodeAll(t, stream, prop, size, threads, wt)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !bytes.Equal(got, data) {
						t.Fatalf("%s: output differs (%d bytes, want %d)", name, len(got), len(data))
					}
					if par != tc.wantPar {
						t.Errorf("%s: segments decoded in parallel = %v, want %v", name, par, tc.wantPar)
					}
				}
			}
		}
	}
}

// TestParallel2BuffersReused: the output buffers of the segments returned
// are reused for later segments, at most threads+1 of them allocated over
// a stream of many segments, and threads when the segments queued hold
// spareHeld bytes or more.
func TestParallel2BuffersReused(t *testing.T) {
	defer func(n int) { spareHeld = n }(spareHeld)
	data := testData("text", 1<<20, 4)
	stream, prop := multiSegment(t, data, 64<<10, 1)
	for _, tc := range []struct {
		threads, spareHeld, maxFresh int
	}{
		{2, 16 << 20, 3},
		{3, 16 << 20, 4},
		{2, 100 << 10, 2},
	} {
		spareHeld = tc.spareHeld
		for _, size := range []int64{int64(len(data)), -1} {
			z, err := NewReader2(bytes.NewReader(stream), prop, size, 1<<24)
			if err != nil {
				t.Fatal(err)
			}
			z.SetThreads(tc.threads)
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%+v size %d: %d bytes, %v", tc, size, len(got), err)
			}
			// Of unknown size, the last segment, up to the end byte, is
			// decoded sequentially.
			want := 16
			if size < 0 {
				want = 15
			}
			if z.par.segments != want {
				t.Errorf("%+v size %d: %d segments decoded in parallel, want %d", tc, size, z.par.segments, want)
			}
			if z.par.fresh < 1 || z.par.fresh > tc.maxFresh {
				t.Errorf("%+v size %d: %d output buffers allocated for %d segments, want 1 to %d", tc, size, z.par.fresh, want, tc.maxFresh)
			}
			z.SetThreads(1)
		}
	}
}

// TestParallel2LargeSegment: from a segment above maxSegment on, the
// stream is decoded sequentially, the segments before it in parallel.
func TestParallel2LargeSegment(t *testing.T) {
	defer func(n int) { maxSegment = n }(maxSegment)
	maxSegment = 200 << 10
	data := testData("text", 800<<10, 2)
	small, prop := multiSegment(t, data[:300<<10], 100<<10, 1)
	large, _ := multiSegment(t, data[300<<10:], 500<<10, 1)
	stream := append(small[:len(small)-1], large...)
	for _, size := range []int64{int64(len(data)), -1} {
		z, err := NewReader2(bytes.NewReader(stream), prop, size, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		z.SetThreads(2)
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: %d bytes, %v", size, len(got), err)
		}
		if z.par.segments != 3 || z.par.on {
			t.Errorf("size %d: %d segments in parallel (want 3), parallel at the end %v", size, z.par.segments, z.par.on)
		}
	}
}

// TestParallel2DamageAsSequential: damaged, truncated or mis-sized
// streams give the parallel reader the sequential reader's output and
// error, offset included.
func TestParallel2DamageAsSequential(t *testing.T) {
	data := testData("mixed", 600<<10, 3)
	stream, prop := multiSegment(t, data, 64<<10, 1)
	n := int64(len(data))
	flip := func(at int) []byte { return flipped(stream, at) }
	checkAsSequential(t, prop, []damageCase{
		{"flip-middle", flip(len(stream) / 2), n},
		{"flip-third", flip(len(stream) / 3), -1},
		{"flip-last", flip(len(stream) - 40), n},
		{"truncated", stream[:len(stream)*2/3], n},
		{"truncated-unknown-size", stream[:len(stream)*2/3], -1},
		{"no-end-byte", stream[:len(stream)-1], -1},
		{"size-short", stream, n - 100_000},
		{"size-long", stream, n + 5},
		{"trailing-garbage", append(bytes.Clone(stream[:len(stream)-1]), 0x07, 0), -1},
	})
}

// damageCase is a damaged or cut LZMA2 stream and the size given to the
// reader (-1: unknown).
type damageCase struct {
	name   string
	stream []byte
	size   int64
}

// flipped returns a copy of stream with the byte at at changed.
func flipped(stream []byte, at int) []byte {
	b := bytes.Clone(stream)
	b[at] ^= 0x55
	return b
}

// checkAsSequential decodes each case with two threads, through Read
// and WriteTo, and wants the sequential reader's output and error, the
// offset of a corrupt-input error included.
func checkAsSequential(t *testing.T, prop byte, cases []damageCase) {
	t.Helper()
	for _, tc := range cases {
		wantOut, _, wantErr := decodeAll(t, tc.stream, prop, tc.size, 1, false)
		for _, wt := range []bool{false, true} {
			got, _, err := decodeAll(t, tc.stream, prop, tc.size, 2, wt)
			if !bytes.Equal(got, wantOut) {
				t.Errorf("%s writeTo=%v: %d bytes out, sequential %d", tc.name, wt, len(got), len(wantOut))
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s writeTo=%v: error %v, sequential %v", tc.name, wt, err, wantErr)
			}
			var ce, wce *CorruptInputError
			if errors.As(wantErr, &wce) && (!errors.As(err, &ce) || ce.Offset != wce.Offset) {
				t.Errorf("%s writeTo=%v: error %v, want offset %d", tc.name, wt, err, wce.Offset)
			}
		}
	}
}

// TestParallel2NoLeak: a reader abandoned after a few bytes and then
// Reset leaves no goroutine behind.
func TestParallel2NoLeak(t *testing.T) {
	data := testData("text", 1<<20, 5)
	stream, prop := multiSegment(t, data, 64<<10, 1)
	before := runtime.NumGoroutine()
	z, err := NewReader2(bytes.NewReader(stream), prop, -1, 1<<24)
	if err != nil {
		t.Fatal(err)
	}
	z.SetThreads(2)
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(z, buf); err != nil {
		t.Fatal(err)
	}
	if len(z.par.queue) < 2 {
		t.Fatalf("%d segments in flight, want the read-ahead", len(z.par.queue))
	}
	if err := z.Reset(bytes.NewReader(stream), prop, -1); err != nil {
		t.Fatal(err)
	}
	testenv.CheckGoroutines(t, before)
	// The reset reader decodes the stream again in full.
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after Reset: %d bytes, %v", len(got), err)
	}
	z.SetThreads(1)
	testenv.CheckGoroutines(t, before)
}

func FuzzParallel2(f *testing.F) {
	data := testData("mixed", 24<<10, 9)
	stream, prop := multiSegment(f, data, 4<<10, 1)
	f.Add(stream, uint32(0), byte(0), int64(len(data)))
	f.Add(stream, uint32(len(stream)/2), byte(0x40), int64(-1))
	f.Add(stream[:len(stream)/2], uint32(3), byte(0), int64(len(data)))
	f.Fuzz(func(t *testing.T, s []byte, at uint32, x byte, size int64) {
		if len(s) > 0 {
			s = bytes.Clone(s)
			s[int(at)%len(s)] ^= x
		}
		if size < -1 || size > 4<<20 {
			size = -1
		}
		wantOut, _, wantErr := decodeAll(t, s, prop, size, 1, false)
		// With the default firstWalk, and with one below the first
		// segment: decoded sequentially up to the next reset.
		defer func(n int) { firstWalk = n }(firstWalk)
		for _, fw := range []int{firstWalk, 1 << 10} {
			firstWalk = fw
			got, _, err := decodeAll(t, s, prop, size, 2, false)
			if !bytes.Equal(got, wantOut) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("parallel (firstWalk %d): %d bytes, %v; sequential: %d bytes, %v", fw, len(got), err, len(wantOut), wantErr)
			}
		}
	})
}

// BenchmarkParallel2 decodes 8 MiB of text in segments of 1 MiB (as 7zz
// -mx1 -mmt2 writes) with one and two threads; cpu-ns/op against ns/op
// gives the parallel path's overhead and wall/CPU.
func BenchmarkParallel2(b *testing.B) {
	data := testData("text", 8<<20, 1)
	stream, prop := multiSegment(b, data, 1<<20, 1)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			z, err := NewReader2(bytes.NewReader(stream), prop, int64(len(data)), 0)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			cpu := testenv.StartCPU()
			for b.Loop() {
				if err := z.Reset(bytes.NewReader(stream), prop, int64(len(data))); err != nil {
					b.Fatal(err)
				}
				z.SetThreads(threads)
				if _, err := z.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			cpu.Report(b, int64(len(data)))
		})
	}
}

// TestParallel2FirstSegmentBounded: a first segment above firstWalk is
// decoded sequentially without being read ahead (its first Read consumes
// little more than firstWalk bytes of input, not the whole segment), the
// walk resumes at the next dictionary reset, and damage anywhere gives the
// sequential reader's output and error.
func TestParallel2FirstSegmentBounded(t *testing.T) {
	defer func(n int) { firstWalk = n }(firstWalk)
	firstWalk = 128 << 10
	data := testData("random", 1<<20+300<<10, 6) // stored chunks: packed ≈ unpacked
	large, prop := multiSegment(t, data[:1<<20], 1<<20, 1)
	small, _ := multiSegment(t, data[1<<20:], 64<<10, 1)
	stream := append(large[:len(large)-1], small...)
	n := int64(len(data))
	for _, size := range []int64{n, -1} {
		cr := &countingReader{r: bytes.NewReader(stream)}
		z, err := NewReader2(cr, prop, size, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		z.SetThreads(2)
		first := make([]byte, 1)
		if _, err := io.ReadFull(z, first); err != nil {
			t.Fatal(err)
		}
		if limit := int64(firstWalk + 2*inBufSize); cr.n > limit {
			t.Errorf("size %d: first byte read %d bytes of input, want at most %d", size, cr.n, limit)
		}
		rest, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(append(first, rest...), data) {
			t.Fatalf("size %d: %d bytes, %v", size, 1+len(rest), err)
		}
		// 5 segments after the first; of unknown size the last one,
		// up to the end byte, is decoded sequentially.
		want := 5
		if size < 0 {
			want = 4
		}
		if z.par.segments != want {
			t.Errorf("size %d: %d segments decoded in parallel, want %d", size, z.par.segments, want)
		}
		z.SetThreads(1)
	}
	flip := func(at int) []byte { return flipped(stream, at) }
	checkAsSequential(t, prop, []damageCase{
		{"flip-first", flip(len(large) / 2), n},
		{"flip-later", flip(len(large) + 100<<10), -1},
		{"truncated-first", stream[:len(large)/2], n},
		{"truncated-later", stream[:len(large)+100<<10], -1},
		{"size-short", stream, n - 200<<10},
		{"no-end-byte", stream[:len(stream)-1], -1},
	})
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	m, err := c.r.Read(b)
	c.n += int64(m)
	return m, err
}

// TestSegmented: Segmented finds a second dictionary reset within
// maxSegment unpacked bytes from chunk headers alone, as the walk would.
func TestSegmented(t *testing.T) {
	defer func(n int) { maxSegment = n }(maxSegment)
	maxSegment = 1 << 20
	text := bytes.Repeat([]byte("segmented chunk headers, "), 20000) // 500,000 bytes
	seg2, _ := multiSegment(t, text, 200_000, 1)                     // LZMA chunks, resets every 200,000 bytes
	seg1, _ := multiSegment(t, text, len(text), 1)
	big, _ := multiSegment(t, bytes.Repeat(text, 3), 1_400_000, 1) // first segment above maxSegment
	random := testData("random", 300<<10, 1)
	stored, _ := multiSegment(t, random, 100<<10, 1) // uncompressed chunks
	for _, tc := range []struct {
		name   string
		stream []byte
		want   bool
	}{
		{"two-segments", seg2, true},
		{"one-segment", seg1, false},
		{"first-above-maxSegment", big, false},
		{"stored-segments", stored, true},
		{"truncated-before-reset", seg2[:len(seg2)/4], false},
		{"no-reset-at-start", append([]byte{2, 0, 0, 'x'}, seg2...), false},
		{"bad-control", append([]byte{1, 0, 0, 'x', 3}, seg2...), false},
		{"empty", nil, false},
	} {
		// Bytes around the stream: the offsets are those of a 7z pack stream.
		file := append(append([]byte("head"), tc.stream...), 0xE0, 0xE0)
		if got := Segmented(bytes.NewReader(file), 4, int64(len(tc.stream))); got != tc.want {
			t.Errorf("%s: Segmented %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestParallel2StoredSegments: segments of uncompressed chunks (random
// data) are copied by the walk into one reused buffer, not decoded by
// goroutines into threads+1 buffers; mixed with LZMA segments, damage and
// cuts give the sequential reader's output and error.
func TestParallel2StoredSegments(t *testing.T) {
	data := testData("random", 1<<20, 7)
	stream, prop := multiSegment(t, data, 64<<10, 1)
	for _, size := range []int64{int64(len(data)), -1} {
		for _, threads := range []int{2, 3} {
			z, err := NewReader2(bytes.NewReader(stream), prop, size, 1<<24)
			if err != nil {
				t.Fatal(err)
			}
			z.SetThreads(threads)
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("size %d: %d bytes, %v", size, len(got), err)
			}
			want := 16 // of unknown size the last one is decoded sequentially
			if size < 0 {
				want = 15
			}
			if z.par.segments != want || z.par.fresh != 1 {
				t.Errorf("size %d threads %d: %d segments walked (want %d), %d buffers allocated (want 1)", size, threads, z.par.segments, want, z.par.fresh)
			}
			z.SetThreads(1)
		}
	}
	// Text and random segments in turn: a damaged LZMA segment hands the
	// stored ones queued behind it to the sequential decoder.
	var mixed []byte
	for i := range 10 {
		kind := "text"
		if i%3 != 0 {
			kind = "random"
		}
		mixed = append(mixed, testData(kind, 64<<10, int64(i))...)
	}
	stream, prop = multiSegment(t, mixed, 64<<10, 1)
	var starts []int // the segments' first chunk headers
	for pos := 0; stream[pos] != 0; {
		c := stream[pos]
		if c == 1 || c >= 0xE0 {
			starts = append(starts, pos)
		}
		if c < 0x80 {
			pos += 3 + (int(stream[pos+1])<<8 | int(stream[pos+2])) + 1
		} else {
			pos += 6 - btoi(c < 0xC0) + (int(stream[pos+3])<<8 | int(stream[pos+4])) + 1
		}
	}
	if len(starts) != 10 || stream[starts[3]] < 0x80 || stream[starts[4]] != 1 {
		t.Fatalf("segments at %v, controls %x %x", starts, stream[starts[3]], stream[starts[4]])
	}
	n := int64(len(mixed))
	flip := func(at int) []byte { return flipped(stream, at) }
	checkAsSequential(t, prop, []damageCase{
		{"good", stream, n},
		{"flip-lzma-before-stored", flip(starts[3] + 100), n},
		{"flip-lzma-before-stored-unknown-size", flip(starts[3] + 100), -1},
		{"flip-stored", flip(starts[4] + 1000), n},
		{"truncated-in-stored", stream[:starts[5]+5000], n},
		{"truncated-stored-header", stream[:starts[5]+2], -1},
		{"size-short-in-stored", stream, int64(5<<16 + 300)},
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
