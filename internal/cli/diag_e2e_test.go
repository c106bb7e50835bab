package cli

// End-to-end tests of the diagnostics' one form, "garc: ARCHIVE: ENTRY:
// cause" (issue 12.7), for every command that selects entries or reads
// inputs.

import (
	"strings"
	"testing"
)

func TestDiagnosticForm(t *testing.T) {
	dir := t.TempDir()
	makeArchive(t, dir, "a.7z")
	noMatch := `garc: a.7z: no files matched the patterns: nothing matches "a.txt" (matches 1 below the top level: patterns start at the archive root; -r or **/ matches at any depth)` + "\n"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"x", "-oout", "a.7z", "a.txt"}, ExitNoMatch, noMatch},
		{[]string{"x", "-so", "a.7z", "a.txt"}, ExitNoMatch, noMatch},
		{[]string{"t", "a.7z", "a.txt"}, ExitNoMatch, "Testing archive: a.7z\n" + noMatch},
		{[]string{"l", "a.7z", "a.txt"}, ExitNoMatch, noMatch},
		{[]string{"d", "a.7z", "a.txt"}, ExitNoMatch, noMatch},
		{[]string{"x", "-oout", "a.7z", "out"}, ExitNoMatch,
			`garc: a.7z: no files matched the patterns: nothing matches "out" (if it is the destination directory, write it with a trailing / or as -o DIR)` + "\n"},
		{[]string{"a", "new.7z", "src", "missing.txt"}, ExitWarning,
			"garc: new.7z: missing.txt: no such file or directory\n"},
		{[]string{"a", "none.7z", "missing.txt"}, ExitNoMatch,
			"garc: none.7z: missing.txt: no such file or directory\ngarc: none.7z: nothing to add: no files matched the patterns\n"},
	} {
		what := strings.Join(tc.args, " ")
		r := garc(t, dir, "", append(tc.args, "-bd")...)
		r.expect(t, tc.code, what)
		if !strings.HasPrefix(r.stderr, tc.want) {
			t.Errorf("%s: stderr %q, want it to start with %q", what, r.stderr, tc.want)
		}
		for _, bad := range []string{"WARNING", "garc: a: ", "garc: d: ", ": skipped\n"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%s: stderr %q has %q", what, r.stderr, bad)
			}
		}
	}
}

// TestCreateProgressTotal checks that garc a's progress display knows the
// total input size: it shows a percentage and the total, not only the
// bytes done (issue 12.10).
func TestCreateProgressTotal(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.bin": strings.Repeat("abcdefgh", 1<<16), "src/b.txt": "b"})
	r := garc(t, dir, "", "a", "--progress=always", "out.7z", "src")
	r.expect(t, ExitOK, "a --progress=always")
	if !strings.Contains(r.stderr, "%") || !strings.Contains(r.stderr, "/512 KiB") {
		t.Errorf("a's progress lacks a percentage of the 512 KiB input: %q", r.stderr)
	}
}

// TestRootHelpCommands checks that garc --help lists every command word
// garc accepts, unrar's included.
func TestRootHelpCommands(t *testing.T) {
	r := garc(t, t.TempDir(), "", "--help")
	r.expect(t, ExitOK, "--help")
	for _, want := range []string{"\n  lb ", " v (= l)", "vt and lt (= l -slt)", "vb (= lb)", "p (= x -so)", "completion"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
