package printable

import (
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// String makes a name or message from an archive safe to print on a
// terminal: every Unsafe character (controls, bidirectional and other
// invisible format characters, line and paragraph separators) and every
// byte that is not valid UTF-8 are shown as Go escapes (\x1b, \r, \u202e,
// \U000e0041, \xff), so a hostile entry name cannot move the cursor,
// recolour the terminal, forge a line or disguise itself. Text without
// such characters is returned as is.
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
	return appendEscaped(b, s, false)
}

// appendEscaped appends s with its Unsafe characters and invalid bytes
// escaped; with keepLF the line feed is kept.
func appendEscaped(b []byte, s string, keepLF bool) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b = append(b, '\\', 'x', "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&15])
		case r == '\n' && keepLF:
			b = append(b, '\n')
		case Unsafe(r):
			var q [16]byte
			e := strconv.AppendQuoteRuneToASCII(q[:0], r)
			b = append(b, e[1:len(e)-1]...)
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
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			// Slow path only for what might need it.
			for j, r := range s[i:] {
				if Unsafe(r) || r == utf8.RuneError && !validAt(s, i+j) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// validAt reports whether s holds a valid encoding at i (U+FFFD itself).
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size > 1
}

// Unsafe reports whether r must not reach a terminal as it is: a
// control character (C0, DEL and C1, Unicode's category Cc), a format
// character (category Cf: the bidirectional embeddings, overrides and
// isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and
// U+061C, the zero-width U+200B–U+200D and U+2060, the byte order mark
// U+FEFF, the soft hyphen, the tag characters…) or the line and
// paragraph separators U+2028 and U+2029. Such characters can move the
// cursor, start a terminal command, forge a line, or make a name
// display as another ("txt.exe" shown as "exe.txt"). The JSON listing
// escapes the same characters.
func Unsafe(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	return r < 0xa0 || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Writer escapes what is written through it as String does, except the
// line feed, which it keeps: whatever a caller writes, no control or
// format character reaches the underlying writer. The listings write all
// their text through one, as a guard behind the escaping of each value
// (which also escapes the line feed, so a value cannot forge a line).
// A multi-byte character split between two writes is shown escaped.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	if g, ok := w.(*Writer); ok {
		return g
	}
	return &Writer{w: w}
}

// Write writes p with its Unsafe characters other than the line feed
// and its invalid bytes escaped, and returns len(p) when all of it was
// written.
func (w *Writer) Write(p []byte) (int, error) {
	if safeLines(p) {
		return w.w.Write(p)
	}
	w.buf = appendEscaped(w.buf[:0], string(p), true)
	if _, err := w.w.Write(w.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// safeLines reports whether p is valid UTF-8 without Unsafe characters
// other than the line feed.
func safeLines(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}
