package progress

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// testDisplay is a display on a terminal of cols() columns with the
// clock *clock, drawing into out.
func testDisplay(out io.Writer, cols func() int, clock *time.Time, ascii, dumb bool, total int64) *Display {
	return newDisplay(out, cols, func() time.Time { return *clock }, ascii, dumb, total)
}

// TestProgressRenderFits renders every layout at every width from 1 to
// 200 columns, with long, wide, hostile and no names, known, unknown and
// tiny totals: the line never exceeds the width, is ASCII outside UTF-8
// and carries no escape sequence.
func TestProgressRenderFits(t *testing.T) {
	names := []string{"", "a.txt", strings.Repeat("long/", 40) + "name.bin", "caf\u00e9/\u65e5\u672c\u8a9e.txt", "bad\x1b[2Jname"}
	clock := time.Unix(0, 0)
	for _, ascii := range []bool{false, true} {
		for _, total := range []int64{-1, 0, 8, 1 << 30} {
			for _, name := range names {
				p := testDisplay(io.Discard, nil, &clock, ascii, false, total)
				p.done, p.name = min(123<<20, max(total-1, 123<<20)), name
				if total == 8 {
					p.done = 8 // the last byte: the library's closing line
				}
				for width := 1; width <= 200; width++ {
					got := p.render(width, 7*time.Second)
					if n := uniseg.StringWidth(got); n > width {
						t.Fatalf("width %d, total %d, name %q: %d columns: %q", width, total, name, n, got)
					}
					if ascii && strings.IndexFunc(got, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
						t.Fatalf("ASCII display has %q", got)
					}
					if strings.ContainsRune(got, 0x1b) {
						t.Fatalf("escape sequence in the line: %q", got)
					}
				}
			}
		}
	}
}

// TestProgressRenderContent checks what the library draws for garc: the
// percentage, bar, bytes done and total, speed and time left, then the
// entry's name; narrower, the bytes and speed go first and the name
// stays; an unknown total has a spinner instead of bar and percentage.
func TestProgressRenderContent(t *testing.T) {
	clock := time.Unix(0, 0)
	p := testDisplay(io.Discard, nil, &clock, false, false, 100<<20)
	p.done, p.name = 25<<20, "dir/file.bin"
	got := p.render(120, 10*time.Second)
	for _, want := range []string{" 25% [███████░", "░] (25/100 MiB, ", "/s) [", "s:", "s] dir/file.bin"} {
		if !strings.Contains(got, want) {
			t.Errorf("render = %q, lacks %q", got, want)
		}
	}
	if got := p.render(120, 0); strings.Contains(got, "s:") {
		t.Errorf("time left before the first second: %q", got)
	}
	// Narrow: the name, percentage and time left stay, the bytes and
	// speed go first.
	got = p.render(50, 10*time.Second)
	if !strings.Contains(got, "25%") || strings.Contains(got, "/s") || !strings.Contains(got, "s:") || !strings.HasSuffix(got, "dir/file.bin") {
		t.Errorf("render(50) = %q", got)
	}
	// A long name is shortened from the left. The library measures the
	// speed with the real clock, so its width (and the name's cut, at a
	// "d" or a "/") depends on how fast the test runs.
	p.name = strings.Repeat("d/", 60) + "end.bin"
	if got := p.render(80, 10*time.Second); !(strings.Contains(got, "] …d/d/") || strings.Contains(got, "] …/d/d/")) || !strings.HasSuffix(got, "d/end.bin") || uniseg.StringWidth(got) < 78 || uniseg.StringWidth(got) > 80 {
		t.Errorf("long name: %q", got)
	}
	p = testDisplay(io.Discard, nil, &clock, true, false, 100<<20)
	p.done = 25 << 20
	if got := p.render(120, 10*time.Second); !strings.Contains(got, "[#######-") {
		t.Errorf("ASCII bar: %q", got)
	}
	p.done = 100 << 20
	if got := p.render(120, 10*time.Second); !strings.HasPrefix(got, "100% [####") {
		t.Errorf("done: %q", got)
	}
	// Unknown total: a spinner, the bytes and speed, the time taken.
	p = testDisplay(io.Discard, nil, &clock, false, false, -1)
	p.done, p.name = 3<<20, "x"
	if got := p.render(80, 2*time.Second); !strings.HasPrefix(got, "| (3.0 MiB, ") || !strings.HasSuffix(got, "s] x") {
		t.Errorf("unknown total: %q", got)
	}
}

// TestProgressFollowsResize draws, narrows the terminal and draws again:
// the width is measured at every redraw.
func TestProgressFollowsResize(t *testing.T) {
	for _, dumb := range []bool{false, true} {
		var out bytes.Buffer
		cols := 100
		clock := time.Unix(0, 0)
		p := testDisplay(&out, func() int { return cols }, &clock, false, dumb, 1<<20)
		p.name = strings.Repeat("n", 200)
		p.draw()
		cols = 40
		clock = clock.Add(time.Second)
		p.add(512 << 10)
		p.Finish()
		p.Set(1<<20, "after finish") // draws nothing
		lines := strings.Split(out.String(), "\r")
		if len(lines) < 3 {
			t.Fatalf("dumb %v: output %q", dumb, out.String())
		}
		if n := utf8.RuneCountInString(strings.TrimSuffix(lines[1], "\x1b[K")); n != 99 {
			t.Errorf("dumb %v: first line %d columns, want 99: %q", dumb, n, lines[1])
		}
		second := strings.TrimRight(strings.TrimSuffix(lines[2], "\x1b[K"), " ")
		if n := utf8.RuneCountInString(second); n > 39 || !strings.Contains(second, "50%") {
			t.Errorf("dumb %v: after the resize %d columns: %q", dumb, n, second)
		}
		if dumb == strings.Contains(out.String(), "\x1b") {
			t.Errorf("dumb %v: escape sequences %q", dumb, out.String())
		}
		if strings.Contains(out.String(), "after finish") {
			t.Errorf("dumb %v: drawn after finish: %q", dumb, out.String())
		}
	}
}

// holeReader reads "data" after a hole of 1 TiB, which SkipHole passes.
type holeReader struct {
	hole bool // passed
	done bool
}

func (h *holeReader) SkipHole() (int64, error) {
	if h.hole {
		return 0, nil
	}
	h.hole = true
	return 1 << 40, nil
}

func (h *holeReader) Read(p []byte) (int, error) {
	if !h.hole {
		return 0, errors.New("read inside the hole")
	}
	if h.done {
		return 0, io.EOF
	}
	h.done = true
	return copy(p, "data"), nil
}

// TestEntryKeepsHoleSkipping: the counting reader the display puts over
// a sparse entry's content lets the caller skip its holes (garc's
// progress display hid SkipHole, so x on a terminal read a 1 TiB hole
// as zeros) and counts a hole as done.
func TestEntryKeepsHoleSkipping(t *testing.T) {
	clock := time.Unix(0, 0)
	p := testDisplay(io.Discard, func() int { return 80 }, &clock, false, false, 1<<40+4)
	r, ok := p.Entry("sparse", &holeReader{}).(interface {
		io.Reader
		SkipHole() (int64, error)
	})
	if !ok {
		t.Fatal("the entry's reader cannot skip holes")
	}
	if n, err := r.SkipHole(); n != 1<<40 || err != nil {
		t.Fatalf("SkipHole: %d, %v", n, err)
	}
	if b, err := io.ReadAll(r); string(b) != "data" || err != nil {
		t.Fatalf("read %q, %v", b, err)
	}
	if p.done != 1<<40+4 {
		t.Errorf("done %d, want %d", p.done, int64(1<<40+4))
	}
	if _, ok := p.Entry("plain", bytes.NewReader(nil)).(interface{ SkipHole() (int64, error) }); ok {
		t.Error("a plain entry's reader has SkipHole")
	}
}

// chunkHoleReader is a holeReader that also lends its content in chunks.
type chunkHoleReader struct{ holeReader }

func (h *chunkHoleReader) ReadChunk() ([]byte, error) {
	if h.done {
		return nil, io.EOF
	}
	h.done = true
	return []byte("chunk"), nil
}

// TestEntryKeepsLending: over a content reader that lends its buffer (a
// tar entry's ReadChunk), the display's reader lends the same chunks and
// counts them, so that x on a terminal writes files without a copy; it
// still skips holes.
func TestEntryKeepsLending(t *testing.T) {
	clock := time.Unix(0, 0)
	p := testDisplay(io.Discard, func() int { return 80 }, &clock, false, false, 1<<40+5)
	r, ok := p.Entry("lent", &chunkHoleReader{}).(interface {
		ReadChunk() ([]byte, error)
		SkipHole() (int64, error)
	})
	if !ok {
		t.Fatal("the entry's reader does not lend chunks")
	}
	if n, err := r.SkipHole(); n != 1<<40 || err != nil {
		t.Fatalf("SkipHole: %d, %v", n, err)
	}
	if b, err := r.ReadChunk(); string(b) != "chunk" || err != nil {
		t.Fatalf("ReadChunk: %q, %v", b, err)
	}
	if b, err := r.ReadChunk(); len(b) != 0 || err != io.EOF {
		t.Fatalf("ReadChunk at the end: %q, %v", b, err)
	}
	if p.done != 1<<40+5 {
		t.Errorf("done %d, want %d", p.done, int64(1<<40+5))
	}
	if _, ok := p.Entry("sparse", &holeReader{}).(interface{ ReadChunk() ([]byte, error) }); ok {
		t.Error("the reader of an entry that lends nothing has ReadChunk")
	}
}
