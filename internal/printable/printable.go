package printable

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// String makes a name or message from an archive safe to print on a
// terminal: control characters (C0, DEL, C1), Unicode bidirectional
// overrides and invalid UTF-8 are shown as Go escapes (\x1b, \r, \u202e…),
// so a hostile entry name cannot move the cursor, recolour the terminal
// or disguise itself. Text without such characters is returned as is.
func String(s string) string {
	if !needsEscape(s) {
		return s
	}
	return string(Append(make([]byte, 0, len(s)+16), s))
}

// Append appends String(s) to b.
func Append(b []byte, s string) []byte {
	if !needsEscape(s) {
		return append(b, s...)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b = append(b, '\\', 'x', "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&15])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b = append(b, q[1:len(q)-1]...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			// Slow path only for what might need it.
			for _, r := range s {
				if r == utf8.RuneError || unsafeRune(r) {
					return true
				}
			}
			return !utf8.ValidString(s)
		}
	}
	return false
}

// unsafeRune reports control characters and bidirectional formatting
// characters.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
