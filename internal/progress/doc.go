// Package progress draws garc's one-line progress display on stderr: a
// bar with the percentage, bytes done and total, speed, time left and the
// current entry, fitted to the terminal's width at every redraw (so that
// it follows resizes; the speed, then the sizes, then the time left are
// dropped first and the name is shortened from the left). With TERM=dumb
// it writes no escape sequence, only carriage returns and spaces; when the
// locale is not UTF-8 it is pure ASCII. Clear removes it before a message
// or prompt, Finish before a summary. In list mode (7-Zip's -bb1) it
// prints one line per file instead.
package progress
