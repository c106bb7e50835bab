package ppmd

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// ParseProps7z decodes the 5-byte coder properties of 7z method 030401:
// the model order, then the memory size as a little-endian uint32. The
// caller should check memSize against its memory limit before creating a
// decoder.
func ParseProps7z(props []byte) (order int, memSize uint32, err error) {
	if len(props) != 5 {
		return 0, 0, fmt.Errorf("ppmd: %d property bytes, want 5: %w", len(props), archive.ErrFormat)
	}
	order = int(props[0])
	memSize = binary.LittleEndian.Uint32(props[1:])
	if order < MinOrder || order > MaxOrder || memSize < MinMemSize || memSize > MaxMemSize {
		return 0, 0, fmt.Errorf("ppmd: invalid properties order=%d mem=%d: %w", order, memSize, archive.ErrFormat)
	}
	return order, memSize, nil
}

const inBufSize = 16 << 10

// Reader7z asks for huge pages when the unpacked size is at least
// hugePagesMinSize or 1/hugePagesMinFraction of the arena. The model
// touches the arena in three contiguous fronts (text, state lists,
// contexts), so huge pages waste at most a few partly used 2 MiB pages,
// and a model of order 32 touches more than 16 bytes of arena per input
// byte: a 3 MB stream in 7-Zip's mx9 arena (192 MiB) took 13,800 page
// faults and 1.6× 7-Zip's CPU on 4 KiB pages.
const (
	hugePagesMinFraction = 16
	hugePagesMinSize     = 1 << 20
)

// Reader7z decodes a 7z PPMd stream (method 030401, "PPMd7z": PPMd var.H
// with 7-Zip's range coder). It is an io.Reader producing exactly size
// bytes and then io.EOF. Like 7-Zip, it checks at the end that the range
// coder consumed the stream exactly (code register 0), accepting one
// trailing end marker; a mismatch is reported as ErrCorrupt.
//
// A Reader7z owns its model arena and input buffer; Reset reuses them.
type Reader7z struct {
	m        Model
	rc       rangeDecoder
	charMask [256]byte

	size      int64 // -1: until the end marker
	remaining int64
	started   bool
	err       error // sticky: io.EOF after the end, or the failure
}

// NewReader7z returns a decoder reading the packed stream from r with the
// given model order and memory size (from ParseProps7z). size is the
// unpacked size; a negative size decodes until the end marker.
func NewReader7z(r io.Reader, order int, memSize uint32, size int64) (*Reader7z, error) {
	d := &Reader7z{}
	if err := d.Reset(r, order, memSize, size); err != nil {
		return nil, err
	}
	return d, nil
}

// Reset starts decoding a new stream, reusing the model arena when it is
// large enough.
func (d *Reader7z) Reset(r io.Reader, order int, memSize uint32, size int64) error {
	d.err = nil
	// A stream much smaller than the arena touches little of it: 4 KiB
	// pages then cost less than clearing whole 2 MiB ones.
	hugePages := size < 0 || size >= hugePagesMinSize || uint64(size) >= uint64(memSize)/hugePagesMinFraction
	if err := d.m.init(order, memSize, hugePages); err != nil {
		d.err = err
		return err
	}
	if d.rc.buf == nil {
		d.rc.buf = make([]byte, inBufSize)
	}
	d.rc.src = r
	d.rc.br = nil
	d.rc.rar = false
	d.rc.pos, d.rc.nbuf = 0, 0
	d.rc.base = 0
	d.rc.err = nil
	d.size = size
	d.remaining = size
	d.started = false
	return nil
}

// Read decodes up to len(p) bytes. Corrupt data gives a
// CorruptInputError.
func (d *Reader7z) Read(p []byte) (n int, err error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err = d.readGuarded(p)
	if err != nil && err != io.EOF {
		err = d.rc.locate(err)
		d.err = err
	}
	return n, err
}

// readGuarded is read with the model's faults turned into errors.
func (d *Reader7z) readGuarded(p []byte) (n int, err error) {
	defer d.rc.recoverFault(&d.m, &err)
	return d.read(p)
}

func (d *Reader7z) read(p []byte) (n int, err error) {
	if !d.started {
		if d.remaining == 0 {
			d.err = io.EOF
			return 0, io.EOF
		}
		if err := d.rc.init7z(); err != nil {
			d.err = err
			return 0, err
		}
		d.started = true
	}
	if len(p) == 0 {
		return 0, nil
	}
	lim := len(p)
	if d.size >= 0 && d.remaining < int64(lim) {
		lim = int(d.remaining)
	}
	rc := &d.rc
	n, sym := d.m.decodeSymbols(rc, &d.charMask, p[:lim], -1)
	if rc.err != nil {
		d.err = rc.err
		return n, d.err
	}
	if sym < 0 {
		if sym == symEnd && d.size < 0 {
			if rc.code != 0 {
				d.err = ErrCorrupt
				return n, d.err
			}
			d.err = io.EOF
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		if sym == symEnd {
			d.err = ErrEndMarker
		} else {
			d.err = ErrCorrupt
		}
		return n, d.err
	}
	if d.size >= 0 {
		d.remaining -= int64(n)
		if d.remaining == 0 {
			if err := d.finish(); err != nil {
				d.err = err
				return n, err
			}
			d.err = io.EOF
		}
	}
	return n, nil
}

// finish checks the end of a sized stream: the code register is 0, or an
// end marker follows after which it is.
func (d *Reader7z) finish() error {
	if d.rc.code == 0 {
		return nil
	}
	sym := d.m.decodeSymbol(&d.rc, &d.charMask)
	if d.rc.err != nil {
		return d.rc.err
	}
	if sym != symEnd || d.rc.code != 0 {
		return ErrCorrupt
	}
	return nil
}
