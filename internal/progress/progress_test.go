package progress

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestProgressRenderFits(t *testing.T) {
	names := []string{"", "a.txt", strings.Repeat("long/", 40) + "name.bin", "caf\u00e9/\u65e5\u672c\u8a9e.txt", "bad\x1b[2Jname"}
	for _, ascii := range []bool{false, true} {
		for _, total := range []int64{-1, 0, 1 << 30} {
			for _, name := range names {
				for width := 1; width <= 200; width++ {
					p := &Display{ascii: ascii, total: total, done: 123 << 20, name: name}
					got := p.render(width, 7*time.Second)
					if n := utf8.RuneCountInString(got); n > width {
						t.Fatalf("width %d, total %d, name %q: %d columns: %q", width, total, name, n, got)
					}
					if ascii && strings.IndexFunc(got, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
						t.Fatalf("ASCII display has %q", got)
					}
					if strings.ContainsRune(got, 0x1b) {
						t.Fatalf("escape sequence from the name: %q", got)
					}
				}
			}
		}
	}
}

func TestProgressRenderContent(t *testing.T) {
	p := &Display{total: 100 << 20, done: 25 << 20, name: "dir/file.bin"}
	got := p.render(120, 10*time.Second)
	for _, want := range []string{" 25%", "25.0 MiB/100.0 MiB", "2.5 MiB/s", "ETA 0:30", "dir/file.bin", "[███████░"} {
		if !strings.Contains(got, want) {
			t.Errorf("render = %q, lacks %q", got, want)
		}
	}
	// Narrow: the name and percentage stay, the speed goes first.
	got = p.render(50, 10*time.Second)
	if !strings.Contains(got, "25%") || strings.Contains(got, "/s") || !strings.Contains(got, "file.bin") {
		t.Errorf("render(50) = %q", got)
	}
	p.ascii = true
	if got := p.render(120, 10*time.Second); !strings.Contains(got, "[#######-") {
		t.Errorf("ASCII bar: %q", got)
	}
	// Unknown total (no percentage or time left).
	p = &Display{total: -1, done: 3 << 20, name: "x"}
	if got := p.render(80, 2*time.Second); got != "3.0 MiB 1.5 MiB/s x" {
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
		p := &Display{w: &out, width: func() int { return cols }, now: func() time.Time { return clock },
			dumb: dumb, total: 1 << 20, start: clock, name: strings.Repeat("n", 200)}
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
			t.Errorf("dumb %v: first line %d columns, want 99", dumb, n)
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
	p := &Display{w: io.Discard, width: func() int { return 80 }, now: func() time.Time { return clock }, total: 1<<40 + 4, start: clock}
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
