package cli

import (
	"fmt"
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

// TestSummaryWords runs a, d and x and reads their closing lines (issue
// 24, points 11 and 12): nouns in their number, no share of the content
// for a tiny input ("(1875.0 %)" before), an update said in plain words
// ("2 added, 14 kept, 13 unchanged skipped" before), and with -aos, -y
// -aos or --overwrite=skip neither "Everything is Ok: 0 files" nor the
// advice to add -y.
func TestSummaryWords(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"one.txt": "sixteen bytes!!\n"})
	r := garc(t, dir, "", "a", "one.7z", "one.txt")
	r.expect(t, ExitOK, "a one.7z")
	if !strings.HasPrefix(r.stderr, "1 file added (16 B); archive ") || strings.Contains(r.stderr, "%") {
		t.Errorf("a of one small file: %q", r.stderr)
	}
	writeTree(t, dir, map[string]string{"src/a.txt": "a", "src/b.txt": "b", "src/c.txt": "c"})
	garc(t, dir, "", "a", "t.7z", "src").expect(t, ExitOK, "a t.7z")
	writeTree(t, dir, map[string]string{"src/b.txt": "changed"})
	r = garc(t, dir, "", "a", "t.7z", "src/b.txt")
	r.expect(t, ExitOK, "a t.7z src/b.txt")
	if !strings.HasPrefix(r.stderr, "1 entry added or replaced (9 B compressed), 3 other entries kept; now 3 files and 1 folder (9 B); archive ") {
		t.Errorf("update: %q", r.stderr)
	}
	r = garc(t, dir, "", "d", "t.7z", "src/a.txt")
	r.expect(t, ExitOK, "d")
	if !strings.HasPrefix(r.stderr, "1 entry deleted") || !strings.Contains(r.stderr, "; now 2 files and 1 folder (8 B); archive ") {
		t.Errorf("d: %q", r.stderr)
	}

	garc(t, dir, "", "x", "t.7z", "-oout").expect(t, ExitOK, "x")
	for _, args := range [][]string{{"-aos"}, {"-y", "-aos"}, {"--overwrite=skip"}} {
		r = garc(t, dir, "", append(append([]string{"x"}, args...), "t.7z", "-oout")...)
		r.expect(t, ExitOK, fmt.Sprint("x ", args))
		if r.stderr != "Nothing extracted: 2 existing files kept\n" {
			t.Errorf("x %v: %q", args, r.stderr)
		}
	}
	r = garc(t, dir, "", "x", "t.7z", "-oout")
	r.expect(t, ExitWarning, "x again")
	if !strings.HasSuffix(r.stderr, "\n2 existing files kept: add -y to overwrite them, or --overwrite=rename to keep both\n") {
		t.Errorf("x again: %q", r.stderr)
	}
	r = garc(t, dir, "", "x", "-y", "t.7z", "-oout")
	r.expect(t, ExitOK, "x -y")
	if r.stderr != "Everything is Ok: 2 files, 1 folder, 8 bytes\n" {
		t.Errorf("x -y: %q", r.stderr)
	}
}
