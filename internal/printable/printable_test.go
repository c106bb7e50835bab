package printable

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
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
		// Every format character (Cf), not only the bidirectional
		// overrides; the line and paragraph separators; a real U+FFFD
		// is kept.
		"zw\u200bsp\u200c\u200d\u2060": `zw\u200bsp\u200c\u200d\u2060`,
		"mark\u200e\u200f\u061c":       `mark\u200e\u200f\u061c`,
		"iso\u2066\u2067\u2068\u2069":  `iso\u2066\u2067\u2068\u2069`,
		"emb\u202a\u202b\u202c\u202d":  `emb\u202a\u202b\u202c\u202d`,
		"bom\ufeffsoft\u00adhy":        `bom\ufeffsoft\u00adhy`,
		"tag\U000e0041\U000e007f":      `tag\U000e0041\U000e007f`,
		"ls\u2028ps\u2029":             `ls\u2028ps\u2029`,
		"csi\u009b\u0085nel":           `csi\u009b\u0085nel`,
		"repl\ufffd":                   "repl\ufffd",
		"\xe2\x80 cut":                 `\xe2\x80 cut`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPrintable checks that String leaves no Unsafe character or
// invalid UTF-8 in its output, and that Writer leaves none but line
// feeds.
func FuzzPrintable(f *testing.F) {
	f.Add("evil\x1b[31m\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		p := String(s)
		if !utf8.ValidString(p) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, p)
		}
		for _, r := range p {
			if Unsafe(r) {
				t.Fatalf("String(%q) = %q keeps U+%04X", s, p, r)
			}
		}
		if needsEscape(s) == (p == s) {
			t.Fatalf("String(%q) = %q disagrees with needsEscape", s, p)
		}
		var b bytes.Buffer
		if n, err := NewWriter(&b).Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
		// A line feed is never part of a longer encoding: the Writer
		// escapes each line as String does.
		lines, want := strings.Split(b.String(), "\n"), strings.Split(s, "\n")
		for i := range lines {
			if len(lines) != len(want) || lines[i] != String(want[i]) {
				t.Fatalf("Writer: %q gives %q", s, b.String())
			}
		}
	})
}

// TestUnsafe checks the category boundaries: controls, format characters
// and separators are unsafe; printable text, combining marks, spaces and
// private use are not.
func TestUnsafe(t *testing.T) {
	for _, r := range []rune{0, '\t', '\n', 0x1b, 0x7f, 0x80, 0x9b, 0x9f, 0xad, 0x600, 0x61c, 0x6dd, 0x180e,
		0x200b, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2060, 0x2064, 0x2066, 0x2069, 0x206f, 0xfeff, 0xfff9, 0x110bd, 0xe0001, 0xe007f} {
		if !Unsafe(r) {
			t.Errorf("Unsafe(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 0xa0, 0xe9, 0x301, 0x3000, 0x65e5, 0xfffd, 0xe000, 0x1f600} {
		if Unsafe(r) {
			t.Errorf("Unsafe(%U) = true", r)
		}
	}
}

// TestWriter checks the guard the listings write through: line feeds
// kept, everything else String escapes escaped, the caller's length
// returned, the underlying error passed on.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if NewWriter(w) != w {
		t.Error("NewWriter wraps a Writer again")
	}
	for _, s := range []string{"plain line\n", "Path = evil\x1b]0;title\a\u202etxt.exe\r\n", "bad \xff\n", "\u65e5\u672c\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	want := "plain line\nPath = evil\\x1b]0;title\\a\\u202etxt.exe\\r\nbad \\xff\n\u65e5\u672c\n"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	broken := errors.New("broken pipe")
	if n, err := NewWriter(failWriter{broken}).Write([]byte("\x1b")); n != 0 || !errors.Is(err, broken) {
		t.Errorf("failing write: %d, %v", n, err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }
