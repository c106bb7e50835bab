package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws a byte progress bar with the current entry's name on
// stderr. A nil *progress draws nothing.
type progress struct {
	bar *progressbar.ProgressBar
	// list, for --progress=list (7-Zip's -bb1, --verbose), receives one
	// line per file instead of a bar: "- NAME" extracted or tested, "+
	// NAME" added.
	list     io.Writer
	lastName string
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a progress bar for total bytes (-1: unknown), or nil
// when progress is off: -q, --progress=never, or --progress=auto with
// stderr not a terminal.
func newProgress(mode string, quiet bool, stderr io.Writer, total int64) *progress {
	switch {
	case quiet || mode == "never":
		return nil
	case mode == "list":
		return &progress{list: stderr}
	case mode == "auto" && !isTerminal(stderr):
		return nil
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetRenderBlankState(true),
	)
	return &progress{bar: bar}
}

// entry shows name as the current entry and returns r counting into the
// bar.
func (p *progress) entry(name string, r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	if p.list != nil {
		fmt.Fprintf(p.list, "- %s\n", printable(name))
		return r
	}
	p.bar.Describe(shortName(printable(name)))
	return &countingReader{r: r, bar: p.bar}
}

// set shows done bytes and the current name (for creation, where the
// writer counts).
func (p *progress) set(done int64, current string) {
	if p == nil {
		return
	}
	if p.list != nil {
		if current != p.lastName && current != "" {
			p.lastName = current
			fmt.Fprintf(p.list, "+ %s\n", printable(current))
		}
		return
	}
	p.bar.Describe(shortName(printable(current)))
	p.bar.Set64(done)
}

// shortName keeps the last 40 characters of a name.
func shortName(name string) string {
	if rs := []rune(name); len(rs) > 40 {
		return "…" + string(rs[len(rs)-39:])
	}
	return name
}

// clear removes the bar from the terminal so a message can be printed.
func (p *progress) clear() {
	if p != nil && p.bar != nil {
		p.bar.Clear()
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}

type countingReader struct {
	r   io.Reader
	bar *progressbar.ProgressBar
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.bar.Add(n)
	}
	return n, err
}
