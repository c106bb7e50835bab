package prompt

import "io"

// readLine reads one typed line, a byte at a time, from read (a
// terminal or console with echo off): it ends at a line feed (the
// carriage return before it, which a Windows console sends, is dropped),
// a backspace or DEL removes the last byte, and end of input (read
// returning no byte, or an error) ends it, with io.EOF when nothing was
// typed. eof, when not 0, is a byte that typed first on the line is end
// of input too: Ctrl-Z (0x1a) on a Windows console, whose line input
// passes it on as a byte.
func readLine(read func([]byte) (int, error), eof byte) ([]byte, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := read(b[:])
		switch {
		case n == 0 || err != nil:
			if err != nil && err != io.EOF {
				return nil, err
			}
			if len(line) > 0 {
				return line, nil
			}
			return nil, io.EOF
		case b[0] == '\n':
			if eof != 0 && len(line) > 0 && line[0] == eof {
				return nil, io.EOF
			}
			return line, nil
		case b[0] == '\r':
		case b[0] == '\b' || b[0] == 0x7f:
			if len(line) > 0 {
				line = line[:len(line)-1]
			}
		default:
			line = append(line, b[0])
		}
	}
}
