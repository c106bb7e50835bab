package cli

import (
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain/name.txt":         "plain/name.txt",
		"ünïcødé/名前.txt":         "ünïcødé/名前.txt",
		"evil\x1b[31mRED\x1b[0m": `evil\x1b[31mRED\x1b[0m`,
		"a\rb\nc\td":             `a\rb\nc\td`,
		"del\x7f":                `del\x7f`,
		"c1\u009b2J":             `c1\u009b2J`,
		"exe\u202etxt.exe":       `exe\u202etxt.exe`,
		"bad\xffutf8":            `bad\xffutf8`,
		"":                       "",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

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

func TestPrintableLines(t *testing.T) {
	for in, want := range map[string]string{
		"one line":                   "one line",
		"a\r\nb\n\n":                 "a\n  b",
		"x\x1b[2J\ny\rz\n":           `x\x1b[2J` + "\n  " + `y\rz`,
		"title\x1b]0;pwn\x07\r\nend": `title\x1b]0;pwn\a` + "\n  end",
	} {
		if got := printableLines(in); got != want {
			t.Errorf("printableLines(%q) = %q, want %q", in, got, want)
		}
	}
}
