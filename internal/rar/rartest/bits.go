package rartest

// BitWriter writes bits most significant first, the order in which RAR's
// decoders read them, for tests that build packed streams by hand.
type BitWriter struct {
	Buf  []byte // the completed bytes
	acc  uint64
	nacc uint // bits in acc not yet in Buf (< 8)
}

// Bits writes the low n bits of v, n <= 64.
func (w *BitWriter) Bits(v uint64, n uint) {
	for n > 0 {
		k := min(n, 8)
		n -= k
		w.acc = w.acc<<k | (v>>n)&(1<<k-1)
		w.nacc += k
		for w.nacc >= 8 {
			w.nacc -= 8
			w.Buf = append(w.Buf, byte(w.acc>>w.nacc))
		}
	}
}

// BitLen returns the number of bits written.
func (w *BitWriter) BitLen() int { return len(w.Buf)*8 + int(w.nacc) }

// Align pads with zero bits to a byte boundary.
func (w *BitWriter) Align() {
	if w.nacc > 0 {
		w.Bits(0, 8-w.nacc)
	}
}

// Flush aligns, returns the bytes written and empties the writer.
func (w *BitWriter) Flush() []byte {
	w.Align()
	b := w.Buf
	*w = BitWriter{}
	return b
}
