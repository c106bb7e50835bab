package xz

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/testenv"
)

// readXZ decodes comp with threads (1: sequential), through Read with
// an odd buffer size, and returns the output, how many blocks were decoded
// in parallel and the error (nil at the end).
func readXZ(comp []byte, threads int) ([]byte, int, error) {
	z := NewReader(bytes.NewReader(comp), 1<<24)
	z.SetThreads(threads)
	var out bytes.Buffer
	buf := make([]byte, 5000)
	var err error
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
	blocks := 0
	if z.par != nil {
		blocks = z.par.blocks
	}
	z.SetThreads(1) // waits for the blocks still decoding
	return out.Bytes(), blocks, err
}

func TestParallelMatchesSequential(t *testing.T) {
	data := sample(1<<20, 4)
	small := sample(100<<10, 5)
	multiStream := append(xzCompress(t, small, "-1", "-T2", "--block-size=32KiB"), make([]byte, 8)...)
	multiStream = append(multiStream, xzCompress(t, small, "-1", "-T1", "--block-size=40KiB", "-C", "sha256")...)
	for _, tc := range []struct {
		name    string
		comp    []byte
		want    []byte
		wantPar bool
	}{
		{"T2-blocks", xzCompress(t, data, "-1", "-T2", "--block-size=128KiB"), data, true},
		{"T1-blocks", xzCompress(t, data, "-1", "-T1", "--block-size=100KiB", "-C", "crc32"), data, true},
		{"x86-delta-blocks", xzCompress(t, data, "-T2", "--block-size=200KiB", "--x86", "--delta=dist=4", "--lzma2=preset=1", "-C", "none"), data, true},
		{"multi-stream", multiStream, append(bytes.Clone(small), small...), true},
		{"one-block", xzCompress(t, data, "-1", "-T1"), data, false}, // its index says so: sequential (TestParallelSkipsUnsplittableFiles)
		{"empty", xzCompress(t, nil, "-T2"), nil, false},
	} {
		for _, threads := range []int{2, 3} {
			got, blocks, err := readXZ(tc.comp, threads)
			if err != nil {
				t.Fatalf("%s threads=%d: %v", tc.name, threads, err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("%s threads=%d: output differs (%d bytes, want %d)", tc.name, threads, len(got), len(tc.want))
			}
			if (blocks > 0) != tc.wantPar {
				t.Errorf("%s threads=%d: %d blocks decoded in parallel", tc.name, threads, blocks)
			}
		}
	}
}

// TestParallelLargeBlockSequential: a block above maxParBlock is decoded by
// the sequential path, the smaller blocks around it in parallel, whether
// its header gives its size (-T2) or not (-T1).
func TestParallelLargeBlockSequential(t *testing.T) {
	defer func(n int64) { maxParBlock = n }(maxParBlock)
	maxParBlock = 256 << 10
	data := sample(600<<10, 3)
	for _, args := range [][]string{{"-1", "-T2", "--block-size=400KiB"}, {"-1", "-T1", "--block-size=400KiB"}} {
		comp := append(xzCompress(t, data[:200<<10], "-1", "-T2", "--block-size=64KiB"), xzCompress(t, data, args...)...)
		got, blocks, err := readXZ(comp, 2)
		if err != nil || !bytes.Equal(got, append(bytes.Clone(data[:200<<10]), data...)) {
			t.Fatalf("%v: %d bytes, %v", args, len(got), err)
		}
		// 4 blocks of the first stream, the last 200 KiB of the second.
		if blocks != 5 {
			t.Errorf("%v: %d blocks decoded in parallel, want 5", args, blocks)
		}
	}
}

// TestParallelDamageAsSequential: damage in a middle block gives the
// output and the error, offset included, of the sequential reader.
func TestParallelDamageAsSequential(t *testing.T) {
	data := sample(1<<20, 6)
	comp := xzCompress(t, data, "-1", "-T2", "--block-size=64KiB")
	flip := func(at int, x byte) []byte {
		b := bytes.Clone(comp)
		b[at] ^= x
		return b
	}
	cases := []struct {
		name string
		comp []byte
	}{
		{"truncated", comp[:len(comp)/2]},
		{"truncated-in-header", comp[:len(comp)-len(comp)/3]},
	}
	for _, at := range []int{len(comp) / 2, len(comp) / 3, len(comp) / 4, len(comp) - 200} {
		for _, x := range []byte{0x01, 0xFF} {
			cases = append(cases, struct {
				name string
				comp []byte
			}{fmt.Sprintf("flip-%d-%#x", at, x), flip(at, x)})
		}
	}
	for _, tc := range cases {
		wantOut, _, wantErr := readXZ(tc.comp, 1)
		got, _, err := readXZ(tc.comp, 2)
		if wantErr == nil {
			t.Errorf("%s: sequential reader saw no damage", tc.name)
		}
		if !bytes.Equal(got, wantOut) {
			t.Errorf("%s: %d bytes out, sequential %d", tc.name, len(got), len(wantOut))
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, sequential %v", tc.name, err, wantErr)
		}
	}
}

// TestParallelNoLeak: a reader abandoned mid-file and Reset leaves no
// goroutine behind and then decodes the file again.
func TestParallelNoLeak(t *testing.T) {
	data := sample(512<<10, 8)
	comp := xzCompress(t, data, "-1", "-T2", "--block-size=32KiB")
	before := runtime.NumGoroutine()
	z := NewReader(bytes.NewReader(comp), 0)
	z.SetThreads(2)
	if _, err := io.ReadFull(z, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if len(z.par.queue) < 2 {
		t.Fatalf("%d blocks read ahead", len(z.par.queue))
	}
	z.Reset(bytes.NewReader(comp), 0)
	testenv.CheckGoroutines(t, before)
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after Reset: %d bytes, %v", len(got), err)
	}
	if z.InputOffset() != int64(len(comp)) {
		t.Errorf("consumed %d of %d bytes", z.InputOffset(), len(comp))
	}
	z.SetThreads(1)
	testenv.CheckGoroutines(t, before)
}

// TestParallelBuffersReused: the output buffers of the blocks returned are
// reused for later blocks, at most threads+1 of them allocated over a
// stream of many blocks, and threads when the blocks queued hold spareHeld
// bytes or more.
func TestParallelBuffersReused(t *testing.T) {
	defer func(n int64) { spareHeld = n }(spareHeld)
	data := sample(1<<20, 9)
	for _, tc := range []struct {
		args      []string
		threads   int
		spareHeld int64
		maxFresh  int
	}{
		{[]string{"-1", "-T2", "--block-size=64KiB"}, 2, 16 << 20, 3},
		{[]string{"-1", "-T2", "--block-size=64KiB"}, 3, 16 << 20, 4},
		{[]string{"-1", "-T2", "--block-size=64KiB"}, 2, 100 << 10, 2},
		{[]string{"-T2", "--block-size=64KiB", "--delta=dist=2", "--lzma2=preset=1"}, 2, 16 << 20, 3},
	} {
		spareHeld = tc.spareHeld
		comp := xzCompress(t, data, tc.args...)
		z := NewReader(bytes.NewReader(comp), 0)
		z.SetThreads(tc.threads)
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%v: %d bytes, %v", tc.args, len(got), err)
		}
		if z.par.blocks != 16 {
			t.Errorf("%v: %d blocks decoded in parallel, want 16", tc.args, z.par.blocks)
		}
		if z.par.fresh < 1 || z.par.fresh > tc.maxFresh {
			t.Errorf("%v threads=%d spareHeld=%d: %d output buffers allocated for 16 blocks, want 1 to %d",
				tc.args, tc.threads, tc.spareHeld, z.par.fresh, tc.maxFresh)
		}
		z.SetThreads(1)
	}
}

func FuzzParallelReader(f *testing.F) {
	comp := xzCompress(f, sample(24<<10, 2), "-1", "-T2", "--block-size=4KiB")
	f.Add(comp, uint32(len(comp)/2), byte(1), uint32(len(comp)))
	f.Add(comp, uint32(100), byte(0x80), uint32(len(comp)*2/3))
	f.Fuzz(func(t *testing.T, in []byte, at uint32, x byte, cut uint32) {
		if len(in) > 0 {
			in = bytes.Clone(in)
			in[int(at)%len(in)] ^= x
			in = in[:int(cut)%(len(in)+1)]
		}
		wantOut, _, wantErr := readXZ(in, 1)
		got, _, err := readXZ(in, 2)
		if !bytes.Equal(got, wantOut) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("parallel: %d bytes, %v; sequential: %d bytes, %v", len(got), err, len(wantOut), wantErr)
		}
	})
}

// BenchmarkParallelReader decodes an .xz file of 1 MiB blocks with one
// and two threads; cpu-ns/op against ns/op gives the parallel path's
// overhead and wall/CPU.
func BenchmarkParallelReader(b *testing.B) {
	data := sample(16<<20, 1)
	comp := xzCompress(b, data, "-T2", "--block-size=1MiB")
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			z := NewReader(bytes.NewReader(comp), 0)
			b.SetBytes(int64(len(data)))
			cpu := testenv.StartCPU()
			for b.Loop() {
				z.Reset(bytes.NewReader(comp), 0)
				z.SetThreads(threads)
				if n, err := io.Copy(io.Discard, z); err != nil || n != int64(len(data)) {
					b.Fatal(n, err)
				}
			}
			cpu.Report(b, int64(len(data)))
		})
	}
}

// TestParallelCorpus: every .xz of the shared corpus (XZ Utils' good and
// bad test files among them) decodes with two threads to the output and
// error of one.
func TestParallelCorpus(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range units {
		if u.Format != "xz" {
			continue
		}
		comp, err := os.ReadFile(u.Path(root))
		if err != nil {
			t.Fatal(err)
		}
		n++
		wantOut, _, wantErr := readXZ(comp, 1)
		got, _, err := readXZ(comp, 2)
		if !bytes.Equal(got, wantOut) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: threads 2: %d bytes, %v; one thread: %d bytes, %v", u.Unit, len(got), err, len(wantOut), wantErr)
		}
	}
	if n == 0 {
		t.Fatal("no xz units in the corpus index")
	}
}

// countingSection is a file section that counts the bytes Read from it.
type countingSection struct {
	*io.SectionReader
	n int
}

func (c *countingSection) Read(p []byte) (int, error) {
	n, err := c.SectionReader.Read(p)
	c.n += n
	return n, err
}

// A sized io.ReaderAt (a file's section) whose indexes list fewer than two
// blocks small enough for parallel decoding is read sequentially from the
// start: the first bytes come after one buffer of input, where walking a
// block whose header has no sizes read it up to maxParBlock unpacked bytes
// ahead (and gave it back). Blocks that can be decoded in parallel still
// are, and a source that is not an io.ReaderAt is walked as before.
func TestParallelSkipsUnsplittableFiles(t *testing.T) {
	defer func(m int64, k int) { maxParBlock, keepOut = m, k }(maxParBlock, keepOut)
	maxParBlock, keepOut = 512<<10, 64<<10
	data := make([]byte, 3<<19)
	rand.New(rand.NewSource(3)).Read(data)
	o := lzma.WriterOptions{Level: 1, DictSize: 64 << 10, MatchFinder: "hc5", Threads: 1}
	for _, c := range []struct {
		name     string
		block    int64
		parallel bool
	}{
		{"one block", 2 << 20, false},
		{"blocks above maxParBlock", 1 << 20, false},
		{"small blocks", 128 << 10, true},
	} {
		o.BlockSize = c.block
		f := writeXZ(t, data, o)
		if f[12+1]&0xC0 != 0 && c.block > maxParBlock {
			t.Fatalf("%s: the first block's header has sizes", c.name)
		}
		src := &countingSection{SectionReader: io.NewSectionReader(bytes.NewReader(f), 0, int64(len(f)))}
		z := NewReader(src, 1<<24)
		z.SetThreads(2)
		var one [1]byte
		if _, err := io.ReadFull(z, one[:]); err != nil {
			t.Fatal(err)
		}
		if read := src.n; !c.parallel && read > 128<<10 {
			t.Errorf("%s: %d bytes of input read before the first byte out, want at most %d", c.name, read, 128<<10)
		}
		rest, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(append(one[:], rest...), data) {
			t.Fatalf("%s: read back %d bytes, %v", c.name, len(rest)+1, err)
		}
		if got := z.par.blocks > 0; got != c.parallel {
			t.Errorf("%s: %d blocks decoded in parallel", c.name, z.par.blocks)
		}
		z.SetThreads(1)
	}
}

// From a source that is not an io.ReaderAt (a pipe), the walk gives up on
// the first block above maxParBlock and walks no more blocks of the file:
// each walk read its block up to maxParBlock into a fresh buffer before
// giving it back, which the bytes allocated beyond the sequential
// reader's show.
func TestParallelStopsAfterLargeBlock(t *testing.T) {
	defer func(m int64, k int) { maxParBlock, keepOut = m, k }(maxParBlock, keepOut)
	maxParBlock, keepOut = 256<<10, 32<<10
	data := make([]byte, 4*(512<<10))
	rand.New(rand.NewSource(5)).Read(data)
	o := lzma.WriterOptions{Level: 1, DictSize: 64 << 10, MatchFinder: "hc5", Threads: 1, BlockSize: 512 << 10}
	f := writeXZ(t, data, o)
	allocated := func(threads int) uint64 {
		z := NewReader(struct{ io.Reader }{bytes.NewReader(f)}, 1<<24)
		z.SetThreads(threads)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got, err := io.ReadAll(z)
		runtime.ReadMemStats(&m1)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d threads: read back %d bytes, %v", threads, len(got), err)
		}
		z.SetThreads(1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	seq, par := allocated(1), allocated(2)
	// A section of unknown size over a stream read once (stdin) is not
	// read at its end for the indexes.
	once := &oncePipe{data: f}
	z := NewReader(io.NewSectionReader(once, 0, math.MaxInt64), 1<<24)
	z.SetThreads(2)
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, data) || once.elsewhere > 0 {
		t.Errorf("from a pipe: %d bytes, %v, %d reads elsewhere than where the last ended", len(got), err, once.elsewhere)
	}
	z.SetThreads(1)
	// One walk: its buffer grown by doubling past maxParBlock, the
	// buffered input copied when it is given back, the queue.
	if extra := int64(par) - int64(seq); extra > 4*maxParBlock {
		t.Errorf("walking 4 blocks above maxParBlock allocated %d bytes beyond the sequential reader's %d, want at most %d (one walk)", extra, seq, 4*maxParBlock)
	}
}

// oncePipe is an io.ReaderAt over a stream read front to back once: it
// counts the reads that do not start where the last one ended.
type oncePipe struct {
	data      []byte
	pos       int64
	elsewhere int
}

func (o *oncePipe) ReadAt(p []byte, off int64) (int, error) {
	if off != o.pos {
		o.elsewhere++
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, o.data[min(off, int64(len(o.data))):])
	o.pos += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
