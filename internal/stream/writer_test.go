package stream

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/garc-dev/garc/internal/xz"
)

// writerSample is compressible data with some noise, n bytes.
func writerSample(n int) []byte {
	var b bytes.Buffer
	x := uint32(1)
	for b.Len() < n {
		x = x*1664525 + 1013904223
		if x>>29 == 0 {
			b.WriteByte(byte(x >> 8))
		} else {
			b.WriteString([]string{"stream ", "block ", "writer ", "gzip\n"}[x>>30])
		}
	}
	return b.Bytes()[:n]
}

func compress(t *testing.T, k Kind, data []byte, o WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, k, o)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven writes cross the block boundaries.
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 100003)
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

// Every format NewWriter writes decodes to its input with NewDecoder and
// with the format's own tool, and is the same bytes for one and three
// threads.
func TestWriterRoundTrip(t *testing.T) {
	tools := map[Kind][]string{Gzip: {"gzip", "-dc"}, Bzip2: {"bzip2", "-dc"}, XZ: {"xz", "-dc"},
		Zstd: {"zstd", "-dc"}, LZMA: {"xz", "--format=lzma", "-dc"}}
	for _, k := range []Kind{Gzip, Bzip2, XZ, Zstd, LZMA} {
		for _, n := range []int{0, 1, 5000, gzipBlock*2 + 77} {
			data := writerSample(n)
			o := WriterOptions{Level: 3, Threads: 1, Size: -1, Name: "x.txt", ModTime: time.Unix(1e9, 0)}
			if k == LZMA && n == 5000 {
				o.Size = int64(n)
			}
			one := compress(t, k, data, o)
			o.Threads = 3
			if three := compress(t, k, data, o); !bytes.Equal(one, three) {
				t.Errorf("%v, %d bytes: the output depends on the threads", k, n)
			}
			d, h, err := NewDecoder(k, bytes.NewReader(one), 0, 1)
			if err != nil {
				t.Fatalf("%v, %d bytes: %v", k, n, err)
			}
			got, err := io.ReadAll(d)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%v, %d bytes: decoded %d bytes, %v", k, n, len(got), err)
			}
			if k == Gzip && (h.Name != "x.txt" || !h.ModTime.Equal(time.Unix(1e9, 0))) {
				t.Errorf("gzip header %+v", h)
			}
			tl := tools[k]
			cmd := exec.Command(testenv.Tool(t, tl[0]), tl[1:]...)
			cmd.Stdin = bytes.NewReader(one)
			if got, err := cmd.Output(); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%v, %d bytes: %s: %v", k, n, tl, err)
			}
		}
	}
}

// A .lzma header's size that the content does not match is an error.
func TestLZMAWriterSize(t *testing.T) {
	for _, n := range []int{9, 11} {
		w, err := NewWriter(io.Discard, LZMA, WriterOptions{Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Write(make([]byte, n))
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			t.Errorf("%d bytes under a header of 10: no error", n)
		}
	}
}

// goSources is up to n bytes of the Go distribution's own sources (the
// runtime's .go files), the source text of the size targets.
func goSources(t *testing.T, n int) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.GOROOT(t), "src", "runtime", "*.go"))
	var b []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, d...)
		if len(b) >= n {
			return b[:n]
		}
	}
	if len(b) < n/2 {
		testenv.Missing(t, "the Go runtime's sources")
	}
	return b
}

// An .xz or .gz written without a level is written at -mx6, xz's and
// gzip's default preset, and the other formats at -mx5.
func TestWriterDefaultLevel(t *testing.T) {
	data := []byte(strings.Repeat("default level of the stream writer\n", 2000))
	for _, c := range []struct {
		k    Kind
		want int
	}{{XZ, 6}, {Gzip, 6}, {Bzip2, 5}, {Zstd, 5}, {LZMA, 5}} {
		def := compress(t, c.k, data, WriterOptions{Threads: 1, Size: -1})
		if got := compress(t, c.k, data, WriterOptions{Level: c.want, Threads: 1, Size: -1}); !bytes.Equal(def, got) {
			t.Errorf("%v: the default level is not -mx%d", c.k, c.want)
		}
		if DefaultLevel(c.k) != c.want {
			t.Errorf("%v: DefaultLevel %d, want %d", c.k, DefaultLevel(c.k), c.want)
		}
	}
	// -mx5 and -mx6 share xz's 8 MiB dictionary; the nice length (32,
	// 128) tells them apart on data with matches of middle lengths.
	data = writerSample(100 << 10)
	if bytes.Equal(compress(t, XZ, data, WriterOptions{Level: 5, Threads: 1}), compress(t, XZ, data, WriterOptions{Level: 6, Threads: 1})) {
		t.Error("xz: -mx5 and -mx6 wrote the same bytes")
	}
}

// .xz at -mx6 is no larger than xz -6 writes on source text (issue 26,
// point 7: size ≤ 1.0×).
func TestXZSizeAgainstXZ(t *testing.T) {
	data := goSources(t, 1<<20)
	own := compress(t, XZ, data, WriterOptions{Level: 6, Threads: 2})
	cmd := exec.Command(testenv.Tool(t, "xz"), "-6", "-c")
	cmd.Stdin = bytes.NewReader(data)
	ref, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if len(own) > len(ref) {
		t.Errorf("%d bytes of Go sources: %d bytes at -mx6, xz -6 %d (%.4f×)", len(data), len(own), len(ref), float64(len(own))/float64(len(ref)))
	}
}

// A single .xz beyond one block is cut into the level's blocks (4 MiB at
// -mx1, four of xz -1's 1 MiB dictionary), the same bytes for one, two
// and three threads, and xz lists them as blocks of one stream.
func TestXZBlocksThreads(t *testing.T) {
	data := writerSample(5<<20 + 3)
	one := compress(t, XZ, data, WriterOptions{Level: 1, Threads: 1})
	for _, threads := range []int{2, 3} {
		if got := compress(t, XZ, data, WriterOptions{Level: 1, Threads: threads}); !bytes.Equal(got, one) {
			t.Errorf("%d threads: other bytes than one thread", threads)
		}
	}
	f := filepath.Join(t.TempDir(), "x.xz")
	if err := os.WriteFile(f, one, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testenv.Tool(t, "xz"), "--robot", "--list", f).Output()
	if err != nil {
		t.Fatal(err)
	}
	// file <TAB> streams <TAB> blocks <TAB> …
	var fields []string
	for l := range strings.Lines(string(out)) {
		if strings.HasPrefix(l, "file\t") {
			fields = strings.Split(l, "\t")
		}
	}
	if len(fields) < 3 || fields[1] != "1" || fields[2] != "2" {
		t.Errorf("xz --list: %q, want 1 stream of 2 blocks", fields)
	}
}

// A zstd stream beyond one frame is cut into frames of four windows,
// the same bytes for one, two and three threads, read back by NewDecoder
// and zstd.
func TestZstdFramesThreads(t *testing.T) {
	data := bytes.Repeat(writerSample(1<<20+7), zstdFrames*zstdWindow>>20+1)
	one := compress(t, Zstd, data, WriterOptions{Level: 1, Threads: 1})
	for _, threads := range []int{2, 3} {
		if got := compress(t, Zstd, data, WriterOptions{Level: 1, Threads: threads}); !bytes.Equal(got, one) {
			t.Errorf("%d threads: other bytes than one thread", threads)
		}
	}
	d, _, err := NewDecoder(Zstd, bytes.NewReader(one), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, %v", len(got), err)
	}
	cmd := exec.Command(testenv.Tool(t, "zstd"), "-dc")
	cmd.Stdin = bytes.NewReader(one)
	if got, err := cmd.Output(); err != nil || !bytes.Equal(got, data) {
		t.Errorf("zstd -dc: %v", err)
	}
}

// The compressed writers allocate the same whatever the input's size: a
// zstd or gzip stream of nine frames or blocks allocates no more than one
// of three, but for the zstd writer's chunks of output, made only as a
// frame waiting for its turn needs them (what a writer holds is bounded by
// the threads, not the input; issue 26, point 8).
func TestWriterMemoryBounded(t *testing.T) {
	chunk := writerSample(1 << 20)
	alloc := func(k Kind, size int) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w, err := NewWriter(io.Discard, k, WriterOptions{Level: 1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, c := range []struct {
		k     Kind
		block int
	}{{Zstd, zstdFrames * zstdWindow}, {Gzip, gzipBlock}} {
		small, big := alloc(c.k, 3*c.block), alloc(c.k, 9*c.block)
		if big > small+4<<20+zstdOutChunks*zstdChunk {
			t.Errorf("%v: %d bytes allocated for 3 blocks, %d for 9", c.k, small, big)
		}
	}
}

// --max-dict bounds the .xz and .lzma encoders: fewer threads first
// (the same bytes), then a halved dictionary with a notice, and a limit
// below the smallest encoder is refused with archive.ErrLimit.
func TestWriterMaxMemory(t *testing.T) {
	data := writerSample(300 << 10)
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	// -mx6: xz's 8 MiB dictionary for .xz, 7-Zip's 64 MiB for .lzma.
	// Half of xz's fits 64 MiB (TestXZWriterMemoryModel: the model was
	// 100 MiB there, and 64 MiB took a quarter).
	for k, dict := range map[Kind]string{XZ: "of 4096 KiB instead of 8192 KiB", LZMA: "instead of 65536 KiB"} {
		notes = nil
		o := WriterOptions{Level: 6, Threads: 2, Size: -1, MaxMemory: 64 << 20, Notice: note}
		one := compress(t, k, data, o)
		if len(notes) != 1 || !strings.Contains(notes[0], dict) {
			t.Errorf("%v at -mx6 under 64 MiB: notices %q", k, notes)
		}
		d, _, err := NewDecoder(k, bytes.NewReader(one), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%v: decoded %d bytes, %v", k, len(got), err)
		}
		o.MaxMemory = 2 << 20
		if _, err := NewWriter(io.Discard, k, o); !errors.Is(err, archive.ErrLimit) {
			t.Errorf("%v under 2 MiB: %v, want ErrLimit", k, err)
		}
	}
	// -mx3 (a hash chain, a block per thread) with room for one block:
	// one thread, the same bytes, no notice.
	o := WriterOptions{Level: 3, Threads: 2}
	lo := xzOptions(&o)
	lo.Threads = 1
	notes = nil
	limited := compress(t, XZ, data, WriterOptions{Level: 3, Threads: 2, MaxMemory: xz.WriterMemory(lo), Notice: note})
	if !bytes.Equal(limited, compress(t, XZ, data, o)) || len(notes) != 0 {
		t.Errorf("-mx3 with room for one thread: other bytes or notices %q", notes)
	}
}

// xz.WriterMemory, which --max-dict is checked against, covers what a
// Writer holds at its largest, on two threads at the levels of each
// kind of finder and dictionary (-mx2 and -mx4 are -mx1's and -mx3's
// kind, -mx5 -mx6's, -mx7 between -mx6 and -mx8) and at -mx3 and -mx6
// on one, and is
// at most 16 MiB above it (the rest of the
// process, the stream held for a block header's sizes, the blocks held
// beside an older one, which on this compressible data stay short): it
// counted three blocks more than a Writer holds (176 MiB at -mx6 for 101
// MiB of heap and 113 MB of RSS). So that the test stays short, each
// level's dictionary is scaled down (at least 64 KiB): a hash chain's 16
// times, its blocks following it, on an input of a block and a half
// (every coder has a block); a binary tree's 64 times, with blocks of the
// dictionary and 3.5 MiB (its window is the dictionary and about 3 MiB),
// a nice length of 16 and 4 cycles, on a block and 256 KiB.
func TestXZWriterMemoryModel(t *testing.T) {
	for _, c := range []struct{ level, threads int }{
		{1, 2}, {3, 2}, {6, 2}, {8, 2}, {9, 2}, {3, 1}, {6, 1},
	} {
		lo := xzOptions(&WriterOptions{Level: c.level, Threads: c.threads})
		lo.DictSize = max(lo.DictSize/16, 64<<10)
		n := int(xz.BlockSize(lo)) * 3 / 2
		if lo.MatchFinder == "bt4" {
			lo.DictSize = max(lo.DictSize/4, 64<<10)
			lo.BlockSize = int64(lo.DictSize) + 7<<19
			lo.FastBytes, lo.Cycles = 16, 4 // the same memory, faster
			n = int(lo.BlockSize) + 256<<10
		}
		used, model := xzPeakHeap(t, lo, n), xz.WriterMemory(lo)
		if used > model || model > used+16<<20 {
			t.Errorf("-mx%d, %d threads: %d bytes in use, the model says %d", c.level, c.threads, used, model)
		}
	}
}

// .xz takes xz's dictionary at every level (xz(1), "Presets"), blocks of
// four of it, 7-Zip's finder and parse, and from -mx6 a nice length of
// 128; .lzma keeps 7-Zip's dictionaries (lzma.LevelOptions).
func TestXZOptions(t *testing.T) {
	for _, c := range []struct {
		level int
		dict  uint32
		block int64
		fb    int
		mf    string
	}{
		{1, 1 << 20, 4 << 20, 32, "hc5"},
		{2, 2 << 20, 8 << 20, 32, "hc5"},
		{3, 4 << 20, 16 << 20, 32, "hc5"},
		{4, 4 << 20, 16 << 20, 32, "hc5"},
		{5, 8 << 20, 32 << 20, 32, "bt4"},
		{6, 8 << 20, 32 << 20, 128, "bt4"},
		{7, 16 << 20, 64 << 20, 128, "bt4"},
		{8, 32 << 20, 128 << 20, 128, "bt4"},
		{9, 64 << 20, 256 << 20, 128, "bt4"},
	} {
		for _, size := range []int64{-1, 20 << 20, 2 << 30} {
			o := WriterOptions{Level: c.level, Threads: 2, Size: size}
			lo := xzOptions(&o)
			if lo.DictSize != c.dict || xz.BlockSize(lo) != c.block || lo.FastBytes != c.fb || lo.MatchFinder != c.mf || lo.Threads != 2 {
				t.Errorf("-mx%d, size %d: dictionary %d, blocks %d, fb %d, %s, %d threads; want %d, %d, %d, %s, 2",
					c.level, size, lo.DictSize, xz.BlockSize(lo), lo.FastBytes, lo.MatchFinder, lo.Threads, c.dict, c.block, c.fb, c.mf)
			}
		}
		if lo := lzma.LevelOptions(c.level); c.level >= 5 && lo.DictSize <= c.dict {
			t.Errorf("-mx%d: .lzma's dictionary %d is not 7-Zip's", c.level, lo.DictSize)
		}
	}
}

// xzPeakHeap is the most heap in use (sampled after each MiB written) by
// an .xz Writer with options lo on n bytes, above what was in use before.
func xzPeakHeap(t *testing.T, lo lzma.WriterOptions, n int) int64 {
	t.Helper()
	return testenv.PeakHeap(t, func() (io.WriteCloser, error) { return xz.NewWriter(io.Discard, lo) }, writerSample(1<<20), n)
}

// The memory of an .xz Writer does not grow with the input once it is
// past the dictionary and the encoder's window (issue 26, point 8: a 2
// GiB .tar.xz against a 20 MiB one): at -mx6 (a binary tree, one block
// at a time on the two threads of the parallel finder, coded as the input
// arrives) an input of three blocks holds no more than a lone block.
// -mx6's options with the dictionary scaled down to 256 KiB and blocks
// of 1 MiB, so that the test stays short (TestXZWriterMemoryModel checks
// xz.WriterMemory against the heap).
func TestXZWriterMemoryFlat(t *testing.T) {
	lo := xzOptions(&WriterOptions{Level: 6, Threads: 2})
	lo.DictSize, lo.BlockSize = 256<<10, 1<<20
	short := xzPeakHeap(t, lo, int(lo.BlockSize))
	long := xzPeakHeap(t, lo, int(3*lo.BlockSize))
	if long > short+1<<20 {
		t.Errorf("%d bytes in use on one block, %d on three", short, long)
	}
}
