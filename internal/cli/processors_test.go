package cli

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// gcPercent returns GOGC.
func gcPercent() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// TestOnePhaseGC checks GOGC during the one-P phase: onePGCPercent, and
// as before after it, unless it was off or higher already.
func TestOnePhaseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.SetDefaultGOMAXPROCS()
	for _, tc := range []struct{ before, during int }{
		{100, onePGCPercent},
		{50, onePGCPercent},
		{-1, -1},
		{800, 800},
	} {
		debug.SetGCPercent(tc.before)
		l := limitProcessors(time.Hour)
		if got := gcPercent(); got != tc.during {
			t.Errorf("GOGC %d: %d during the phase, want %d", tc.before, got, tc.during)
		}
		l.release()
		if got := gcPercent(); got != tc.before {
			t.Errorf("GOGC %d: %d after the phase", tc.before, got)
		}
	}
}

// TestKeepOneP checks the end of the one-P phase for a run on one thread:
// GOMAXPROCS stays 1, also when the phase had ended already, and GOGC is
// as before.
func TestKeepOneP(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.SetDefaultGOMAXPROCS()
	for _, ended := range []bool{false, true} {
		runtime.SetDefaultGOMAXPROCS()
		debug.SetGCPercent(100)
		l := limitProcessors(time.Hour)
		if ended {
			l.release()
		}
		l.keepOneP()
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Errorf("phase ended %v: GOMAXPROCS %d after keepOneP, want 1", ended, got)
		}
		if got := gcPercent(); got != 100 {
			t.Errorf("phase ended %v: GOGC %d after keepOneP, want 100", ended, got)
		}
		l.release() // after keepOneP, release leaves GOMAXPROCS alone
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Errorf("phase ended %v: GOMAXPROCS %d after release, want 1", ended, got)
		}
	}
	var none *processorLimit
	none.keepOneP() // a run outside Main
}

// TestLimitProcessors checks Main's one-P phase: GOMAXPROCS is 1 until
// the timer or release gives the default back; a run of t keeps the one
// P, one on several threads (--threads 2, a, d) releases it at once, and
// a or d with --threads 1 keeps it to the end.
func TestLimitProcessors(t *testing.T) {
	defer runtime.SetDefaultGOMAXPROCS()
	runtime.SetDefaultGOMAXPROCS()
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 {
		l := limitProcessors(time.Hour)
		if l.lowered {
			t.Error("with one CPU there is nothing to limit")
		}
		l.release()
		t.Skip("one CPU: GOMAXPROCS is 1 anyway")
	}

	l := limitProcessors(time.Hour)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d during the one-P phase, want 1", got)
	}
	l.release()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Fatalf("GOMAXPROCS %d after release, want the default %d", got, procs)
	}
	l.release() // a second release changes nothing
	var none *processorLimit
	none.release() // a run outside Main

	l = limitProcessors(0) // the timer gives the default back
	for deadline := time.Now().Add(time.Minute); runtime.GOMAXPROCS(0) == 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Fatalf("GOMAXPROCS %d after the timer, want %d", got, procs)
	}
	l.stop()

	sample := filepath.Join("..", "..", "testdata", "sample.7z")
	for _, tc := range []struct {
		args  []string
		procs int
	}{
		{[]string{"t", sample}, 1},
		{[]string{"l", sample}, 1},
		{[]string{"t", "--threads", "2", sample}, procs},
		{[]string{"t", "-mmt4", sample}, procs},
		{[]string{"d", filepath.Join(t.TempDir(), "missing.7z"), "x"}, procs},
		// One thread asked for: one P for the whole run.
		{[]string{"d", "--threads", "1", filepath.Join(t.TempDir(), "missing.7z"), "x"}, 1},
		{[]string{"a", "-mmt1", filepath.Join(t.TempDir(), "new.7z"), sample}, 1},
		{[]string{"a", filepath.Join(t.TempDir(), "new.7z"), sample}, procs},
	} {
		runtime.SetDefaultGOMAXPROCS() // as a new process starts
		l := limitProcessors(time.Hour)
		runLimited(context.Background(), l, tc.args, strings.NewReader(""), io.Discard, io.Discard)
		if got := runtime.GOMAXPROCS(0); got != tc.procs {
			t.Errorf("%q: GOMAXPROCS %d after the run, want %d", tc.args, got, tc.procs)
		}
		l.release()
	}
}

// TestOnePhaseCPUTime checks that the one-P phase ends when the run has
// used its budget of CPU time, not when the clock has passed it: with the
// CPU time held below the budget, GOMAXPROCS stays 1 and GOGC
// onePGCPercent however often the timer looks; once the budget is used,
// both come back. The CPU time the process used before the phase started
// (its start-up, about 15 ms, more than onePDuration) does not count.
func TestOnePhaseCPUTime(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.SetDefaultGOMAXPROCS()
	defer func(f func() (time.Duration, bool)) { cpuTime = f }(cpuTime)
	runtime.SetDefaultGOMAXPROCS()
	procs := runtime.GOMAXPROCS(0)
	const budget = time.Millisecond
	const startUp = 20 * budget // used before the phase
	looks := make(chan time.Duration)
	var used atomic.Int64 // what cpuTime reports
	used.Store(int64(startUp))
	cpuTime = func() (time.Duration, bool) {
		u := time.Duration(used.Load())
		select {
		case looks <- u:
		default:
		}
		return u, true
	}
	l := limitProcessors(budget)
	defer l.stop()
	ended := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return !l.lowered && !l.gcRaised
	}
	for n := 0; n < 3; { // the timer looks, finds the budget unused and looks again
		select {
		case u := <-looks:
			if u != startUp {
				t.Fatalf("cpuTime reported %v, want %v", u, startUp)
			}
			n++
		case <-time.After(time.Millisecond):
			if ended() {
				t.Fatalf("the phase ended after %d looks with none of its budget used (the start-up's %v counted)", n, startUp)
			}
		}
	}
	l.mu.Lock()
	got, gc := runtime.GOMAXPROCS(0), gcPercent()
	l.mu.Unlock()
	if got != 1 || gc != onePGCPercent {
		t.Fatalf("budget unused: GOMAXPROCS %d, GOGC %d, want 1 and %d", got, gc, onePGCPercent)
	}
	used.Store(int64(startUp + budget))
	for deadline := time.Now().Add(time.Minute); gcPercent() != 100 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got, gc := runtime.GOMAXPROCS(0), gcPercent(); got != procs || gc != 100 {
		t.Errorf("budget used: GOMAXPROCS %d, GOGC %d, want %d and 100", got, gc, procs)
	}
}

// TestOnePhaseTimerFiresEarly checks a timer that looks before
// limitedProcessors has stored it (a loaded machine can hold the run's
// goroutine that long): expire, finding the budget unused, resets the
// timer it was started by instead of a nil one.
func TestOnePhaseTimerFiresEarly(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(f func() (time.Duration, bool)) { cpuTime = f }(cpuTime)
	cpuTime = func() (time.Duration, bool) { return time.Second, true } // never any of the budget used
	debug.SetGCPercent(100)
	for range 2000 {
		l := limitedProcessors(false, time.Nanosecond) // GOGC raised: the timer runs
		l.stop()
	}
}
