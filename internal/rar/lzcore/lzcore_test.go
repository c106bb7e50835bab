package lzcore

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// naive is a reference LZ output: append literals, copy matches byte by
// byte.
type naive []byte

func (n *naive) copy(dist, length int) {
	for range length {
		*n = append(*n, (*n)[len(*n)-dist])
	}
}

// drain reads every pending byte of the window.
func drain(w *Window) []byte {
	var out []byte
	for {
		b := w.Pending(1 << 30)
		if len(b) == 0 {
			return out
		}
		out = append(out, b...)
		w.Consume(len(b))
	}
}

func TestWindowCopy(t *testing.T) {
	var w Window
	defer w.Release()
	w.Reset(MinWindow)
	var ref naive
	var got []byte
	seed := uint32(1)
	rnd := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for w.Total() < 3*MinWindow {
		if w.Room() < 300 {
			got = append(got, drain(&w)...)
		}
		if rnd(3) == 0 || w.Total() == 0 {
			b := byte(rnd(256))
			w.PutByte(b)
			ref = append(ref, b)
			continue
		}
		dist := 1 + rnd(int(min(w.History(), 1000)))
		if rnd(4) == 0 {
			dist = 1 + rnd(int(w.History()))
		}
		length := 1 + rnd(260)
		if !w.Copy(dist, length) {
			t.Fatalf("Copy(%d, %d) refused with history %d", dist, length, w.History())
		}
		ref.copy(dist, length)
	}
	got = append(got, drain(&w)...)
	if !bytes.Equal(got, ref) {
		t.Fatal("window output differs from the reference")
	}
	if w.Copy(0, 1) || w.Copy(int(w.History())+1, 1) || w.Copy(w.Size()+1, 1) {
		t.Error("Copy accepted a distance outside the history")
	}
}

func TestWindowGrow(t *testing.T) {
	var w Window
	defer w.Release()
	w.Reset(MinWindow)
	for i := range MinWindow + 1000 {
		if w.Room() == 0 {
			drain(&w)
		}
		w.PutByte(byte(i * 7))
	}
	pending := w.Total() - w.ReadPos()
	w.Grow(4 * MinWindow)
	if w.Size() != 4*MinWindow {
		t.Fatalf("size %d", w.Size())
	}
	if w.History() != MinWindow {
		t.Fatalf("history %d after growing, want %d", w.History(), MinWindow)
	}
	for dist := 1; dist <= MinWindow; dist += 997 {
		want := byte((int(w.Total()) - dist) * 7)
		if w.Byte(dist) != want {
			t.Fatalf("byte %d back: %d, want %d", dist, w.Byte(dist), want)
		}
	}
	if got := int64(len(drain(&w))); got != pending {
		t.Fatalf("%d pending bytes after growing, want %d", got, pending)
	}
}

func TestBitReader(t *testing.T) {
	data := []byte{0xa5, 0x0f, 0xff, 0x00, 0x81}
	var r BitReader
	r.Reset(iotest.OneByteReader(bytes.NewReader(data)))
	if v := r.ReadBits(4); v != 0xa {
		t.Fatalf("got %x", v)
	}
	if v := r.ReadBits(12); v != 0x50f {
		t.Fatalf("got %x", v)
	}
	if v := r.ReadBits(24); v != 0xff0081 {
		t.Fatalf("got %x", v)
	}
	if r.Truncated() {
		t.Fatal("truncated at the end")
	}
	if r.BitsLeft() != 0 {
		t.Fatalf("%d bits left", r.BitsLeft())
	}
	if v := r.ReadBits(1); v != 0 || !r.Truncated() {
		t.Fatal("reading past the end not detected")
	}
}

func TestHuffman(t *testing.T) {
	// lengths 1, 2, 3, 3 and a 13-bit code past the quick table
	lengths := []byte{2, 1, 3, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13}
	var h Huffman
	h.Init(lengths)
	// canonical codes: sym1=0, sym0=10, sym2=110, sym4=1110, ...
	cases := []struct {
		bits uint64
		sym  int
		l    uint
	}{
		{0, 1, 1}, {0b10, 0, 2}, {0b110, 2, 3}, {0b1110, 4, 4},
		{0b1111111111110, 13, 13}, {0b1111111111111, 14, 13},
	}
	for _, c := range cases {
		v := c.bits << (64 - c.l)
		s, l := h.DecodeV(v)
		if s != c.sym || l != c.l {
			t.Errorf("%b: got %d/%d, want %d/%d", c.bits, s, l, c.sym, c.l)
		}
	}
	var empty Huffman
	empty.Init(make([]byte, 10))
	if s, l := empty.DecodeV(0); s != 0 || l == 0 {
		t.Errorf("empty code: %d/%d", s, l)
	}
}
