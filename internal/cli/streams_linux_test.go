//go:build linux

package cli

import (
	"strings"
	"testing"
)

// clearedBefore reports whether the terminal output out erases the
// progress display between its last drawing and msg: the summary starts
// on a clean line instead of being glued to the bar.
func clearedBefore(out, msg string, dumb bool) bool {
	end := strings.Index(out, msg)
	if end < 0 {
		return false
	}
	last := strings.LastIndex(out[:end], "%")
	if last < 0 {
		return true // nothing drawn before it
	}
	clearSeq := "\r\x1b[K"
	if dumb {
		clearSeq = "   \r"
	}
	return strings.HasSuffix(out[last:end], clearSeq) || strings.HasSuffix(out[last:end], clearSeq+"\n")
}

// TestSummaryNotGluedToBar runs a, d, t and x on a terminal (issue 24,
// point 5): the progress display is cleared before every summary, so
// that "[░░░…]   0% 0 B/8 B1 file added" cannot happen.
func TestSummaryNotGluedToBar(t *testing.T) {
	for _, dumb := range []bool{false, true} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"x.txt": "8 bytes!", "y.txt": strings.Repeat("y", 5000)})
		var env []string
		if dumb {
			env = []string{"TERM=dumb"}
		}
		for _, tc := range []struct {
			args []string
			msg  string
		}{
			{[]string{"a", "t.7z", "x.txt"}, "1 file added"},
			{[]string{"a", "t.7z", "y.txt"}, "1 entry added or replaced"},
			{[]string{"d", "t.7z", "x.txt"}, "1 entry deleted"},
			{[]string{"t", "t.7z"}, "Testing archive"},
			{[]string{"x", "-y", "t.7z", "-oout"}, "Everything is Ok"},
		} {
			r := startPTYWith(t, dir, false, 80, env, tc.args...)
			if code := r.wait(t); code != ExitOK {
				t.Fatalf("%v: exit %d\n%q", tc.args, code, r.output())
			}
			out := r.output()
			if tc.args[0] != "d" && !strings.Contains(out, "%") { // d has no progress display
				t.Errorf("dumb %v %v: no progress drawn: %q", dumb, tc.args, out)
			}
			if !clearedBefore(out, tc.msg, dumb) {
				t.Errorf("dumb %v %v: the display is not cleared before %q: %q", dumb, tc.args, tc.msg, out)
			}
		}
	}
}

// TestNoProgressWithStdoutData runs x -so and p with stdout a pipe and
// stderr the terminal (issue 24, point 4): the bar would paint into a
// pager reading the data on the same terminal, so there is none unless
// asked for with -bsp2 (--progress=on) or --progress=always.
func TestNoProgressWithStdoutData(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/data.txt": strings.Repeat("progress ", 100000)})
	garc(t, dir, "", "a", "p.7z", "src").expect(t, ExitOK, "a")
	want := strings.Repeat("progress ", 100000)
	for _, tc := range []struct {
		args []string
		bar  bool
	}{
		{[]string{"x", "-so", "p.7z"}, false},
		{[]string{"p", "p.7z"}, false},
		{[]string{"x", "-so", "-bsp2", "p.7z"}, true},
		{[]string{"x", "-so", "--progress=on", "p.7z"}, true},
		{[]string{"p", "--progress=always", "p.7z"}, true},
		{[]string{"t", "p.7z"}, true}, // no data on stdout: drawn as before
	} {
		r := startPTY(t, dir, true, tc.args...)
		if code := r.wait(t); code != ExitOK {
			t.Fatalf("%v: exit %d\n%q", tc.args, code, r.output())
		}
		if got := strings.Contains(r.output(), "%"); got != tc.bar {
			t.Errorf("%v: progress drawn %v, want %v: %q", tc.args, got, tc.bar, r.output())
		}
		if tc.args[0] != "t" && r.stdout.String() != want {
			t.Errorf("%v: stdout is not the data alone (%d bytes)", tc.args, r.stdout.Len())
		}
	}
}
