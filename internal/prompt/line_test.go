package prompt

import (
	"errors"
	"io"
	"testing"
)

// TestReadLine reads typed lines as a terminal (eof 0) and a Windows
// console (eof Ctrl-Z) deliver them, a byte at a time.
func TestReadLine(t *testing.T) {
	cases := []struct {
		typed string
		eof   byte
		want  string
		isEOF bool
	}{
		{"secret\n", 0, "secret", false},
		{"secret\r\n", 0x1a, "secret", false},
		{"sec\bx\x7fret\n", 0, "seret", false},
		{"\n", 0, "", false},
		{"", 0, "", true},
		{"partial", 0, "partial", false},
		{"\x1a\r\n", 0x1a, "", true},
		{"\x1a", 0x1a, "\x1a", false},         // no Enter yet: end of input keeps what was typed
		{"a\x1ab\r\n", 0x1a, "a\x1ab", false}, // not first on the line: a character
		{"\x1a\n", 0, "\x1a", false},          // on a terminal, a character
	}
	for _, c := range cases {
		in := []byte(c.typed)
		got, err := readLine(func(b []byte) (int, error) {
			if len(in) == 0 {
				return 0, io.EOF
			}
			b[0], in = in[0], in[1:]
			return 1, nil
		}, c.eof)
		if c.isEOF != errors.Is(err, io.EOF) || err != nil && !c.isEOF || string(got) != c.want {
			t.Errorf("%q (eof %#x): %q, %v; want %q, EOF %v", c.typed, c.eof, got, err, c.want, c.isEOF)
		}
	}
	boom := errors.New("read failed")
	if _, err := readLine(func([]byte) (int, error) { return 0, boom }, 0); !errors.Is(err, boom) {
		t.Errorf("a read error: %v", err)
	}
}
