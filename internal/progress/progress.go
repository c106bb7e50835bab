package progress

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/garc-dev/garc/internal/printable"
)

// Display draws a one-line progress display on stderr: a bar with the
// percentage, bytes done and total, speed, time left and the current
// entry's name, rendered by github.com/schollz/progressbar/v3 and written
// by the Display (see the package documentation for the split). It fits
// the terminal's width, measured at every redraw so that it follows
// resizes; it writes no escape sequence when TERM=dumb or on a Windows
// console that has no virtual-terminal processing (only carriage returns
// and spaces; escapesWork switches it on where it can), and only ASCII
// when the locale is not UTF-8 (always on Windows). A nil
// *Display draws nothing.
type Display struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int // columns of the terminal
	now   func() time.Time
	ascii bool // the locale is not UTF-8
	dumb  bool // TERM=dumb: no escape sequences

	// full renders the line with the bytes done and total and the
	// speed, lean without them; each renders into io.Discard, and draw
	// writes the richest line that fits.
	full, lean *progressbar.ProgressBar

	total int64 // -1: unknown
	done  int64
	name  string
	start time.Time
	drawn time.Time // last redraw
	shown int       // width of the line on the terminal (0: none)

	// list, for --progress=list (7-Zip's -bb1, --verbose), receives one
	// line per file instead of a bar: "- NAME" extracted or tested, "+
	// NAME" added.
	list     io.Writer
	lastName string
}

// redrawInterval is the shortest time between two redraws.
const redrawInterval = 100 * time.Millisecond

// minName is the fewest columns the entry's name is shortened to; with
// less room it is left out.
const minName = 16

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// ShowsBar reports whether New draws a bar, which shows the total: not
// with -q, --progress=never or list, nor with auto when stderr is not a
// terminal.
func ShowsBar(mode string, quiet bool, stderr io.Writer) bool {
	switch {
	case quiet || mode == "never" || mode == "list":
		return false
	case mode == "auto":
		return isTerminal(stderr)
	}
	return true
}

// New returns a progress display for total bytes (-1: unknown),
// or nil when progress is off: -q, --progress=never, or --progress=auto
// with stderr not a terminal.
func New(mode string, quiet bool, stderr io.Writer, total int64) *Display {
	if mode == "list" && !quiet {
		return &Display{list: stderr}
	}
	if !ShowsBar(mode, quiet, stderr) {
		return nil
	}
	// Plain text (no escape sequences) for TERM=dumb and for a Windows
	// console without virtual-terminal processing (escapesWork).
	dumb := os.Getenv("TERM") == "dumb" || !escapesWork(stderr)
	p := newDisplay(stderr, func() int { return terminalWidth(stderr) }, time.Now, !utf8Locale(), dumb, total)
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
	return p
}

// newDisplay returns a display writing to w on a terminal width() columns
// wide, with the clock now.
func newDisplay(w io.Writer, width func() int, now func() time.Time, ascii, dumb bool, total int64) *Display {
	p := &Display{w: w, width: width, now: now, ascii: ascii, dumb: dumb, total: total}
	p.full, p.lean = p.newBar(true), p.newBar(false)
	p.start = p.now()
	return p
}

// newBar returns a progress bar rendering into io.Discard, with the bytes
// and speed (count) or without. The entry's name is its description, at
// the end of the line; the options render and draw change per redraw
// are applied there.
func (p *Display) newBar(count bool) *progressbar.ProgressBar {
	theme := progressbar.Theme{Saucer: "█", SaucerPadding: "░", BarStart: "[", BarEnd: "]"}
	if p.ascii {
		theme = progressbar.Theme{Saucer: "#", SaucerPadding: "-", BarStart: "[", BarEnd: "]"}
	}
	limit := p.total
	if limit <= 0 {
		limit = -1 // unknown: a spinner instead of the bar
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(io.Discard),
		progressbar.OptionSetTheme(theme),
		progressbar.OptionUseANSICodes(false), // draw writes the line
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionShowBytes(count),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSpinnerType(9), // | / - \ in ASCII, turning every 100 ms
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
	}
	if count {
		opts = append(opts, progressbar.OptionShowCount())
	}
	return progressbar.NewOptions64(limit, opts...)
}

// terminalWidth returns the columns of the terminal w is, or $COLUMNS, or
// 80.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	var cols int
	if _, err := fmt.Sscan(os.Getenv("COLUMNS"), &cols); err == nil && cols > 0 {
		return cols
	}
	return 80
}

// utf8Locale reports whether the locale's character set is UTF-8 (the
// first of LC_ALL, LC_CTYPE and LANG that is set decides, as in C).
func utf8Locale() bool {
	if runtime.GOOS == "windows" {
		return false
	}
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if s := os.Getenv(v); s != "" {
			s = strings.ToLower(s)
			return strings.Contains(s, "utf-8") || strings.Contains(s, "utf8")
		}
	}
	return false
}

// Entry shows name as the current entry and returns r counting into the
// display.
func (p *Display) Entry(name string, r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	if p.list != nil {
		fmt.Fprintf(p.list, "- %s\n", printable.String(name))
		return r
	}
	p.mu.Lock()
	p.name = name
	p.maybeDraw()
	p.mu.Unlock()
	if _, ok := r.(holeSkipper); ok {
		if _, ok := r.(chunkReader); ok {
			return &chunkCountingReader{holeCountingReader{countingReader{r: r, p: p}}}
		}
		return &holeCountingReader{countingReader{r: r, p: p}}
	}
	return &countingReader{r: r, p: p}
}

// Set shows done bytes and the current name (for creation, where the
// writer counts).
func (p *Display) Set(done int64, current string) {
	if p == nil {
		return
	}
	if p.list != nil {
		if current != p.lastName && current != "" {
			p.lastName = current
			fmt.Fprintf(p.list, "+ %s\n", printable.String(current))
		}
		return
	}
	p.mu.Lock()
	p.done, p.name = done, current
	p.maybeDraw()
	p.mu.Unlock()
}

// add counts n more bytes done.
func (p *Display) add(n int64) {
	p.mu.Lock()
	p.done += n
	p.maybeDraw()
	p.mu.Unlock()
}

// Clear removes the display from the terminal so a message can be
// printed; the next update draws it again.
func (p *Display) Clear() {
	if p == nil || p.list != nil {
		return
	}
	p.mu.Lock()
	p.erase()
	p.mu.Unlock()
}

// Finish removes the display for good (before a summary or an error).
func (p *Display) Finish() {
	if p == nil || p.list != nil {
		return
	}
	p.mu.Lock()
	p.erase()
	p.w = io.Discard
	p.mu.Unlock()
}

// erase clears the line the display is on: spaces over the line drawn
// with TERM=dumb, else the escape sequence that erases to the end of the
// line.
func (p *Display) erase() {
	if p.shown == 0 {
		return
	}
	if p.dumb {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
	} else {
		io.WriteString(p.w, "\r\x1b[K")
	}
	p.shown = 0
}

// maybeDraw redraws when redrawInterval has passed since the last time.
func (p *Display) maybeDraw() {
	if p.now().Sub(p.drawn) >= redrawInterval {
		p.draw()
	}
}

// draw writes the display over the current line, measuring the terminal
// first: the last column is left free (it would wrap on some terminals).
func (p *Display) draw() {
	now := p.now()
	p.drawn = now
	line := p.render(p.width()-1, now.Sub(p.start))
	n := uniseg.StringWidth(line)
	if p.dumb {
		pad := ""
		if n < p.shown {
			pad = strings.Repeat(" ", p.shown-n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
	} else {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	}
	p.shown = max(n, 1)
}

// render returns the display for width columns after elapsed time: the
// library's line for the richest layout that fits, with the entry's name
// shortened from the left to the room left (at least minName columns,
// else without it). The layouts, richest first: bar, percentage, bytes
// done and total, speed and elapsed:left time; the same without the
// bytes and speed; bar and percentage. With an unknown total a spinner
// stands for the bar and percentage, and the times are the elapsed time
// only. The time left is shown from the first second on.
func (p *Display) render(width int, elapsed time.Duration) string {
	if width < 1 {
		return ""
	}
	known := p.total > 0
	shown := p.done
	if known {
		// The library stops rendering once at its maximum: the last
		// byte waits until the layout is chosen (finish).
		shown = min(shown, p.total-1)
	}
	p.full.Set64(shown)
	p.lean.Set64(shown)
	timed := elapsed >= time.Second && p.done > 0
	type layout struct {
		b     *progressbar.ProgressBar
		timed bool
	}
	layouts := []layout{{p.full, timed}, {p.lean, timed}, {p.lean, false}}
	barWidth := min(30, max(width/4, 5))
	name := p.displayName()
	for _, withName := range []bool{name != "", false} {
		for _, l := range layouts {
			desc := ""
			if withName {
				desc = name
			}
			line := p.renderWith(l.b, barWidth, l.timed, desc)
			n := uniseg.StringWidth(line)
			// The name gets the room the rest leaves; the speed may
			// change its width between two renders: a second try.
			for try := 0; try < 2 && n > width && withName; try++ {
				room := width - (n - uniseg.StringWidth(desc))
				if room < minName {
					break
				}
				desc = p.shorten(name, room)
				line = p.renderWith(l.b, barWidth, l.timed, desc)
				n = uniseg.StringWidth(line)
			}
			if n > width {
				continue
			}
			if known && p.done >= p.total {
				// The last byte: the library's own closing line, in
				// the layout chosen.
				l.b.Set64(p.done)
				if last := visible(l.b.String(), l.b.State().Description); uniseg.StringWidth(last) <= width {
					return last
				}
				break
			}
			return line
		}
	}
	// Narrower than the shortest layout: the percentage or the bytes
	// alone.
	s := HumanBytes(p.done)
	if known {
		s = fmt.Sprintf("%d%%", min(100*p.done/p.total, 100))
	}
	return p.shorten(s, width)
}

// renderWith has the library render b with a bar of barWidth cells, the
// times (elapsed and left, or with an unknown total elapsed) when timed,
// and desc at the end; it returns the line as it shows. The options are
// set on the bar already made (the library has no setters; an Option is
// a function of the bar, and the library has no goroutine rendering it
// meanwhile: see the package's documentation).
func (p *Display) renderWith(b *progressbar.ProgressBar, barWidth int, timed bool, desc string) string {
	progressbar.OptionSetWidth(barWidth)(b)
	// The library sizes the bar's fill when the count changes, for the
	// width set then: adding nothing sizes it for this width.
	b.Add64(0)
	progressbar.OptionSetDescription(desc)(b)
	if p.total > 0 {
		progressbar.OptionSetPredictTime(timed)(b)
	} else {
		progressbar.OptionSetElapsedTime(timed)(b)
	}
	b.RenderBlank()
	return visible(b.String(), desc)
}

// visible returns a line the library rendered, ending in desc, as it
// shows on the terminal: without its carriage return, the padding of the
// percentage to four digits (" 42%", "100%" stay aligned), the trailing
// space, and the double space an empty part leaves before desc.
func visible(s, desc string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), " ")
	s = strings.TrimRight(s, " ")
	head, ok := strings.CutSuffix(s, desc)
	if !ok {
		return s
	}
	for strings.Contains(head, "  ") {
		head = strings.ReplaceAll(head, "  ", " ")
	}
	return head + desc
}

// displayName is the current entry's name as it can be shown: escaped,
// and in ASCII when the locale is not UTF-8.
func (p *Display) displayName() string {
	name := printable.String(p.name)
	if !p.ascii {
		return name
	}
	return strings.Map(func(r rune) rune {
		if r >= utf8.RuneSelf {
			return '?'
		}
		return r
	}, name)
}

// shorten keeps the end of s after an ellipsis when s is wider than
// width columns.
func (p *Display) shorten(s string, width int) string {
	if uniseg.StringWidth(s) <= width {
		return s
	}
	ell := "…"
	if p.ascii {
		ell = "..."
	}
	keep := width - uniseg.StringWidth(ell)
	if keep <= 0 {
		ell, keep = "", width
	}
	rs := []rune(s)
	i, used := len(rs), 0
	for i > 0 {
		w := uniseg.StringWidth(string(rs[i-1]))
		if used+w > keep {
			break
		}
		used += w
		i--
	}
	return ell + string(rs[i:])
}

// HumanBytes formats n with binary units: 512 B, 1.5 KiB, 23.4 MiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

type countingReader struct {
	r io.Reader
	p *Display
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.p.add(int64(n))
	}
	return n, err
}

// holeSkipper is archive.HoleSkipper: the content reader of a sparse
// entry, which passes over its holes without reading them.
type holeSkipper interface {
	SkipHole() (int64, error)
}

// holeCountingReader is a countingReader over a reader that skips holes,
// which it lets the caller do (hiding SkipHole would make the holes read
// as zeros, at a cost in proportion to their size); a hole counts as
// done.
type holeCountingReader struct{ countingReader }

func (c *holeCountingReader) SkipHole() (int64, error) {
	n, err := c.r.(holeSkipper).SkipHole()
	if n > 0 {
		c.p.add(n)
	}
	return n, err
}

// chunkReader is archive.ChunkReader: a content reader that lends its own
// buffer (a tar entry's, over a compressed tar's read-ahead), whose
// chunks the extractor writes without copying them into a buffer of its
// own.
type chunkReader interface {
	ReadChunk() ([]byte, error)
}

// chunkCountingReader is a holeCountingReader that lends the chunks of
// the reader below, counting them, so that x on a terminal writes files
// straight from the decoder's buffers too.
type chunkCountingReader struct{ holeCountingReader }

func (c *chunkCountingReader) ReadChunk() ([]byte, error) {
	b, err := c.r.(chunkReader).ReadChunk()
	if len(b) > 0 {
		c.p.add(int64(len(b)))
	}
	return b, err
}
