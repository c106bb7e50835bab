package zstd

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestReaderWindowOffHeap: on Linux a Reader's window buffer for a 2 MiB
// window is mapped outside the Go heap (histMemory), so decoding such a
// stream allocates well under the window from the heap; the output is the
// same, and a Reader Reset to a second stream keeps the buffer.
func TestReaderWindowOffHeap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the window buffer is mapped only on Linux")
	}
	data := bytes.Repeat([]byte("a window of two MiB, mostly repeated text; "), 100_000)
	e, err := zstd.NewWriter(nil, zstd.WithWindowSize(2<<20), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	comp := e.EncodeAll(data, nil)
	out := bytes.NewBuffer(make([]byte, 0, len(data)+4096))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	z := NewReader(bytes.NewReader(comp), 8<<20)
	_, err = out.ReadFrom(z)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("%d bytes, %v; want %d", out.Len(), err, len(data))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated from the heap besides the output, want under 1 MiB", n)
	}
	if cap(z.hist) < 2<<20 {
		t.Fatalf("window buffer of %d bytes", cap(z.hist))
	}
	first := &z.hist[0]
	z.Reset(bytes.NewReader(comp), 8<<20)
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, data) || &z.hist[0] != first {
		t.Fatalf("after Reset: %d bytes, %v; buffer kept: %v", len(got), err, &z.hist[0] == first)
	}
}
