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

	"golang.org/x/term"

	"github.com/garc-dev/garc/internal/printable"
)

// Display draws a one-line progress display on stderr: a bar with the
// percentage, bytes done, speed, time left and the current entry's name.
// It fits the terminal's width, measured at every redraw so that it
// follows resizes; it writes no escape sequence when TERM=dumb (only
// carriage returns and spaces) and only ASCII when the locale is not
// UTF-8. A nil *Display draws nothing.
type Display struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int // columns of the terminal
	now   func() time.Time
	ascii bool // the locale is not UTF-8
	dumb  bool // TERM=dumb: no escape sequences

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

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// New returns a progress display for total bytes (-1: unknown),
// or nil when progress is off: -q, --progress=never, or --progress=auto
// with stderr not a terminal.
func New(mode string, quiet bool, stderr io.Writer, total int64) *Display {
	switch {
	case quiet || mode == "never":
		return nil
	case mode == "list":
		return &Display{list: stderr}
	case mode == "auto" && !isTerminal(stderr):
		return nil
	}
	p := &Display{
		w:     stderr,
		width: func() int { return terminalWidth(stderr) },
		now:   time.Now,
		ascii: !utf8Locale(),
		dumb:  os.Getenv("TERM") == "dumb",
		total: total,
	}
	p.start = p.now()
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
	return p
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

// erase clears the line the display is on.
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

// draw writes the display over the current line.
func (p *Display) draw() {
	now := p.now()
	p.drawn = now
	line := p.render(p.width()-1, now.Sub(p.start)) // the last column would wrap on some terminals
	n := utf8.RuneCountInString(line)
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

// render returns the display for width columns after elapsed time:
// "[####------]  42% 12.3 MiB/29.1 MiB 5.2 MiB/s ETA 0:03 dir/name". The
// parts that do not fit are left out, least useful first (speed, sizes,
// time left), and the name is shortened from the left; with an unknown
// total there is no bar, percentage or time left.
func (p *Display) render(width int, elapsed time.Duration) string {
	if width < 1 {
		return ""
	}
	var pct, sizes, speed, eta string
	sizes = HumanBytes(p.done)
	if secs := elapsed.Seconds(); secs >= 1 && p.done > 0 {
		rate := float64(p.done) / secs
		speed = HumanBytes(int64(rate)) + "/s"
		if p.total > 0 && p.done < p.total {
			eta = "ETA " + clock(time.Duration(float64(p.total-p.done)/rate*float64(time.Second)))
		}
	}
	known := p.total > 0
	if known {
		pct = fmt.Sprintf("%3d%%", int(p.fraction()*100))
		sizes += "/" + HumanBytes(p.total)
	}
	name := p.displayName()
	layouts := [][]string{
		{pct, sizes, speed, eta},
		{pct, sizes, eta},
		{pct, eta},
		{pct},
	}
	if !known {
		layouts = [][]string{{sizes, speed}, {sizes}}
	}
	barWidth := 0
	if known {
		barWidth = min(30, max(width/4, 5))
	}
	// The first layout that leaves the name 16 columns, else the first
	// that fits at all, without the name.
	for _, withName := range []bool{name != "", false} {
		for _, fields := range layouts {
			head := joinNonEmpty(fields)
			n := utf8.RuneCountInString(head)
			if barWidth > 0 {
				n += barWidth + 3 // "[", "]" and a space
			}
			room := width - n - 1
			if n > width || withName && room < 16 {
				continue
			}
			var b strings.Builder
			if barWidth > 0 {
				b.WriteString(p.bar(barWidth))
				b.WriteByte(' ')
			}
			b.WriteString(head)
			if withName {
				b.WriteByte(' ')
				b.WriteString(p.shorten(name, room))
			}
			return b.String()
		}
	}
	// Narrower than the bar: the percentage or the size alone.
	s := strings.TrimSpace(pct)
	if s == "" {
		s = sizes
	}
	return p.shorten(s, width)
}

// fraction is the part done, 0 to 1.
func (p *Display) fraction() float64 {
	if p.total <= 0 {
		return 0
	}
	return min(float64(p.done)/float64(p.total), 1)
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

// joinNonEmpty joins the non-empty strings with spaces.
func joinNonEmpty(parts []string) string {
	var b strings.Builder
	for _, s := range parts {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// bar returns the bar between brackets, width cells inside.
func (p *Display) bar(width int) string {
	full, empty := "█", "░"
	if p.ascii {
		full, empty = "#", "-"
	}
	n := int(float64(width) * p.fraction())
	return "[" + strings.Repeat(full, n) + strings.Repeat(empty, width-n) + "]"
}

// shorten keeps the end of s after an ellipsis when s is wider than
// width columns.
func (p *Display) shorten(s string, width int) string {
	rs := []rune(s)
	if len(rs) <= width {
		return s
	}
	ell := "…"
	if p.ascii {
		ell = "..."
	}
	keep := width - utf8.RuneCountInString(ell)
	if keep <= 0 {
		return string(rs[len(rs)-width:])
	}
	return ell + string(rs[len(rs)-keep:])
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

// clock formats a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
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
