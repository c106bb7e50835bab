package cli

import (
	"strings"
	"testing"
)

// TestOutputStreamRule checks garc's one rule for its output streams
// (issue 24, point 3): stdout carries only what was asked to be seen,
// listings and file contents, and every summary and message goes to
// stderr, for every command; with -so (or p) stdout holds the data and not
// a byte besides.
func TestOutputStreamRule(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": "alpha\n", "src/b.txt": "beta\n"})
	for _, tc := range []struct {
		args   []string
		stdout string // exactly; "*" (a listing, a tar): only that it is not empty
		stderr string // contained
	}{
		{[]string{"a", "t.7z", "src"}, "", "2 files and 1 folder added"},
		{[]string{"a", "t.7z", "src"}, "", "unchanged"},
		{[]string{"t", "t.7z"}, "", "Testing archive: t.7z\nEverything is Ok\n"},
		{[]string{"x", "t.7z", "-oout"}, "", "Everything is Ok: 2 files, 1 folder, 11 bytes\n"},
		{[]string{"e", "t.7z", "-oflat"}, "", "Everything is Ok: 2 files"},
		{[]string{"x", "-so", "t.7z", "src/a.txt"}, "alpha\n", ""},
		{[]string{"p", "t.7z", "src/b.txt"}, "beta\n", ""},
		{[]string{"l", "t.7z"}, "*", ""},
		{[]string{"lb", "t.7z"}, "src\nsrc/a.txt\nsrc/b.txt\n", ""},
		{[]string{"d", "t.7z", "src/b.txt"}, "", "1 entry deleted"},
		{[]string{"a", "t.zip", "src"}, "", "2 files and 1 folder added"},
		{[]string{"d", "t.zip", "src/b.txt"}, "", "1 entry deleted; now 1 file and 1 folder"},
		{[]string{"a", "-so", "-ttar", "-", "src"}, "*", "2 files and 1 folder added"},
	} {
		r := garc(t, dir, "", tc.args...)
		r.expect(t, ExitOK, strings.Join(tc.args, " "))
		switch {
		case tc.stdout == "*" && r.stdout == "":
			t.Errorf("%v: no listing on stdout", tc.args)
		case tc.stdout != "*" && r.stdout != tc.stdout:
			t.Errorf("%v: stdout %q, want %q", tc.args, r.stdout, tc.stdout)
		}
		if tc.stderr == "" && r.stderr != "" || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: stderr %q, want %q", tc.args, r.stderr, tc.stderr)
		}
	}
}
