package testenv

import (
	"io"
	"runtime"
	"testing"
)

// PeakHeap is the most heap in use (runtime.MemStats.HeapInuse, sampled
// after each write and after Close) while the writer that open returns
// takes n bytes, written as repeats of chunk, above what was in use before
// open. A short input may be coded only in Close, hence the last sample.
func PeakHeap(t testing.TB, open func() (io.WriteCloser, error), chunk []byte, n int) int64 {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	w, err := open()
	if err != nil {
		t.Fatal(err)
	}
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	return int64(max(peak, ms.HeapInuse) - base)
}
