package stream

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/testenv"
)

// The zstd writer's buffers do not depend on the input's size (issue 26,
// point 8): 20 MiB and seven frames make the same chunks at most, counted
// as they are made, half a frame and six chunks with two threads (the
// writer before held three frames of input and three of output), one
// chunk with one thread; and the bytes are the same for every thread
// count.
func TestZstdWriterMemoryFlat(t *testing.T) {
	poolBytes := func(threads int) int64 {
		in, out := zstdPools(threads)
		return int64(in+out) * zstdChunk
	}
	// Two threads: half a frame of input ahead, a chunk per thread
	// and four chunks of output for the frame that waits.
	if poolBytes(2) > zstdFrameSize/2+6*zstdChunk {
		t.Errorf("two threads may hold %d bytes, more than half a frame and six chunks", poolBytes(2))
	}
	chunk := writerSample(1<<20 + 3)
	for _, size := range []int{20 << 20, 7 * zstdFrameSize} {
		var one []byte
		for _, threads := range []int{1, 2, 3} {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Zstd, WriterOptions{Level: 1, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; n < size; n += len(chunk) {
				if _, err := w.Write(chunk[:min(len(chunk), size-n)]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			made, bound := w.(*zstdWriter).made.Load(), poolBytes(threads)
			if made > bound || (threads == 1 && made != zstdChunk) {
				t.Errorf("%d MiB, %d threads: %d bytes of buffers made, bound %d", size>>20, threads, made, bound)
			}
			if one == nil {
				one = buf.Bytes()
			} else if !bytes.Equal(buf.Bytes(), one) {
				t.Errorf("%d MiB, %d threads: other bytes than one thread", size>>20, threads)
			}
		}
		d, _, err := NewDecoder(Zstd, bytes.NewReader(one), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, d)
		if err != nil || n != int64(size) {
			t.Errorf("%d MiB: decoded %d bytes, %v", size>>20, n, err)
		}
	}
}

// A stream shorter than a chunk is one frame with its content size, so
// that its reader needs no larger window than the file; a longer one has
// frames without sizes, and every frame with more than a chunk.
func TestZstdWriterFrameHeaders(t *testing.T) {
	for _, c := range []struct {
		size    int
		hasSize bool
	}{{0, true}, {5000, true}, {zstdChunk - 1, true}, {zstdChunk, false}, {zstdFrameSize + 1, false}} {
		data := writerSample(c.size)
		for _, threads := range []int{1, 2} {
			comp := compress(t, Zstd, data, WriterOptions{Level: 1, Threads: threads})
			var h zstd.Header
			if err := h.Decode(comp); err != nil {
				t.Fatalf("%d bytes: %v", c.size, err)
			}
			if h.HasFCS != c.hasSize || (h.HasFCS && h.FrameContentSize != uint64(c.size)) {
				t.Errorf("%d bytes, %d threads: content size %v %d, want %v", c.size, threads, h.HasFCS, h.FrameContentSize, c.hasSize)
			}
			if c.hasSize && c.size > 1<<10 && h.WindowSize > uint64(c.size) {
				t.Errorf("%d bytes: window %d", c.size, h.WindowSize)
			}
			got, err := decodeZstd(comp, 0)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, %d threads: decoded %d bytes, %v", c.size, threads, len(got), err)
			}
		}
	}
}

// zstdFrameLengths returns the content length of each frame of comp,
// walking the frames' blocks and decoding each frame alone.
func zstdFrameLengths(t *testing.T, comp []byte) []int {
	t.Helper()
	var lens []int
	for len(comp) > 0 {
		var h zstd.Header
		if err := h.Decode(comp); err != nil {
			t.Fatal(err)
		}
		end := h.HeaderSize
		for last := false; !last; {
			if end+3 > len(comp) {
				t.Fatalf("frame %d cut short", len(lens))
			}
			bh := int(comp[end]) | int(comp[end+1])<<8 | int(comp[end+2])<<16
			size := bh >> 3
			last = bh&1 == 1
			if bh>>1&3 == 1 { // RLE: one byte
				size = 1
			}
			end += 3 + size
		}
		if h.HasCheckSum {
			end += 4
		}
		got, err := decodeZstd(comp[:end], 0)
		if err != nil {
			t.Fatalf("frame %d: %v", len(lens), err)
		}
		lens = append(lens, len(got))
		comp = comp[end:]
	}
	return lens
}

// The first frame is half the others, the same for any number of
// threads, at garc's own encoder's level and klauspost's.
func TestZstdWriterFrameSizes(t *testing.T) {
	want := []int{zstdFrameSize / 2, zstdFrameSize, 5000}
	data := writerSample(want[0] + want[1] + want[2])
	for _, level := range []int{1, DefaultLevel(Zstd)} {
		for _, threads := range []int{1, 2} {
			lens := zstdFrameLengths(t, compress(t, Zstd, data, WriterOptions{Level: level, Threads: threads}))
			if !slices.Equal(lens, want) {
				t.Errorf("-mx%d, %d threads: frames of %d bytes, want %d", level, threads, lens, want)
			}
		}
	}
}

// failAfter accepts n bytes, then fails.
type failAfter struct{ n int }

var errFailAfter = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errFailAfter
	}
	f.n -= len(p)
	return len(p), nil
}

// An error of the output ends the stream with that error, from Write or
// at the latest from Close, and leaves no goroutine behind, whether the
// frame that meets it is the oldest or waits behind others.
func TestZstdWriterError(t *testing.T) {
	before := runtime.NumGoroutine()
	data := writerSample(zstdFrameSize + 5)
	for _, threads := range []int{1, 2, 3} {
		for _, limit := range []int{0, 100, 2 << 20} {
			w, err := NewWriter(&failAfter{n: limit}, Zstd, WriterOptions{Level: 1, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			for rest := data; len(rest) > 0 && werr == nil; {
				k := min(len(rest), 700001)
				_, werr = w.Write(rest[:k])
				rest = rest[k:]
			}
			cerr := w.Close()
			if !errors.Is(cerr, errFailAfter) || (werr != nil && !errors.Is(werr, errFailAfter)) {
				t.Errorf("%d threads, failing after %d bytes: Write %v, Close %v", threads, limit, werr, cerr)
			}
		}
	}
	testenv.CheckGoroutines(t, before)
}

// Literals that no match covers are Huffman-coded at every level, as zstd
// codes them: a block of bytes of seven bits without repeats is smaller
// than its input (klauspost's encoder stores such a block raw below
// SpeedBetterCompression unless asked; on 100 MB of executables that is
// 0.15 % of the size, on mixed data 0.4 %).
func TestZstdWriterCodesLiterals(t *testing.T) {
	data := make([]byte, 1<<20)
	x := uint32(7)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = byte(x>>24) & 0x7F
	}
	for _, level := range []int{1, 3, 5} {
		for _, threads := range []int{1, 2} {
			z := compress(t, Zstd, data, WriterOptions{Level: level, Threads: threads})
			if limit := len(data) * 15 / 16; len(z) > limit {
				t.Errorf("level %d, %d threads: %d bytes of 7-bit literals compress to %d, more than %d", level, threads, len(data), len(z), limit)
			}
			got, err := zstd.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			back, err := io.ReadAll(got)
			got.Close()
			if err != nil || !bytes.Equal(back, data) {
				t.Errorf("level %d, %d threads: round trip: %v", level, threads, err)
			}
		}
	}
}

// A writer of several threads makes its chunks two to a huge page, so
// that their first touch is one page fault, not 512 (on 100 MB of mixed
// data with two threads 9,626 minor faults → 6,554 and 7 % less CPU
// time); a writer of one thread makes its one chunk alone.
func TestZstdWriterChunkPages(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		w, err := NewWriter(io.Discard, Zstd, WriterOptions{Level: 3, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		z := w.(*zstdWriter)
		first, second := z.fresh(nil), z.fresh(nil)
		if cap(first) != zstdChunk || cap(second) != zstdChunk || len(first) != 0 || len(second) != 0 {
			t.Errorf("%d threads: chunks of len %d, %d and cap %d, %d", threads, len(first), len(second), cap(first), cap(second))
		}
		start := unsafe.SliceData(first[:1])
		paired := unsafe.SliceData(second[:1]) == (*byte)(unsafe.Add(unsafe.Pointer(start), zstdChunk)) &&
			testenv.InHugePages(unsafe.Slice(start, 2*zstdChunk))
		if paired != (threads > 1) {
			t.Errorf("%d threads: two chunks on one huge page %v", threads, paired)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// At the default level the frames come from garc's own encoder
// (internal/zstd): the same bytes with one, two and three threads, a
// frame of 16 MiB and one of 3 MiB, read back by klauspost's decoder.
func TestZstdWriterOwnEncoderThreads(t *testing.T) {
	data := writerSample(zstdFrameSize + 3<<20)
	var one []byte
	for _, threads := range []int{1, 2, 3} {
		comp := compress(t, Zstd, data, WriterOptions{Level: DefaultLevel(Zstd), Threads: threads})
		if one == nil {
			one = comp
		} else if !bytes.Equal(comp, one) {
			t.Errorf("%d threads: other bytes than one thread", threads)
		}
	}
	d, err := zstd.NewReader(bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	back, err := io.ReadAll(d)
	if err != nil || !bytes.Equal(back, data) {
		t.Errorf("round trip: %d bytes, %v", len(back), err)
	}
}

// At the default level .zst is within 1 % of `zstd -3`'s size on the
// data klauspost's encoder was furthest from it: long runs of one byte
// with a little data between (zstd writes each 128 KiB of a run as an RLE
// block of 4 bytes: klauspost's encoder wrote ~80 bytes, 1.047× in all on
// the bench's class of runs) and UTF-16 text (1.022×: its tables), and on
// mixed data.
func TestZstdWriterSizeAgainstZstd(t *testing.T) {
	tool := testenv.Tool(t, "zstd")
	var runs []byte
	x := uint32(5)
	for len(runs) < 6<<20 {
		x = x*1664525 + 1013904223
		runs = append(runs, make([]byte, int(x>>12)%(700<<10))...)
		runs = append(runs, writerSample(int(x>>20)%3000)...)
	}
	mixed := testenv.MixedData(t, 4<<20)
	var utf16 []byte
	for _, c := range mixed[:2<<20] {
		// Text as UTF-16: ASCII with a zero byte after each.
		utf16 = append(utf16, c&0x7F, 0)
	}
	for name, data := range map[string][]byte{"runs": runs, "utf16": utf16, "mixed": mixed} {
		comp := compress(t, Zstd, data, WriterOptions{Level: DefaultLevel(Zstd), Threads: 2})
		cmd := exec.Command(tool, "-3", "-c", "-q")
		cmd.Stdin = bytes.NewReader(data)
		ref, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if float64(len(comp)) > 1.01*float64(len(ref)) {
			t.Errorf("%s: %d bytes, zstd -3 %d: %.4f×", name, len(comp), len(ref), float64(len(comp))/float64(len(ref)))
		}
	}
}
