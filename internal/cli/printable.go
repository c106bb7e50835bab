package cli

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable makes a name or message from an archive safe to print on a
// terminal: control characters (C0, DEL, C1), Unicode bidirectional
// overrides and invalid UTF-8 are shown as Go escapes (\x1b, \r, \u202e…),
// so a hostile entry name cannot move the cursor, recolour the terminal
// or disguise itself. Text without such characters is returned as is.
// JSON output needs no help: encoding/json escapes on its own.
func printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
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
