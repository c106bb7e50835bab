package cli

import (
	"fmt"
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

// After a collection the heap goal is 3 MiB above the live heap (when
// the heap to scan is smaller): the walk of many small files makes
// garbage that one large file does not, and the headroom is how much
// higher the peak memory of the first may be (issue 26, point 8; with
// a goal 7 MiB above, `a` of 200,000 small files peaked 3 to 4 MB above
// one 2 GiB file). A live heap of encoder windows above 100 MiB, where
// the runtime keeps more than the headroom below the limit for its
// pacing, gets the same, not a heap goal at the live heap (a collection
// at every allocation).
func TestHeapLimiterHeadroom(t *testing.T) {
	ceiling := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(ceiling)
	prevGC := debug.SetGCPercent(-1) // the goal is the limit's alone
	defer debug.SetGCPercent(prevGC)
	for _, live := range []int{0, 64 << 20, 256 << 20} {
		t.Run(fmt.Sprint(live>>20, "MiB"), func(t *testing.T) {
			heapSink = make([]byte, live) // pointer-free and never written: no resident memory
			defer func() { heapSink = nil }()
			debug.FreeOSMemory() // no free pages left from other tests above the limit
			l := newHeapLimiter()
			if !l.adjust() {
				t.Fatal("limiter stopped")
			}
			defer debug.SetMemoryLimit(ceiling)
			s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"},
				{Name: "/memory/classes/heap/unused:bytes"}}
			metrics.Read(s)
			goal, heapLive, scan, unused := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
			if scan >= 3<<20 {
				t.Fatalf("the test binary's heap to scan is %d bytes, more than the headroom it checks", scan)
			}
			// What was allocated between the collection and the reads
			// moves them by far less than the slack.
			const slack = 1 << 20
			// The unused parts of spans take part in the headroom.
			if headroom := int64(goal - heapLive + unused); headroom > heapHeadroom+slack || headroom < heapHeadroom-slack {
				t.Errorf("heap goal %d leaves %d bytes above the live heap of %d and %d unused, want %d", goal, headroom, heapLive, unused, heapHeadroom)
			}
		})
	}
}
