package bzip2

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// compressOurs compresses data with a Writer at level, writing it in
// chunks of chunk bytes (0: all at once).
func compressOurs(t testing.TB, data []byte, level, threads, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, err := NewWriterThreads(&buf, level, threads)
	if err != nil {
		t.Fatal(err)
	}
	if chunk <= 0 {
		chunk = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		if n, err := z.Write(p[:k]); err != nil || n != k {
			t.Fatalf("Write: %d, %v", n, err)
		}
		p = p[k:]
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mixedData returns n bytes of the standard mixed benchmark data, skipping
// t when the generator is missing.
func mixedData(t testing.TB, n int) []byte {
	t.Helper()
	return testenv.MixedData(t, n)
}

func alternating(n int, a, b byte) []byte {
	p := make([]byte, n)
	for i := range p {
		if i%2 == 0 {
			p[i] = a
		} else {
			p[i] = b
		}
	}
	return p
}

// checkRoundTrip decodes comp with our Reader and compress/bzip2 and
// compares with want.
func checkRoundTrip(t *testing.T, comp, want []byte) {
	t.Helper()
	got, err := decodeOurs(t, comp, 0)
	if err != nil {
		t.Fatalf("our decoder: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("our decoder: output differs (%d bytes, want %d)", len(got), len(want))
	}
	got, err = decodeStd(comp)
	if err != nil {
		t.Fatalf("compress/bzip2: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("compress/bzip2: output differs (%d bytes, want %d)", len(got), len(want))
	}
}

func writerInputs() []namedInput {
	return append(testInputs(),
		namedInput{"two-bytes", []byte("ab")},
		namedInput{"alternating-1.2M", alternating(1200000, 'a', 'b')},
		namedInput{"run-255", bytes.Repeat([]byte{7}, 255)},
		namedInput{"run-256", bytes.Repeat([]byte{7}, 256)},
		namedInput{"run-259", bytes.Repeat([]byte{7}, 259)},
		namedInput{"all-bytes", func() []byte {
			p := make([]byte, 256*5)
			for i := range p {
				p[i] = byte(i / 5)
			}
			return p
		}()},
	)
}

func TestWriterRoundTrip(t *testing.T) {
	inputs := writerInputs()
	inputs = append(inputs, namedInput{"mixed-2M", nil}) // filled below
	for _, in := range inputs {
		for _, level := range []int{1, 9} {
			t.Run(fmt.Sprintf("%s/level%d", in.name, level), func(t *testing.T) {
				data := in.data
				if in.name == "mixed-2M" {
					data = mixedData(t, 2097152)
				}
				comp := compressOurs(t, data, level, 1, 0)
				checkRoundTrip(t, comp, data)
				if len(data) <= 300000 {
					// One byte per Write gives the same stream.
					if c1 := compressOurs(t, data, level, 1, 1); !bytes.Equal(c1, comp) {
						t.Fatalf("1-byte writes give a different stream")
					}
				}
				if c2 := compressOurs(t, data, level, 1, 100003); !bytes.Equal(c2, comp) {
					t.Fatalf("100003-byte writes give a different stream")
				}
			})
		}
	}
}

// TestWriterBlockBoundaries compresses, at every level, inputs of a little
// over two blocks (text, random, runs that straddle the cut), so blocks end
// both on a full block and on a run.
func TestWriterBlockBoundaries(t *testing.T) {
	for level := 1; level <= 9; level++ {
		size := level * 100000
		inputs := []namedInput{
			{"text", textBytes(2*size+12345, uint64(level))},
			{"random-exact", randomBytes(size-19, uint64(level))},
			{"random-over", randomBytes(size-18, uint64(level))},
			{"runs", runBytes(2*size+777, uint64(level))},
		}
		if level <= 3 {
			inputs = append(inputs, namedInput{"zeros", make([]byte, 25*size)})
		}
		for _, in := range inputs {
			t.Run(fmt.Sprintf("level%d/%s", level, in.name), func(t *testing.T) {
				comp := compressOurs(t, in.data, level, 1, 65536)
				if string(comp[:4]) != fmt.Sprintf("BZh%d", level) {
					t.Fatalf("header %q", comp[:4])
				}
				checkRoundTrip(t, comp, in.data)
				if got, err := referenceDecode(comp); err != errNoReference {
					if err != nil || !bytes.Equal(got, in.data) {
						t.Fatalf("bzip2 -d: %v, equal %v", err, bytes.Equal(got, in.data))
					}
				}
			})
		}
	}
}

// TestWriterBzip2Tool has bzip2 -d (and 7zz, when present) decode our
// streams, and compares sizes with bzip2 -9.
func TestWriterBzip2Tool(t *testing.T) {
	tool := testenv.Tool(t, "bzip2")
	inputs := writerInputs()
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			comp := compressOurs(t, in.data, 9, 1, 0)
			cmd := exec.Command(tool, "-d", "-c")
			cmd.Stdin = bytes.NewReader(comp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("bzip2 -d: %v: %s", err, stderr.String())
			}
			if !bytes.Equal(got, in.data) {
				t.Fatalf("bzip2 -d: output differs (%d bytes, want %d)", len(got), len(in.data))
			}
			if len(in.data) == 0 {
				// The empty stream is the header and the trailer,
				// exactly as bzip2 writes it.
				if want := compressWithTool(t, nil, 9); !bytes.Equal(comp, want) {
					t.Fatalf("empty stream % x, bzip2 writes % x", comp, want)
				}
			}
		})
	}
	t.Run("mixed-2M", func(t *testing.T) {
		data := mixedData(t, 2097152)
		ours := compressOurs(t, data, 9, 1, 0)
		ref := compressWithTool(t, data, 9)
		got, err := referenceDecode(ours)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("bzip2 -d: %v, equal %v", err, bytes.Equal(got, data))
		}
		ratio := float64(len(ours)) / float64(len(ref))
		t.Logf("mixed data, 2 MiB: garc %d bytes, bzip2 -9 %d bytes, ratio %.4f", len(ours), len(ref), ratio)
		if ratio > 1.03 {
			t.Errorf("our stream is %.1f %% larger than bzip2 -9's", 100*(ratio-1))
		}
		if sz, err := exec.LookPath("7zz"); err == nil {
			path := filepath.Join(t.TempDir(), "m.bz2")
			if err := os.WriteFile(path, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := exec.Command(sz, "e", "-so", path).Output()
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("7zz e: %v, equal %v", err, bytes.Equal(got, data))
			}
		} else {
			t.Logf("7zz not found: decoding by 7-Zip not checked")
		}
	})
}

func TestWriterThreads(t *testing.T) {
	inputs := []namedInput{
		{"text", textBytes(1100000, 21)},
		{"runs", runBytes(900000, 22)},
		{"small", []byte("hello")},
		{"empty", nil},
	}
	for _, in := range inputs {
		one := compressOurs(t, in.data, 2, 1, 0)
		for _, threads := range []int{2, 3} {
			got := compressOurs(t, in.data, 2, threads, 77777)
			if !bytes.Equal(got, one) {
				t.Fatalf("%s: %d threads give a different stream", in.name, threads)
			}
		}
		checkRoundTrip(t, one, in.data)
	}
}

func TestWriterReset(t *testing.T) {
	in1, in2 := textBytes(250000, 31), runBytes(120000, 32)
	var b1, b2 bytes.Buffer
	for _, threads := range []int{1, 2} {
		b1.Reset()
		b2.Reset()
		z, err := NewWriterThreads(&b1, 1, threads)
		if err != nil {
			t.Fatal(err)
		}
		z.Write(in1[:100]) // abandoned by Reset
		z.Reset(&b1)
		z.Write(in1)
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, b1.Bytes(), in1)
		z.Reset(&b2)
		z.Write(in2)
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, b2.Bytes(), in2)

		// Steady state: compressing a three-block stream again after
		// Reset allocates (almost) nothing.
		allocs := testing.AllocsPerRun(3, func() {
			b1.Reset()
			z.Reset(&b1)
			z.Write(in1)
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%d threads: %v allocations per stream after Reset", threads, allocs)
		limit := 0.0
		if threads > 1 {
			limit = 8 // goroutine start-up, per block
		}
		if allocs > limit {
			t.Fatalf("%d threads: %v allocations per stream after Reset", threads, allocs)
		}
	}
}

type failingWriter struct{ left int }

var errSink = errors.New("sink full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, errSink
	}
	f.left -= len(p)
	return len(p), nil
}

func TestWriterErrors(t *testing.T) {
	for _, level := range []int{0, 10, -1} {
		if _, err := NewWriterThreads(io.Discard, level, 1); err == nil {
			t.Errorf("level %d accepted", level)
		}
	}
	z, err := NewWriterThreads(&failingWriter{left: 1000}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := randomBytes(500000, 41)
	_, err = z.Write(data)
	if !errors.Is(err, errSink) {
		t.Fatalf("Write: got %v, want the sink's error", err)
	}
	if _, err := z.Write([]byte("x")); !errors.Is(err, errSink) {
		t.Fatalf("Write after error: got %v", err)
	}
	if err := z.Close(); !errors.Is(err, errSink) {
		t.Fatalf("Close after error: got %v", err)
	}

	var buf bytes.Buffer
	z.Reset(&buf)
	z.Write([]byte("fine"))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := z.Write([]byte("more")); err == nil {
		t.Fatalf("Write after Close succeeded")
	}
	checkRoundTrip(t, buf.Bytes(), []byte("fine"))
}

// TestHuffmanLengths checks the length limit and that the codes are
// complete, on frequencies that would give a very deep tree.
func TestHuffmanLengths(t *testing.T) {
	var h huffWork
	for _, m := range []int{3, 20, 40, 258} {
		freq := make([]int32, m)
		a, b := int32(1), int32(1)
		for i := range freq {
			freq[i] = a
			a, b = b, min(a+b, 1<<24)
		}
		lens := make([]uint8, m)
		h.lengths(lens, freq, encodeMaxLen)
		kraft := 0
		for s, l := range lens {
			if l < 1 || l > encodeMaxLen {
				t.Fatalf("m=%d: symbol %d has length %d", m, s, l)
			}
			kraft += 1 << (maxCodeLen - l)
		}
		if kraft != 1<<maxCodeLen {
			t.Fatalf("m=%d: Kraft sum %d, want %d", m, kraft, 1<<maxCodeLen)
		}
		codes := make([]uint32, m)
		canonicalCodes(codes, lens)
		var tab huffTable
		tab.build(lens)
		for s := range m {
			bits := uint64(codes[s]) << (64 - lens[s])
			got, l, ok := tab.decodeLong(bits)
			if lens[s] <= primaryBits {
				e := tab.primary[bits>>(64-primaryBits)]
				got, l, ok = e>>5, uint(e&31), true
			}
			if !ok || int(got) != s || l != uint(lens[s]) {
				t.Fatalf("m=%d: symbol %d decodes as %d/%d", m, s, got, l)
			}
		}
	}
}

func FuzzWriter(f *testing.F) {
	f.Add([]byte(""), uint8(1))
	f.Add([]byte("a"), uint8(9))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), uint8(5))
	f.Add(textBytes(5000, 51), uint8(2))
	f.Add(runBytes(20000, 52), uint8(1))
	f.Add(alternating(3000, 0, 255), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, level uint8) {
		if len(data) > 1<<18 {
			data = data[:1<<18]
		}
		lv := 1 + int(level%9)
		comp := compressOurs(t, data, lv, 1, 0)
		checkRoundTrip(t, comp, data)
		if two := compressOurs(t, data, lv, 2, 1000); !bytes.Equal(two, comp) {
			t.Fatalf("two threads give a different stream")
		}
	})
}

// TestWriterBuffersSizedOnce: once a block of more than half the block
// size has been encoded, the encoder's buffers have the room of a whole
// block, so longer blocks (full ones, incompressible ones with more
// output) allocate nothing more. Buffers sized to each block's exact
// length were replaced whenever a block was a few bytes longer than every
// one before, and the discarded ones let garc's heap grow with the input.
func TestWriterBuffersSizedOnce(t *testing.T) {
	first := randomBytes(60000, 51)
	rest := append(textBytes(200000, 52), randomBytes(150000, 53)...)
	z, err := NewWriterThreads(io.Discard, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	z.Write(first)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	z.Reset(io.Discard)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	z.Write(rest)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<10 {
		t.Fatalf("%d bytes allocated for a stream of full blocks after a 60 %% block (%d allocations)", grew, after.Mallocs-before.Mallocs)
	}
}

// TestWriterSortBuffersPerThread: the sorting and move-to-front buffers
// (13 bytes per byte of the block size) belong to the threads, not to the
// blocks: a Writer with two threads holds two sets, though three blocks
// are collected or encoded at once (one being collected, two encoding).
// One set per block let the live heap of garc a x.tar.bz2 -mx9 reach 37
// MB, and the garbage collector's goal twice that.
func TestWriterSortBuffersPerThread(t *testing.T) {
	const level, threads = 2, 2
	n := level * 100000
	data := append(textBytes(4*n, 61), randomBytes(2*n, 62)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	z, err := NewWriterThreads(io.Discard, level, threads)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(z)
	// threads sets of sorting buffers, and a block and its output for
	// each of threads+1 blocks, with some room.
	limit := uint64(threads*13*n + (threads+1)*2*n + n)
	if live := after.HeapAlloc - before.HeapAlloc; int64(live) > int64(limit) {
		t.Fatalf("writer holds %d bytes after a stream of level %d blocks with %d threads, want at most %d", live, level, threads, limit)
	}
	if z.made > threads {
		t.Fatalf("%d sets of encode buffers for %d threads", z.made, threads)
	}
}
