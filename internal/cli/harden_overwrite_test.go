package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOverwriteAskWithoutTerminal runs --overwrite=ask (and 7-Zip's
// default) with stdin not a terminal, empty or holding answers nobody
// typed: existing files are skipped with a warning and the exit code is
// 1, as with --overwrite=never.
func TestOverwriteAskWithoutTerminal(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "a.7z")
	out := filepath.Join(dir, "out")
	garc(t, dir, "", "x", arc, "-o", out).expect(t, ExitOK, "first extraction")
	for _, stdin := range []string{"", "y\ny\ny\ny\ny\n"} {
		r := garc(t, dir, stdin, "x", "--overwrite=ask", arc, "-o", out)
		r.expect(t, ExitWarning, "--overwrite=ask, stdin "+strings.TrimSpace(stdin))
		if !strings.Contains(r.stderr, "file exists") {
			t.Errorf("no warning about the skipped files:\n%s", r.stderr)
		}
	}
}
