package cli

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
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

// TestLimitProcessors checks Main's one-P phase: GOMAXPROCS is 1 until
// the timer or release gives the default back; a run of t keeps the one
// P, one on several threads (--threads 2, a, d) releases it at once.
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
	} {
		l := limitProcessors(time.Hour)
		runLimited(context.Background(), l, tc.args, strings.NewReader(""), io.Discard, io.Discard)
		if got := runtime.GOMAXPROCS(0); got != tc.procs {
			t.Errorf("%q: GOMAXPROCS %d after the run, want %d", tc.args, got, tc.procs)
		}
		l.release()
	}
}
