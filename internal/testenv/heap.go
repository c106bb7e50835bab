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
	return peakHeap(t, open, chunk, n, false)
}

// PeakLiveHeap is PeakHeap with a garbage collection before each sample:
// the most live heap, whatever garbage the collector had not yet freed
// (which depends on when it last ran).
func PeakLiveHeap(t testing.TB, open func() (io.WriteCloser, error), chunk []byte, n int) int64 {
	t.Helper()
	return peakHeap(t, open, chunk, n, true)
}

// peakHeap is PeakHeap, collecting before each sample when live is set.
func peakHeap(t testing.TB, open func() (io.WriteCloser, error), chunk []byte, n int, live bool) int64 {
	t.Helper()
	var ms runtime.MemStats
	sample := func() uint64 {
		if live {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
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
		peak = max(peak, sample())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	peak = max(peak, sample())
	runtime.KeepAlive(w)
	runtime.KeepAlive(chunk)
	return int64(peak - base)
}
