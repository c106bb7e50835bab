package cli

import (
	"runtime"
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
// otherwise after onePDuration, so that a long extraction has its file
// writer and the garbage collector on the second CPU again.

// ProcessorsLowered is set, before Main, by a program that set GOMAXPROCS
// from above 1 to 1 before its packages initialized, as cmd/garc does
// (package oneproc): Main then takes over that one-P phase instead of
// lowering GOMAXPROCS itself, which would flush the caches of the P it
// takes away.
var ProcessorsLowered bool

// onePDuration is how long a run keeps one P unless it needs more
// earlier: longer than a tiny archive takes on a loaded machine, short
// next to any run for which a second CPU makes a difference.
const onePDuration = 10 * time.Millisecond

// processorLimit is the one-P phase of a run.
type processorLimit struct {
	mu      sync.Mutex
	lowered bool
	timer   *time.Timer
}

// limitProcessors sets GOMAXPROCS to 1 for at most d. It does nothing
// when there is one P already.
func limitProcessors(d time.Duration) *processorLimit {
	if runtime.GOMAXPROCS(0) == 1 {
		return limitedProcessors(false, d)
	}
	runtime.GOMAXPROCS(1)
	return limitedProcessors(true, d)
}

// limitedProcessors starts the one-P phase of a program that has set
// GOMAXPROCS to 1 itself (lowered; false when it was 1 anyway): the
// default comes back after d or at release.
func limitedProcessors(lowered bool, d time.Duration) *processorLimit {
	l := &processorLimit{lowered: lowered}
	if lowered {
		l.timer = time.AfterFunc(d, l.release)
	}
	return l
}

// stop cancels the timer of the one-P phase and leaves GOMAXPROCS as
// it is: Main's process exits next, and giving the P back would stop the
// world once more for nothing (about 3 % of a tiny run).
func (l *processorLimit) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
}

// release restores the runtime's default GOMAXPROCS if the limit is in
// force. A nil *processorLimit (a run outside Main) has nothing to
// release.
func (l *processorLimit) release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lowered {
		return
	}
	l.lowered = false
	l.timer.Stop()
	runtime.SetDefaultGOMAXPROCS()
}
