package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractSummary checks the closing lines of x on stderr: "Everything
// is Ok" with the counts after a clean run, silenced by -q; after a run
// that kept existing files, how to overwrite them.
func TestExtractSummary(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "a.7z")
	out := filepath.Join(dir, "out")
	r := garc(t, dir, "", "x", arc, "-o", out)
	r.expect(t, ExitOK, "x")
	if r.stderr != "Everything is Ok: 5 files, 3 folders, 9616 bytes\n" {
		t.Errorf("summary %q", r.stderr)
	}
	r = garc(t, dir, "", "x", "-q", arc, "-o", filepath.Join(dir, "quiet"))
	r.expect(t, ExitOK, "x -q")
	if r.stderr != "" {
		t.Errorf("-q printed %q", r.stderr)
	}
	r = garc(t, dir, "", "x", arc, "-o", out)
	r.expect(t, ExitWarning, "x again")
	if !strings.HasSuffix(r.stderr, "5 existing files kept: add -y to overwrite them, or --overwrite=rename to keep both\n") ||
		strings.Contains(r.stderr, "Everything is Ok") {
		t.Errorf("second run: %q", r.stderr)
	}
	r = garc(t, dir, "", "x", "-q", arc, "-o", out)
	if strings.Contains(r.stderr, "existing files kept") {
		t.Errorf("-q printed the hint: %q", r.stderr)
	}
}
