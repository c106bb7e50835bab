package cli

import (
	"fmt"
	"io"
)

// garc's one rule for its two output streams: standard output carries only
// what the user asked to see, listings (l, lb) and file contents (x -so,
// p, a -so); everything else, the closing summaries of every command,
// notes, warnings, errors, prompts and the progress display, goes to
// standard error. A pipe or a file taking stdout gets data and nothing
// else, whatever the command; messages stay on the terminal when stdout is
// redirected. (7-Zip prints its messages on stdout and moves them to
// stderr with -so, so the same line changes stream with a switch.)

// messageWriter writes garc's messages on standard error, clearing the
// progress display before each write so that no message is glued to the
// bar.
type messageWriter struct{ a *app }

func (m messageWriter) Write(p []byte) (int, error) {
	m.a.prog.Clear()
	return m.a.stderr.Write(p)
}

// messages returns the writer of summaries and notes (standard error).
func (a *app) messages() io.Writer { return messageWriter{a} }

// progressMode returns the progress mode for progress.New: --progress,
// where "auto" draws nothing while stdout carries data (data: -so, p), so
// that the bar does not paint into a pager reading it on the same
// terminal, and "on" (7-Zip's -bsp2) is auto even then.
func (a *app) progressMode(data bool) string {
	switch {
	case a.g.progress == "on":
		return "auto"
	case a.g.progress == "auto" && data:
		return "never"
	}
	return a.g.progress
}

// plural returns "1 file", "2 files": n and the noun in its number.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// plural64 is plural for a count of bytes.
func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
