// Package progress draws garc's one-line progress display on stderr: a
// bar with the percentage, bytes done and total, speed, time taken and
// left ("[3s:10s]") and the current entry, fitted to the terminal's
// width at every redraw (so that it follows resizes; the bytes and speed,
// then the times are dropped first and the name is shortened from the
// left). With TERM=dumb it writes no escape sequence, only carriage
// returns and spaces; when the locale is not UTF-8 it is pure ASCII
// ("[####----]"). Clear removes it before a message or prompt, Finish
// before a summary. In list mode (7-Zip's -bb1) it prints one line per
// file instead.
//
// The line is rendered by github.com/schollz/progressbar/v3: its bar and
// themes (garc's UTF-8 and ASCII ones), percentage, bytes in IEC units
// (OptionShowBytes, OptionShowCount), speed, the time left it predicts
// from its rolling rate (OptionSetPredictTime), the spinner of an unknown
// total and the name as its description at the end of the line
// (OptionShowDescriptionAtLineEnd). garc wraps it narrowly where the
// library cannot do what garc's display must:
//
//   - Fitting: the library fits a line to the terminal only by shortening
//     the bar (fitProgressBarWidth, OptionFullWidth), never the
//     description or the statistics, so a long entry name or a narrow
//     terminal wraps the line; and it measures the terminal only when it
//     writes to an *os.File itself. Display measures the terminal it draws
//     on at every redraw ($COLUMNS, then 80, when it is none), has the
//     library render the richest layout that fits (two bars: one with the
//     bytes and speed, one without, since OptionShowCount cannot be
//     undone), and gives the name the columns left, shortened from the
//     left, or leaves it out below 16.
//   - Writing and clearing: the bars render into io.Discard and Display
//     writes the line, "\r" and the line and "\x1b[K", or with TERM=dumb
//     the line padded with spaces over the previous one. Without ANSI
//     codes the library clears by padding to the widest line it ever
//     rendered (which wraps once the terminal is narrower, and counts
//     the layouts tried and dropped) and on Windows writes only "\r", so
//     Clear and Finish erase the line Display drew.
//   - Options are set per render on the bars already made (an Option is a
//     function of the bar; the library has no setters). Nothing of the
//     library renders in the meantime: v3.15.0 starts no goroutine (its
//     spinner turns with the time since the start), and every call is
//     under Display's mutex. The bar's fill is sized when the count
//     changes, so renderWith adds nothing after setting the width.
//   - garc requires v3.15.0, the last release without net/http: v3.18.0
//     added an HTTP server (StartHTTPServer), which links net/http,
//     crypto/tls and x509 into garc, whose initializers cost 16 % of the
//     CPU of `garc --version` (issue 27).
//   - The library stops rendering once its count reaches the maximum:
//     the last byte is counted only after the layout is chosen, and the
//     library's closing line ("100% …", without the times) is drawn.
//   - The time left appears from the first second on (before it the
//     library's rate is a guess), and the percentage keeps the library's
//     alignment less one space (" 42%", "100%").
package progress
