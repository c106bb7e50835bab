package cli

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// heapHeadroom is how far the heap of `a` and `d` may grow above the heap
// the last garbage collection found live before the next one runs, when
// that heap is mostly buffers without pointers (see heapLimiter).
//
// Go collects when the heap has doubled since the last collection
// (GOGC=100): a run whose live heap is its encoders' windows and
// buffers (about 33 MB for .tar.zst on two threads) peaked at twice that
// when it also made garbage, as the walk of 200,000 small files does with
// each file's stat, name and open file (about 750 bytes a file; 76 MB,
// against 51 MB for one 2 GiB file, whose copy loop makes none). A fixed
// headroom makes the peak the live heap plus this much, whatever the
// number of files. Of the 3 MiB, the runtime's free and unused pages
// take part, so that about 2 to 3 MB of garbage is collected at a time: a goal 7 MiB
// above the live heap let the walk of many files (which has no more live
// heap than one large file) peak 3 to 4 MB above it, the largest part of
// the difference in peak memory between input shapes beside the
// encoders' buffers that a short input leaves untouched.
const heapHeadroom = 3 << 20

// heapLimiter lowers the runtime's soft memory limit after each garbage
// collection so that the heap goal is the live heap plus a headroom
// (the limit adds what the runtime holds besides the heap and keeps
// below the limit for its pacing), never above the limit it found (--max-dict's,
// setMemoryLimit). The headroom is heapHeadroom, or the memory the next
// collection has to scan (objects holding pointers, stacks, globals)
// when that is more: marking buffers without pointers costs a
// collection next to nothing, so collecting every few MB beside 30 MB of
// encoder windows costs about 1 % of the CPU time, while a large heap
// of pointers (the entries of a 200,000-entry archive being updated)
// grows by as much as it scans, as with GOGC=100 (collecting every 8 MiB
// there took a fifth of the CPU time). The heap of a run that makes no
// garbage never reaches the limit; one that does is collected there
// instead of at twice its live size. A live heap that grows (a directory
// of a million names read at once) raises the limit at the next
// collection.
type heapLimiter struct {
	mu      sync.Mutex
	ceiling int64
	stopped bool
	samples []metrics.Sample
	// collections counts the collections seen (for the tests).
	collections int
}

// gcTick is an object allocated to be dropped: its cleanup runs after
// the collection that finds it unreachable. It holds a pointer, so that
// it is not one of the runtime's tiny allocations, which share a block
// with others and may outlive a collection.
type gcTick struct {
	_ *int
	_ [8]byte
}

// startHeapLimiter starts bounding the heap (see heapLimiter) until the
// returned function is called, which restores the limit found.
func startHeapLimiter() (stop func()) {
	l := newHeapLimiter()
	l.arm()
	return l.stop
}

// newHeapLimiter returns a limiter, not started, whose ceiling is the
// memory limit in force.
func newHeapLimiter() *heapLimiter {
	return &heapLimiter{ceiling: debug.SetMemoryLimit(-1), samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/scan/heap:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
}

// arm drops a gcTick whose cleanup adjusts the limit after the next
// collection and arms again.
func (l *heapLimiter) arm() {
	runtime.AddCleanup(&gcTick{}, func(l *heapLimiter) {
		if l.adjust() {
			l.arm()
		}
	}, l)
}

// adjust sets the memory limit for a heap goal of the live heap and
// heapHeadroom (or the heap to scan) less the unused parts of spans, at
// most the ceiling; it reports whether the limiter still runs.
func (l *heapLimiter) adjust() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.collections++
	metrics.Read(l.samples)
	var v [9]int64
	for i, s := range l.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return true // unknown here: the limit stays as it is
		}
		v[i] = int64(s.Value.Uint64())
	}
	live := v[0]
	// What the runtime counts against the limit beside the heap:
	// stacks, its own data. The unused parts of spans holding objects
	// (where small objects' garbage is freed) count in the headroom.
	beside := v[1] - v[2] - v[3] - v[4] - v[5]
	// A heap whose memory holds pointers costs a collection the time
	// to scan it: such a heap may grow by as much as it scans, as with
	// GOGC=100, so that the collector's work per byte allocated stays
	// what Go's default pacing gives.
	scan := v[6] + v[7] + v[8]
	debug.SetMemoryLimit(min(l.ceiling, max(beside, 0)+limitHeapGoal(live+max(heapHeadroom, scan))))
	return true
}

// limitHeapGoal returns the memory, beside what the runtime holds outside
// the heap, that a soft memory limit must leave for the heap goal to be
// goal: the runtime keeps 3 % of it (at least 1 MiB) below the limit for
// its pacing. Above a live heap of about 100 MiB that is more than
// heapHeadroom, and without it the goal would be the live heap: a
// collection at every allocation while the encoders' windows are
// allocated (up to 50 collections for a 16 MiB file at -mx5).
func limitHeapGoal(goal int64) int64 {
	const percent, least = 3, 1 << 20
	if reserve := goal*percent/(100-percent) + percent; reserve > least {
		return goal + reserve
	}
	return goal + least
}

// stop ends the limiter and restores the limit it found.
func (l *heapLimiter) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	debug.SetMemoryLimit(l.ceiling)
}
