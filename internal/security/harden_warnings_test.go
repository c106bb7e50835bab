package security

import (
	"fmt"
	"strings"
	"testing"
)

// TestRepeatedWarningsCollapse extracts and tests an archive with 30
// entries that are refused or fail: the first ten diagnostics are
// printed, then one line counting the rest, and the exit code still
// reflects them all.
func TestRepeatedWarningsCollapse(t *testing.T) {
	var entries []entrySpec
	for i := 0; i < 30; i++ {
		entries = append(entries, entrySpec{name: fmt.Sprintf("../escape%02d.txt", i), content: "x"})
	}
	entries = append(entries, entrySpec{name: "ok.txt", content: "fine"})
	arc := make7z(t, entries)
	s := newSandbox(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 11 || !strings.Contains(lines[10], "20 more warnings and errors not shown") {
		t.Errorf("want 10 diagnostics and a count of 20 more, got %d lines:\n%s", len(lines), r.stderr)
	}
}
