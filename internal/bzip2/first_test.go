package bzip2

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/testenv"
)

// look reads the first KiB of comp with a sequential Reader and closes
// it, as the opener does to find a tar inside a stream.
func look(t *testing.T, comp []byte) {
	t.Helper()
	z := NewReader(bytes.NewReader(comp))
	if _, err := io.ReadFull(z, make([]byte, 1024)); err != nil {
		t.Fatalf("look: %v", err)
	}
	z.Close()
}

// TestFirstBlockKept: a Reader closed after reading the start of a stream
// leaves its first block, decoded, and a Reader of the same input, with
// any number of threads, takes it instead of decoding it again (white
// box: the block buffer is the same), and decodes the stream as without.
// A Reader of other input — other later blocks, another first block, a
// truncated copy, or one that fails — decodes its own input with the
// same output and error as a fresh one.
func TestFirstBlockKept(t *testing.T) {
	text := textBytes(250000, 5)
	comp := compressWithTool(t, text, 1) // three blocks
	other := append(append([]byte(nil), text[:100000]...), textBytes(150000, 6)...)
	compOther := compressWithTool(t, other, 1) // the same first block
	for _, threads := range []int{1, 2} {
		look(t, comp)
		fb := lastFirst.Load()
		if fb == nil {
			t.Fatal("a closed Reader kept no first block")
		}
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("threads %d: %d bytes, %v", threads, len(got), err)
		}
		reused := z.cur == fb.blk
		if z.par != nil {
			reused = false
			for _, j := range z.par.free {
				reused = reused || j.blk == fb.blk
			}
		}
		if !reused {
			t.Errorf("threads %d: the kept block was not used", threads)
		}
		z.Close()
		lastFirst.Store(nil) // the one z kept, if any
	}

	bad := append([]byte(nil), comp...)
	bad[len(bad)/2] ^= 0x40
	for _, tc := range []struct {
		name string
		in   []byte
		r    func([]byte) io.Reader
	}{
		{"other later blocks", compOther, nil},
		{"other first block", compressWithTool(t, textBytes(250000, 7), 1), nil},
		{"damaged later", bad, nil},
		{"truncated in the first block", comp[:len(comp)/5], nil},
		{"header only", comp[:4], nil},
		{"one byte at a time", comp, func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"read error", comp[:len(comp)/5], func(b []byte) io.Reader {
			return io.MultiReader(bytes.NewReader(b), iotest.ErrReader(errors.New("disk on fire")))
		}},
	} {
		open := func() io.Reader {
			if tc.r != nil {
				return tc.r(tc.in)
			}
			return bytes.NewReader(tc.in)
		}
		for _, threads := range []int{1, 2} {
			want, werr := io.ReadAll(NewReaderThreads(open(), threads))
			look(t, comp)
			got, err := io.ReadAll(NewReaderThreads(open(), threads))
			if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Errorf("%s, threads %d: %d bytes, %v; fresh Reader: %d bytes, %v", tc.name, threads, len(got), err, len(want), werr)
			}
			lastFirst.Store(nil)
		}
	}
}

// TestParallelAdoptsRecord: a parallel Reader that takes the first block
// a look left makes the look's record of the input (which grew to recSize
// at once when it outgrew one read, on a huge page outside the Go heap,
// where 4 KiB pages took a fault each as it was written) its window
// (adoptFirst), and decodes the stream as a fresh Reader does; a small
// stream's record stays small.
func TestParallelAdoptsRecord(t *testing.T) {
	text := textBytes(1200000, 9)
	comp := compressWithTool(t, text, 9) // two blocks, the first over 64 KiB
	look(t, comp)
	fb := lastFirst.Load()
	if fb == nil || len(fb.input) <= inBufSize || cap(fb.input) < recSize {
		t.Fatalf("kept first block: %v", fb != nil)
	}
	if !testenv.InHugePages(fb.input) {
		t.Errorf("the record (%d bytes of %d) is not laid out for huge pages", len(fb.input), cap(fb.input))
	}
	z := NewReaderThreads(bytes.NewReader(comp), 2)
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if z.par.base != 0 || len(z.par.win) != len(comp) || &z.par.win[0] != &fb.input[0] || z.par.winMem != fb.inputMem {
		t.Errorf("the window (%d bytes from %d) is not the recorded input", len(z.par.win), z.par.base)
	}
	z.Close()
	lastFirst.Store(nil)

	look(t, compressWithTool(t, text[:100000], 9))
	if fb := lastFirst.Swap(nil); fb == nil || cap(fb.input) > inBufSize {
		t.Errorf("a small stream's record: %v", fb)
	}
}
