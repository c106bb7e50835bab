package cli

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

var heapSink []byte

// The heap limiter keeps a run that makes garbage beside a large live
// heap (an encoder's windows, the walk of many small files) within
// heapHeadroom of its live heap, where Go's default pacing lets it grow
// to twice the live heap; stopping restores the limit found.
func TestHeapLimiterBoundsGarbage(t *testing.T) {
	const liveSize = 64 << 20
	prevGC := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevGC)
	ceiling := debug.SetMemoryLimit(-1)

	live := make([]byte, liveSize)
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC()
	l := newHeapLimiter()
	l.arm()
	runtime.GC()
	for l.seen() == 0 {
		runtime.Gosched() // the cleanup runs after the collection
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	for i := range 80_000 {
		heapSink = make([]byte, 1024)
		for j := range heapSink {
			heapSink[j] = byte(i + j)
		}
		if i%128 == 0 {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
		}
	}
	runtime.KeepAlive(live)
	l.stop()
	t.Logf("peak %d MiB", peak>>20)
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Errorf("limit after stop: %d, want the %d found", got, ceiling)
	}
	// Go's pacing alone peaks at twice the live heap. Half of it is the
	// bound: the headroom, the test binary's own heap, and what a slow
	// collection on a loaded machine lets the loop allocate meanwhile.
	if bound := uint64(liveSize * 3 / 2); peak > bound {
		t.Errorf("heap peaked at %d MiB beside %d MiB live (bound %d MiB, %d collections seen)",
			peak>>20, liveSize>>20, bound>>20, l.seen())
	}
	if l.seen() < 2 {
		t.Errorf("%d collections seen while 80 MiB of garbage was made", l.seen())
	}
}

// seen returns the number of collections the limiter has adjusted after.
func (l *heapLimiter) seen() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.collections
}

// A live heap of pointers, which each collection scans, gets as much
// headroom as it has to scan, not heapHeadroom: collecting every 8 MiB
// beside the entries of a large archive took a fifth of the CPU time.
func TestHeapLimiterScannedHeap(t *testing.T) {
	const liveSize = 48 << 20
	prevGC := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevGC)
	live := make([]*int, liveSize/8)
	runtime.GC()
	l := newHeapLimiter()
	l.arm()
	runtime.GC()
	for l.seen() == 0 {
		runtime.Gosched()
	}
	for i := range 80_000 {
		heapSink = make([]byte, 1024)
		heapSink[0] = byte(i)
	}
	runtime.KeepAlive(live)
	l.stop()
	// 80 MiB of garbage: 2 or 3 collections with 48 MiB of headroom,
	// 10 with 8 MiB.
	if n := l.seen() - 1; n > 6 {
		t.Errorf("%d collections beside %d MiB of pointers", n, liveSize>>20)
	}
}

// After a collection the limit lets the heap grow by at most 4 MiB
// beside what is live and what the runtime holds besides the heap (when
// the heap to scan is smaller): the walk of many small files makes
// garbage that one large file does not, and the headroom is how much
// higher the peak memory of the first may be (issue 26, point 8; with
// 8 MiB `a` of 200,000 small files peaked 3 to 4 MB above one 2 GiB
// file).
func TestHeapLimiterHeadroom(t *testing.T) {
	ceiling := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(ceiling)
	runtime.GC()
	l := newHeapLimiter()
	if !l.adjust() {
		t.Fatal("limiter stopped")
	}
	limit := debug.SetMemoryLimit(-1)
	s := newHeapLimiter().samples // the metrics adjust reads, in its order
	metrics.Read(s)
	v := make([]int64, len(s))
	for i := range s {
		v[i] = int64(s[i].Value.Uint64())
	}
	if scan := v[6] + v[7] + v[8]; scan >= 3<<20 {
		t.Fatalf("the test binary's heap to scan is %d bytes, more than the headroom it checks", scan)
	}
	// The same sums as adjust; what was allocated between the two
	// reads of the metrics moves them by far less than the slack.
	headroom := limit - v[0] - (v[1] - v[2] - v[3] - v[4] - v[5])
	const slack = 1 << 20
	if headroom > 4<<20+slack || headroom < 4<<20-slack {
		t.Errorf("limit %d leaves %d bytes above the live heap and the runtime's memory, want 4 MiB", limit, headroom)
	}
}
