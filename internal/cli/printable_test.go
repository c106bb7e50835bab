package cli

import (
	"strings"
	"testing"
)

// TestListingEscapesControlCharacters runs the binary on an archive whose
// entry name carries terminal escape sequences: listings and diagnostics
// show them escaped, never raw.
func TestListingEscapesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	evil := "evil\x1b[31mRED\x1b[0m\rname.txt"
	writeTree(t, dir, map[string]string{evil: "data"})
	garc(t, dir, "", "a", "-q", "e.7z", evil).expect(t, ExitOK, "create")
	for _, args := range [][]string{{"l", "e.7z"}, {"l", "-slt", "e.7z"}, {"x", "e.7z", "-o", "out"}, {"x", "e.7z", "-o", "out"}} {
		r := garc(t, dir, "", args...)
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\r") {
			t.Errorf("garc %q printed raw control characters:\n%q\n%q", args, r.stdout, r.stderr)
		}
	}
}
