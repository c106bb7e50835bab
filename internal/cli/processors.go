package cli

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// The Go runtime starts with one processor (P) per CPU. A run of garc is
// one goroutine most of the time; with a second P idle, each goroutine it
// starts (signal handling, a prompt's reader, the writer of x) wakes a
// second thread that spins looking for work before it parks again, and
// the P of a blocking system call is handed to another thread. For a
// tiny archive that is about a tenth of the process's CPU time (issue
// 13). So Main runs on one P until the run turns out to be larger, and
// then gives the runtime its default back (runtime.SetDefaultGOMAXPROCS,
// which honours $GOMAXPROCS and the container's CPU limit): at once for
// work that runs on several threads (a and d, --threads above 1), and
// otherwise once the run has used onePDuration of CPU time, so that a
// long extraction has its file writer and the garbage collector on the
// second CPU again. CPU time, not the clock: on a loaded machine a tiny
// archive's test takes 10 ms of the clock and more while using less CPU,
// and ending the phase then stopped the world to add the P and, with GOGC
// back at 100, started a collection of a heap that had just passed 4 MB,
// about a fifth of the run's CPU time (issue 27). The run's CPU time, not
// the process's: the process's start (the runtime and the packages'
// initialization) uses about 15 ms of CPU time before Main, more than
// onePDuration, so that counting it ended the phase at the timer's first
// look, by the clock again. A run of a or
// d asked for one thread keeps the one P to its end (keepOneP).
//
// For the same span the garbage collector runs at GOGC onePGCPercent
// instead of 100 (unless $GOGC or debug.SetGCPercent chose more, or off):
// a small archive whose decoder allocates a few megabytes (bzip2's block,
// a PPMd model) otherwise collects twice in its first milliseconds, a
// quarter of the CPU time of a 1.5 KB bzip2 7z. The memory limit
// (setMemoryLimit) still bounds the heap.

// ProcessorsLowered is set, before Main, by a program that set GOMAXPROCS
// from above 1 to 1 before its packages initialized, as cmd/garc does
// (package oneproc): Main then takes over that one-P phase instead of
// lowering GOMAXPROCS itself, which would flush the caches of the P it
// takes away.
var ProcessorsLowered bool

// onePDuration is how much CPU time a run uses on one P unless it needs
// more earlier: more than a tiny archive takes, short next to any run for
// which a second CPU makes a difference.
const onePDuration = 10 * time.Millisecond

// cpuTime returns the CPU time the process has used (user and system, all
// threads); ok is false where it is not known, and the one-P phase then
// ends after onePDuration of the clock.
var cpuTime = processCPUTime

// onePGCPercent is GOGC during the one-P phase.
const onePGCPercent = 400

// processorLimit is the one-P phase of a run.
type processorLimit struct {
	mu      sync.Mutex
	lowered bool // GOMAXPROCS is 1 for the phase
	// gcRaised says GOGC is onePGCPercent for the phase, gcPercent
	// what it was before.
	gcRaised  bool
	gcPercent int
	// timer ends the phase once the run has used budget of CPU time
	// since the phase started, when the process had used start;
	// stopped is set by stop.
	timer   *time.Timer
	budget  time.Duration
	start   time.Duration
	stopped bool
}

// limitProcessors sets GOMAXPROCS to 1 until the run has used d of CPU
// time from now on (cpuTime; d of the clock where that is unknown). It
// does nothing when there is one P already.
func limitProcessors(d time.Duration) *processorLimit {
	if runtime.GOMAXPROCS(0) == 1 {
		return limitedProcessors(false, d)
	}
	runtime.GOMAXPROCS(1)
	return limitedProcessors(true, d)
}

// limitedProcessors starts the one-P phase of a program that has set
// GOMAXPROCS to 1 itself (lowered; false when it was 1 anyway) and
// raises GOGC: the defaults come back once the run has used d of CPU
// time from now on, or at release.
func limitedProcessors(lowered bool, d time.Duration) *processorLimit {
	l := &processorLimit{lowered: lowered, budget: d}
	l.start, _ = cpuTime() // where it is unknown, expire goes by the clock
	if prev := debug.SetGCPercent(onePGCPercent); prev >= 0 && prev < onePGCPercent {
		l.gcRaised, l.gcPercent = true, prev
	} else {
		debug.SetGCPercent(prev) // off, or higher already
	}
	if l.lowered || l.gcRaised {
		// On one P the process uses at most about d of CPU time in
		// d of the clock: the timer looks first after d. The lock
		// holds expire back until the timer is stored, should it
		// look before (a loaded machine can stop this goroutine for
		// longer than d).
		l.mu.Lock()
		l.timer = time.AfterFunc(d, l.expire)
		l.mu.Unlock()
	}
	return l
}

// expire ends the phase when the run has used its budget of CPU time
// since the phase started (or that is unknown), and otherwise looks again
// when it may have.
func (l *processorLimit) expire() {
	used, ok := cpuTime()
	used -= l.start
	if ok && used < l.budget {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.stopped && (l.lowered || l.gcRaised) {
			l.timer.Reset(max(l.budget-used, time.Millisecond))
		}
		return
	}
	l.release()
}

// stop cancels the timer of the one-P phase and leaves GOMAXPROCS and
// GOGC as they are: Main's process exits next, and giving the P back
// would stop the world once more for nothing (about 3 % of a tiny run).
func (l *processorLimit) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
}

// release ends the phase: GOGC as it was and the runtime's default
// GOMAXPROCS. A nil *processorLimit (a run outside Main) has nothing to
// release.
func (l *processorLimit) release() { l.end(false) }

// keepOneP ends the phase for a run asked to use one thread (a and d
// with --threads 1): GOGC goes back to what it was, and GOMAXPROCS stays
// 1 for the rest of the run. Such a run is one goroutine doing the work;
// with a second P, every blocking read hands the P to another thread
// and the runtime's preemption every 10 ms lets the idle P's thread take
// the goroutine, so it moves between CPUs and refills the match finder's
// tables (megabytes) into each one's cache: at -mx1 about 3 % more CPU
// time (docs/PERFORMANCE.md). A nil *processorLimit does nothing.
func (l *processorLimit) keepOneP() { l.end(true) }

// end ends the phase: GOGC as it was, and GOMAXPROCS 1 with oneP, else
// the runtime's default.
func (l *processorLimit) end(oneP bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.gcRaised {
		l.gcRaised = false
		debug.SetGCPercent(l.gcPercent)
	}
	switch {
	case oneP && runtime.GOMAXPROCS(0) > 1:
		// The phase was over already (or never lowered): the caches
		// of the P taken away are flushed, a one-off cost.
		runtime.GOMAXPROCS(1)
	case !oneP && l.lowered:
		runtime.SetDefaultGOMAXPROCS()
	}
	l.lowered = false
}
