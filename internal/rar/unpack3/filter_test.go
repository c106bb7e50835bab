package unpack3

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/filters"
)

// TestApplyFilters checks the dispatch of every standard filter kind, and
// chaining of two filters on the same block, against internal/filters.
func TestApplyFilters(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	in := make([]byte, 3000)
	rng.Read(in)
	for i := 0; i < len(in); i += 7 {
		in[i] = 0xe8
	}
	const start = 1000
	want := func(kind uint8, r0, r1 uint32, b []byte) []byte {
		out := make([]byte, len(b))
		switch kind {
		case fltE8, fltE8E9:
			copy(out, b)
			filters.RARE8(out, start, kind == fltE8E9)
		case fltItanium:
			copy(out, b)
			filters.RARItanium(out, start)
		case fltDelta:
			filters.RARDelta(out, b, int(r0))
		case fltRGB:
			if err := filters.RARRGB(out, b, int(r0), int(r1)); err != nil {
				t.Fatal(err)
			}
		case fltAudio:
			filters.RARAudio(out, b, int(r0))
		}
		return out
	}
	cases := []filterDesc{
		{kind: fltE8}, {kind: fltE8E9}, {kind: fltItanium},
		{kind: fltDelta, r0: 3}, {kind: fltRGB, r0: 303, r1: 2}, {kind: fltAudio, r0: 2},
	}
	d := NewDecoder()
	for _, c := range cases {
		c.start, c.length = start, int64(len(in))
		d.queue = append(d.queue[:0], c)
		d.qhead = 0
		d.fbuf = append(d.fbuf[:0], in...)
		if err := d.applyFilters(); err != nil {
			t.Fatalf("kind %d: %v", c.kind, err)
		}
		if !bytes.Equal(d.fout, want(c.kind, c.r0, c.r1, in)) {
			t.Errorf("kind %d: output differs", c.kind)
		}
	}
	// chained: delta then E8 on the same block
	a := filterDesc{start: start, length: int64(len(in)), kind: fltDelta, r0: 4}
	b := filterDesc{start: start, length: int64(len(in)), kind: fltE8}
	d.queue = append(d.queue[:0], a, b)
	d.qhead = 0
	d.fbuf = append(d.fbuf[:0], in...)
	if err := d.applyFilters(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.fout, want(fltE8, 0, 0, want(fltDelta, 4, 0, in))) {
		t.Error("chained filters differ")
	}
	if d.qhead != 2 {
		t.Errorf("qhead %d after chain", d.qhead)
	}
	// a bad RGB width is an error, not a panic
	d.queue = append(d.queue[:0], filterDesc{start: start, length: 10, kind: fltRGB, r0: 1 << 31, r1: 7})
	d.qhead = 0
	d.fbuf = append(d.fbuf[:0], in[:10]...)
	if err := d.applyFilters(); err == nil {
		t.Error("bad RGB parameters accepted")
	}
}

// TestMemBits checks the VM number coding.
func TestMemBits(t *testing.T) {
	cases := []struct {
		in   []byte
		want uint32
	}{
		{[]byte{0x2c}, 0xb},               // 00 1011
		{[]byte{0x40, 0x5c}, 0xffffff17},  // 01 0000 0001 0111
		{[]byte{0x4a, 0xb0}, 0x2a},        // 01 0010 1010 (non-zero high nibble)
		{[]byte{0x81, 0x23, 0x40}, 0x48d}, // 10 + 16 bits
		{[]byte{0xc0, 0, 0, 0, 0x40}, 1},  // 11 + 32 bits
	}
	for _, c := range cases {
		m := memBits{b: c.in}
		if got := m.number(); got != c.want || m.bad {
			t.Errorf("% x: got %#x (bad %v), want %#x", c.in, got, m.bad, c.want)
		}
	}
	m := memBits{b: []byte{0xc0}}
	m.number()
	if !m.bad {
		t.Error("overrun not reported")
	}
}
