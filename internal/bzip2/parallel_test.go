package bzip2

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// decodeThreads decodes comp with the given threads in reads of odd
// sizes (at most limit bytes), returning the output and the error (nil at
// the end).
func decodeThreads(comp []byte, threads, limit int) ([]byte, error) {
	z := NewReaderThreads(bytes.NewReader(comp), threads)
	var out []byte
	buf := make([]byte, 1<<17)
	for i := 0; len(out) < limit; i++ {
		n, err := z.Read(buf[:min(1+i*7919%len(buf), limit-len(out))])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// sameAsSequential requires that parallel decoding of comp gives the
// bytes and the error (its text, so also the offset) of sequential
// decoding, and returns the sequential result.
func sameAsSequential(t testing.TB, comp []byte, threads ...int) ([]byte, error) {
	t.Helper()
	const limit = 64 << 20
	want, werr := decodeThreads(comp, 1, limit)
	for _, n := range threads {
		got, err := decodeThreads(comp, n, limit)
		if !bytes.Equal(got, want) {
			t.Fatalf("threads %d: %d bytes, sequential %d (or different ones)", n, len(got), len(want))
		}
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("threads %d: error %v, sequential %v", n, err, werr)
		}
	}
	return want, werr
}

// multiBlock returns the inputs of the parallel tests: several blocks of
// every level, several streams (one per block as pbzip2 writes them, and
// of different levels), and the output of our encoder.
func multiBlock(t *testing.T) []namedInput {
	text := textBytes(1000000, 31)
	mixed := append(append(textBytes(400000, 32), randomBytes(300000, 33)...), runBytes(500000, 34)...)
	var pb []byte
	for i := 0; i < len(text); i += 100000 {
		pb = append(pb, compressWithTool(t, text[i:min(i+100000, len(text))], 1)...)
	}
	return []namedInput{
		{"text-level1", compressWithTool(t, text, 1)},
		{"mixed-level3", compressWithTool(t, mixed, 3)},
		{"text-level9", compressWithTool(t, text, 9)},
		{"one-stream-per-block", pb},
		{"levels-1-9-2", append(append(compressWithTool(t, mixed, 1), compressWithTool(t, text[:300000], 9)...), compressWithTool(t, mixed[:250000], 2)...)},
		{"ours-threads2", compressOurs(t, mixed, 1, 2, 0)},
		{"tiny", compressWithTool(t, []byte("x"), 9)},
		{"empty", compressWithTool(t, nil, 9)},
	}
}

// TestParallelSameAsSequential: on generated multi-block and multi-stream
// inputs and on the corpus's .bz2 files, decoding with 2, 3 and 8
// threads gives what one thread gives.
func TestParallelSameAsSequential(t *testing.T) {
	for _, in := range multiBlock(t) {
		t.Run(in.name, func(t *testing.T) {
			if _, err := sameAsSequential(t, in.data, 2, 5); err != nil {
				t.Fatal(err)
			}
		})
	}
	root := testenv.MoreCorpusRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "files", "*", "*.bz2"))
	if len(files) == 0 {
		t.Fatal("no .bz2 in the corpus")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { sameAsSequential(t, data, 2, 3) })
	}
}

// TestParallelDamage: damage in the middle of a multi-block input (a
// flipped bit in a block's data, in a stored block CRC, in a block magic,
// in the stream CRC, a cut, data after the end) gives the bytes before
// it and the same error, at the same offset, as sequential decoding.
func TestParallelDamage(t *testing.T) {
	text := textBytes(1200000, 41)
	two := append(compressWithTool(t, text, 1), compressWithTool(t, text[:200000], 2)...)
	first := -1 // the first stream's end
	var magics []int
	for off := 0; first < 0; off++ {
		switch readBitsAt(two, off, 48) {
		case blockMagic:
			magics = append(magics, off)
		case endMagic:
			first = off
		}
	}
	if len(magics) < 4 {
		t.Fatalf("%d blocks", len(magics))
	}
	mid := magics[len(magics)/2]
	flip := func(bit int) []byte {
		b := bytes.Clone(two)
		b[bit/8] ^= 0x80 >> (bit % 8)
		return b
	}
	cases := map[string][]byte{
		"data":         flip(mid + 48 + 32 + 5000),
		"data-late":    flip(magics[len(magics)/2+1] - 300),
		"block-crc":    flip(mid + 48 + 7),
		"block-magic":  flip(mid + 20),
		"stream-crc":   flip(first + 48 + 9),
		"end-magic":    flip(first + 3),
		"cut":          two[:mid/8+1000],
		"cut-at-magic": two[:mid/8+2],
		"trailing":     append(bytes.Clone(two), "garbage after the streams"...),
		"trailing-bz":  append(bytes.Clone(two), "BZh9"...),
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := sameAsSequential(t, bad, 2, 3)
			if err == nil {
				t.Fatal("no error")
			}
			if name != "trailing" && name != "trailing-bz" && len(got) > len(text) {
				t.Fatalf("%d bytes before the error", len(got))
			}
		})
	}
}

// falseMagicData returns n bytes (no runs of four) whose bzip2 blocks
// have the block magic in their symbol map: the used byte ranges
// 0x3141 and the used values of the first two ranges 0x5926 and 0x5359.
func falseMagicData(n int) []byte {
	var values []byte
	for _, w := range []struct {
		rng  int
		bits uint16
	}{{2, 0x5926}, {3, 0x5359}, {7, 1}, {9, 0x8000}, {15, 0x0100}} {
		for s := range 16 {
			if w.bits&(0x8000>>s) != 0 {
				values = append(values, byte(w.rng*16+s))
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = values[r.IntN(len(values))]
		if i >= 3 && b[i] == b[i-1] && b[i] == b[i-2] && b[i] == b[i-3] {
			b[i] = values[(r.IntN(len(values)-1)+1+int(b[i]))%len(values)]
		}
	}
	return b
}

// TestParallelFalseMagic: blocks whose data holds the block magic (in
// their symbol map) decode the same in parallel; the search found more
// candidates than there are blocks.
func TestParallelFalseMagic(t *testing.T) {
	data := falseMagicData(700000)
	for _, comp := range [][]byte{compressWithTool(t, data, 1), compressOurs(t, data, 1, 1, 0)} {
		got, err := sameAsSequential(t, comp, 2, 3)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes, %v", len(got), err)
		}
		p := &parallel{r: bytes.NewReader(comp)}
		p.fill(int64(len(comp)) + 1)
		p.scan()
		blocks := len(data)/(100000-19) + 1
		if len(p.cands) <= blocks {
			t.Fatalf("%d candidates for %d blocks", len(p.cands), blocks)
		}
	}
}

// TestParallelScan: the search finds the magic at every bit offset,
// also across the boundaries of its reads, and nothing else.
func TestParallelScan(t *testing.T) {
	buf := randomBytes(3*parReadSize, 51)
	var want []int64
	for _, off := range []int{0, 49, 8*parReadSize - 20, 8*parReadSize + 40, 16*parReadSize - 13, 24*parReadSize - 54} {
		writeBitsAt(buf, off, 48, blockMagic)
		want = append(want, int64(off))
	}
	p := &parallel{r: bytes.NewReader(buf)}
	for !p.eof {
		p.fill(p.avail() + parReadSize)
		p.scan()
	}
	if len(p.cands) != len(want) {
		t.Fatalf("found %v, want %v", p.cands, want)
	}
	for i := range want {
		if p.cands[i] != want[i] {
			t.Fatalf("found %v, want %v", p.cands, want)
		}
	}
}

// TestParallelAbandon: a Reader left in the middle of an input, or Reset
// there, leaves no goroutine running.
func TestParallelAbandon(t *testing.T) {
	comp := compressWithTool(t, textBytes(2000000, 61), 1)
	before := runtime.NumGoroutine()
	z := NewReaderThreads(bytes.NewReader(comp), 3)
	if _, err := io.ReadFull(z, make([]byte, 150000)); err != nil {
		t.Fatal(err)
	}
	if len(z.par.jobs) == 0 {
		t.Fatal("no block in flight")
	}
	z.Reset(bytes.NewReader(comp)) // waits for them
	if len(z.par.jobs) != 0 {
		t.Fatalf("%d jobs after Reset", len(z.par.jobs))
	}
	testenv.CheckGoroutines(t, before)
	if _, err := io.ReadFull(z, make([]byte, 150000)); err != nil {
		t.Fatal(err)
	}
	z = nil // abandoned with blocks in flight: they end on their own
	testenv.CheckGoroutines(t, before)
}

// FuzzParallel: parallel decoding of any input gives the bytes and the
// error of sequential decoding.
func FuzzParallel(f *testing.F) {
	if _, err := os.Stat("/usr/bin/bzip2"); err == nil {
		text := textBytes(250000, 71)
		f.Add(compressWithTool(f, text, 1))
		f.Add(append(compressWithTool(f, text[:120000], 1), compressWithTool(f, text[:1000], 9)...))
		f.Add(compressWithTool(f, falseMagicData(120000), 1))
	}
	f.Add([]byte("BZh91AY&SY"))
	f.Fuzz(func(t *testing.T, comp []byte) {
		sameAsSequential(t, comp, 2, 3)
	})
}

// BenchmarkScan measures the search for block magics alone, per byte of
// compressed input held in one window.
func BenchmarkScan(b *testing.B) {
	_, comp := benchInput(b)
	b.SetBytes(int64(len(comp)))
	p := &parallel{r: bytes.NewReader(comp)}
	p.fill(int64(len(comp)) + 1)
	for b.Loop() {
		p.scanned, p.cands = 0, p.cands[:0]
		p.scan()
	}
}

// TestParallelBuffers: workers read their block from the input window in
// place (no bit-reader buffer of their own, no copy), and a decoded block
// is output from its worker's buffers, which wait for the output to end:
// threads blocks' buffers in all, with no text buffer of the output
// stage's (the output stage held one of its own, a third text buffer
// for two threads).
func TestParallelBuffers(t *testing.T) {
	text := textBytes(1000000, 41)
	comp := compressWithTool(t, text, 1)
	for _, threads := range []int{2, 3} {
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("threads %d: %d bytes, %v", threads, len(got), err)
		}
		if z.par.seq {
			t.Fatalf("threads %d: handed over to sequential decoding", threads)
		}
		if z.cur != nil || z.par.held != nil {
			t.Fatalf("threads %d: the output stage holds buffers after the end", threads)
		}
		bufs := 0
		for _, j := range z.par.free {
			if j.z.br.r != nil || cap(j.z.br.buf) == inBufSize {
				t.Fatalf("threads %d: a worker reads through a buffer of its own", threads)
			}
			if j.blk != nil {
				bufs++
			}
		}
		if bufs == 0 || bufs > threads {
			t.Fatalf("threads %d: %d blocks' buffers", threads, bufs)
		}
	}
}

// TestParallelLongBlockAfterShortOnes: workers get a span of the input
// sized by the longest block so far; a block of random data after short
// text blocks is longer than that span, and its worker runs out of input
// and is started again with the longest span, giving the output and the
// errors of sequential decoding, also when that block is cut short.
func TestParallelLongBlockAfterShortOnes(t *testing.T) {
	comp := append(compressWithTool(t, textBytes(500000, 42), 1), compressWithTool(t, randomBytes(900000, 43), 9)...)
	for _, threads := range []int{2, 3} {
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		got, err := io.ReadAll(z)
		if err != nil || len(got) != 1400000 {
			t.Fatalf("threads %d: %d bytes, %v", threads, len(got), err)
		}
		if z.par.seq || z.par.longest < 900000 {
			t.Fatalf("threads %d: handed over %v, longest block %d bytes", threads, z.par.seq, z.par.longest)
		}
	}
	sameAsSequential(t, comp, 2, 3)
	sameAsSequential(t, comp[:len(comp)-1000], 2, 3)
}
