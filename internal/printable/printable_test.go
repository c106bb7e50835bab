package printable

import (
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
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPrintable checks that String leaves no control character,
// bidirectional override or invalid UTF-8 in its output.
func FuzzPrintable(f *testing.F) {
	f.Add("evil\x1b[31m\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		p := String(s)
		if !utf8.ValidString(p) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, p)
		}
		for _, r := range p {
			if unsafeRune(r) {
				t.Fatalf("String(%q) = %q keeps U+%04X", s, p, r)
			}
		}
		if needsEscape(s) == (p == s) {
			t.Fatalf("String(%q) = %q disagrees with needsEscape", s, p)
		}
	})
}
