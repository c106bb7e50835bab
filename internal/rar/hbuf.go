package rar

import (
	"encoding/binary"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// errShort reports a header field running past the end of its header.
var errShort = fmt.Errorf("%w: header field past the end of the header", archive.ErrFormat)

// hbuf reads little-endian fields and vints from one header, remembering
// the first overrun instead of panicking.
type hbuf struct {
	b   []byte
	err error
}

func (h *hbuf) fail() {
	if h.err == nil {
		h.err = errShort
	}
	h.b = nil
}

func (h *hbuf) len() int { return len(h.b) }

// vint reads a RAR5 variable-length integer: 7 bits per byte, least
// significant group first, high bit set on every byte but the last. At most
// 10 bytes (64 bits) are accepted.
func (h *hbuf) vint() uint64 {
	var v uint64
	for i := 0; i < len(h.b) && i < 10; i++ {
		c := h.b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			h.b = h.b[i+1:]
			return v
		}
	}
	h.fail()
	return 0
}

// vsize reads a vint that is a size or count bounded by limit.
func (h *hbuf) vsize(limit uint64) int {
	v := h.vint()
	if v > limit {
		if h.err == nil {
			h.err = fmt.Errorf("%w: field value %d exceeds %d", archive.ErrFormat, v, limit)
		}
		h.b = nil
		return 0
	}
	return int(v)
}

func (h *hbuf) u8() byte {
	if len(h.b) < 1 {
		h.fail()
		return 0
	}
	v := h.b[0]
	h.b = h.b[1:]
	return v
}

func (h *hbuf) u16() uint16 {
	if len(h.b) < 2 {
		h.fail()
		return 0
	}
	v := binary.LittleEndian.Uint16(h.b)
	h.b = h.b[2:]
	return v
}

func (h *hbuf) u32() uint32 {
	if len(h.b) < 4 {
		h.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(h.b)
	h.b = h.b[4:]
	return v
}

func (h *hbuf) u64() uint64 {
	if len(h.b) < 8 {
		h.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(h.b)
	h.b = h.b[8:]
	return v
}

func (h *hbuf) bytes(n int) []byte {
	if n < 0 || len(h.b) < n {
		h.fail()
		return nil
	}
	v := h.b[:n:n]
	h.b = h.b[n:]
	return v
}
