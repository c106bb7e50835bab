package xz

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand"
	"os/exec"
	"testing"

	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/testenv"
)

func writeXZ(t *testing.T, data []byte, o lzma.WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven writes cross the block boundaries.
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 300007)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// xzBlock is what a block header says of its block.
type xzBlock struct{ packed, unpacked int64 }

// blocksOf walks a one-stream .xz file's blocks by their headers alone,
// as a parallel reader finds them, and fails unless every header records
// both sizes.
func blocksOf(t *testing.T, f []byte) []xzBlock {
	t.Helper()
	var bs []xzBlock
	p := 12
	for f[p] != 0 { // a zero size byte starts the index
		hsize := (int(f[p]) + 1) * 4
		h := f[p : p+hsize]
		if h[1]&0xC0 != 0xC0 {
			t.Fatalf("block at %d: header flags %#x record no sizes", p, h[1])
		}
		packed, n1 := binary.Uvarint(h[2:])
		unpacked, n2 := binary.Uvarint(h[2+n1:])
		if n1 <= 0 || n2 <= 0 {
			t.Fatalf("block at %d: bad sizes", p)
		}
		bs = append(bs, xzBlock{int64(packed), int64(unpacked)})
		p += hsize + int(packed+3)&^3 + 8
	}
	return bs
}

// Writer's streams are read back by Reader and by the xz tool, for empty
// and non-empty input, are cut into blocks of BlockSize bytes whose
// headers record both sizes, and are the same bytes for one, two and
// three threads, with hash-chain (one block per thread) and binary-tree
// (two threads per block) finders.
func TestWriterRoundTrip(t *testing.T) {
	const block = 256 << 10
	xz := testenv.Tool(t, "xz")
	for _, mf := range []string{"hc5", "bt4"} {
		for _, n := range []int{0, 1, 70000, block, 3*block + 12345} {
			data := sample(n, uint64(n))
			var outs [][]byte
			for _, threads := range []int{1, 2, 3} {
				o := lzma.WriterOptions{Level: 1, DictSize: 64 << 10, MatchFinder: mf, Threads: threads, BlockSize: block}
				outs = append(outs, writeXZ(t, data, o))
				got, err := io.ReadAll(NewReader(bytes.NewReader(outs[len(outs)-1]), 1<<30))
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s, %d bytes: read back %d bytes, %v", mf, n, len(got), err)
				}
			}
			for i := range outs[1:] {
				if !bytes.Equal(outs[0], outs[i+1]) {
					t.Errorf("%s, %d bytes: output depends on the threads", mf, n)
				}
			}
			bs := blocksOf(t, outs[0])
			if want := max((n+block-1)/block, 1); len(bs) != want { // an empty block for no input
				t.Errorf("%s, %d bytes: %d blocks, want %d", mf, n, len(bs), want)
			}
			for i, b := range bs {
				if want := int64(max(min(block, n-i*block), 0)); b.unpacked != want {
					t.Errorf("%s, %d bytes: block %d holds %d bytes, want %d", mf, n, i, b.unpacked, want)
				}
			}
			cmd := exec.Command(xz, "-dc")
			cmd.Stdin = bytes.NewReader(outs[0])
			got, err := cmd.Output()
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s, %d bytes: xz -dc: %v", mf, n, err)
			}
		}
	}
}

// The block size follows the level's dictionary (four of it, from 2 MiB
// to 256 MiB), never the threads.
func TestBlockSize(t *testing.T) {
	for _, c := range []struct {
		level int
		want  int64
	}{{1, 2 << 20}, {3, 16 << 20}, {5, 128 << 20}, {6, 256 << 20}, {9, 256 << 20}} {
		o := lzma.LevelOptions(c.level)
		o.BlockSize = 0
		for _, threads := range []int{1, 4} {
			o.Threads = threads
			if got := BlockSize(o); got != c.want {
				t.Errorf("-mx%d, %d threads: blocks of %d bytes, want %d", c.level, threads, got, c.want)
			}
		}
	}
}

// indexRecords returns the (unpadded size, uncompressed size) records of
// a one-stream .xz file's index, found from its footer.
func indexRecords(t *testing.T, f []byte) [][2]uint64 {
	t.Helper()
	foot := f[len(f)-12:]
	isize := (int(binary.LittleEndian.Uint32(foot[4:])) + 1) * 4
	idx := f[len(f)-12-isize:]
	n, k := binary.Uvarint(idx[1:])
	p := 1 + k
	var rs [][2]uint64
	for range n {
		u, k1 := binary.Uvarint(idx[p:])
		c, k2 := binary.Uvarint(idx[p+k1:])
		rs = append(rs, [2]uint64{u, c})
		p += k1 + k2
	}
	return rs
}

// A block whose compressed stream is longer than keepOut goes out as it
// is coded, its header without sizes (the index has them): the Writer
// holds at most keepOut bytes and a piece of it, where it held the whole
// stream; a shorter block keeps both sizes in its header. The headers,
// and the file, are the same for one, two and three threads, hash-chain
// (blocks beside each other, held whole) and binary-tree finders, and the
// Reader (sequential and parallel) and xz read the file back.
func TestWriterStreamsLongBlocks(t *testing.T) {
	defer func(k int) { keepOut = k }(keepOut)
	keepOut = 128 << 10
	const block = 1<<20 + 1
	xz := testenv.Tool(t, "xz")
	data := make([]byte, 2*block+100<<10)
	rand.New(rand.NewSource(7)).Read(data[:2*block]) // incompressible; the last block zeros
	for _, mf := range []string{"hc5", "bt4"} {
		var outs [][]byte
		for _, threads := range []int{1, 2, 3} {
			o := lzma.WriterOptions{Level: 1, DictSize: 64 << 10, MatchFinder: mf, Threads: threads, BlockSize: block}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, o)
			if err != nil {
				t.Fatal(err)
			}
			held := 0
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 300007)
				if _, err := w.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
				if w.enc != nil {
					h := 0
					for _, p := range w.enc.out.bufs {
						h += cap(p)
					}
					held = max(held, h)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.enc != nil && held > keepOut+pieceSize {
				t.Errorf("%s, %d threads: %d bytes of a block's stream held, want at most %d", mf, threads, held, keepOut+pieceSize)
			}
			outs = append(outs, buf.Bytes())
		}
		for i := range outs[1:] {
			if !bytes.Equal(outs[0], outs[i+1]) {
				t.Errorf("%s: output depends on the threads", mf)
			}
		}
		f := outs[0]
		rs := indexRecords(t, f)
		if len(rs) != 3 {
			t.Fatalf("%s: %d index records, want 3", mf, len(rs))
		}
		p := 12
		for i, r := range rs {
			hsize := (int(f[p]) + 1) * 4
			flags := f[p+1]
			packed := int(r[0]) - hsize - 8
			switch {
			case packed > keepOut && flags&0xC0 != 0:
				t.Errorf("%s: block %d of %d packed bytes: header flags %#x record sizes", mf, i, packed, flags)
			case packed <= keepOut && flags&0xC0 != 0xC0:
				t.Errorf("%s: block %d of %d packed bytes: header flags %#x record no sizes", mf, i, packed, flags)
			}
			if i < 2 && packed <= keepOut {
				t.Errorf("%s: random block %d packed to %d bytes", mf, i, packed)
			}
			p += int(r[0]+3) &^ 3
		}
		for _, threads := range []int{1, 2} {
			got, _, err := readXZ(f, threads)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: read back with %d threads: %d bytes, %v", mf, threads, len(got), err)
			}
		}
		cmd := exec.Command(xz, "-t", "-T2")
		cmd.Stdin = bytes.NewReader(f)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: xz -t: %v %s", mf, err, out)
		}
	}
}

// peakLiveHeap is the most heap a Writer with options o keeps live on n
// bytes of sample data, above what was live before: the heap in use right
// after a collection, taken after each write of 256 KiB and after Close.
// Collecting first leaves out the garbage a collection would free, whose
// amount at any moment depends on when the collector last ran: each
// coder's window grows by doubling from 64 KiB before it takes its full
// size, and the range coder's output likewise, about 2.3 MB left behind
// on any input of two blocks or more, which HeapInuse counted until a
// collection in some runs and not in others.
func peakLiveHeap(t *testing.T, o lzma.WriterOptions, n int) int64 {
	t.Helper()
	return testenv.PeakLiveHeap(t, func() (io.WriteCloser, error) { return NewWriter(io.Discard, o) }, sample(256<<10, 3), n)
}

// Blocks compressed beside each other (a hash chain on two threads) take
// their input from a pool of a fixed size, so that a Writer holds as much
// on an input of many blocks as on one of a block and a half (issue
// 26, point 8): it held a buffer of a block for the block being filled
// and for each block being compressed, a block more (16 MiB at -mx3) on
// a long input (here 2.9 MB more). Half a block allows for the input
// pool, half a block with two coders, whose pieces are made as the
// coders fall behind the writes: a block and a half may leave some of
// them unmade.
func TestWriterMemoryFlat(t *testing.T) {
	o := lzma.WriterOptions{Level: 1, DictSize: 256 << 10, MatchFinder: "hc5", Threads: 2, BlockSize: 2 << 20}
	short := peakLiveHeap(t, o, int(o.BlockSize)*3/2)
	long := peakLiveHeap(t, o, 6*int(o.BlockSize))
	if long > short+o.BlockSize/2 {
		t.Errorf("%d bytes live on a block and a half, %d on six blocks", short, long)
	}
}
