package ppmd

import "io"

// RARDecoder decodes the PPMd blocks of RAR 2.9–4.x (unpack version 29):
// PPMd var.H with the original carry-less range coder. It reads from a
// byte source shared with the LZ decoder and uses a Model owned by the
// caller, which persists across PPM blocks of a solid stream.
//
// The RAR block header (flags byte, MaxMB, MaxOrder, escape character) is
// parsed by the caller, which on a reset flag calls
// Model.Init(order, (MaxMB+1)<<20) — with order = MaxOrder field + 1,
// raised to 16 + (order-16)*3 when above 16 — and then Init here. Without
// the reset flag only Init is called and the model carries on.
type RARDecoder struct {
	m        *Model
	rc       rangeDecoder
	charMask [256]byte
}

// Init starts range decoding at the current position of br with model m,
// which must have been initialised with Model.Init. It reads four bytes.
func (d *RARDecoder) Init(m *Model, br io.ByteReader) error {
	d.m = m
	if m == nil || !m.ready {
		return ErrNotInitialized
	}
	d.rc.br = br
	d.rc.src = nil
	d.rc.pos, d.rc.nbuf = 0, 0
	d.rc.base = 0
	d.rc.err = nil
	if err := d.rc.initRAR(); err != nil {
		return d.rc.locate(err)
	}
	return nil
}

// DecodeSymbol returns the next byte value (0..255). On corrupt data it
// returns an error wrapping archive.ErrFormat (ErrCorrupt, ErrEndMarker,
// ErrTruncated); errors of the byte source other than io.EOF are returned
// as they are. After an error the model must be re-initialised.
func (d *RARDecoder) DecodeSymbol() (sym int, err error) {
	m := d.m
	if m == nil || !m.ready {
		return -1, ErrNotInitialized
	}
	defer d.rc.recoverFault(m, &err)
	sym = m.decodeSymbol(&d.rc, &d.charMask)
	if d.rc.err != nil {
		m.ready = false
		return -1, d.rc.locate(d.rc.err)
	}
	if sym < 0 {
		m.ready = false
		if sym == symEnd {
			return -1, d.rc.locate(ErrEndMarker)
		}
		return -1, d.rc.locate(ErrCorrupt)
	}
	return sym, nil
}

// DecodeLiterals decodes symbols into dst until dst is full or a symbol
// equal to esc is decoded; it returns the number of bytes stored and
// whether it stopped at esc (which is consumed, not stored). It is
// DecodeSymbol in a loop, with the model's panic safety net paid once
// per call instead of once per symbol; errors are those of DecodeSymbol.
// After a fault of the model (a CorruptInputError whose Err is not
// ErrCorrupt, ErrEndMarker or ErrTruncated itself, though it wraps
// ErrCorrupt) n is 0, whatever the call stored.
func (d *RARDecoder) DecodeLiterals(dst []byte, esc byte) (n int, escaped bool, err error) {
	m := d.m
	if m == nil || !m.ready {
		return 0, false, ErrNotInitialized
	}
	defer d.rc.recoverFault(m, &err)
	rc := &d.rc
	n, sym := m.decodeSymbols(rc, &d.charMask, dst, int(esc))
	if rc.err != nil {
		m.ready = false
		return n, false, rc.locate(rc.err)
	}
	switch sym {
	case symStop:
		return n, true, nil
	case symEnd:
		m.ready = false
		return n, false, rc.locate(ErrEndMarker)
	case symError:
		m.ready = false
		return n, false, rc.locate(ErrCorrupt)
	}
	return n, false, nil
}
