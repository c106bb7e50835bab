package unpack3

import (
	"hash/crc32"

	"github.com/garc-dev/garc/internal/archive"
)

// Standard filter kinds.
const (
	fltE8 uint8 = iota + 1
	fltE8E9
	fltItanium
	fltDelta
	fltRGB
	fltAudio
)

// standardFilters identifies RAR's standard VM programs by the CRC32 and
// length of their bytecode (including the leading check byte).
var standardFilters = [...]struct {
	crc  uint32
	size int
	kind uint8
}{
	{0xad576887, 53, fltE8},
	{0x3cd7e57e, 57, fltE8E9},
	{0x3769893f, 120, fltItanium},
	{0x0e06077d, 29, fltDelta},
	{0x1c2c5dc8, 149, fltRGB},
	{0xbc85e701, 216, fltAudio},
}

const (
	maxFilterBlock = 0x3C000 // VM data area: filter blocks never exceed it
	maxFilterCode  = 0x10000
	maxFilterNums  = 1024
	maxQueued      = 8192
	maxGlobalData  = 0x2000 - 0x40
)

// memBits reads bits most significant first from a byte slice; reads past
// the end set bad.
type memBits struct {
	b   []byte
	pos uint // bit position
	bad bool
}

func (m *memBits) bits(n uint) uint32 {
	var v uint32
	for n > 0 {
		i := m.pos >> 3
		if int(i) >= len(m.b) {
			m.bad = true
			return 0
		}
		avail := 8 - m.pos&7
		k := min(avail, n)
		x := uint32(m.b[i]) >> (avail - k) & (1<<k - 1)
		v = v<<k | x
		m.pos += k
		n -= k
	}
	return v
}

// number reads the VM's variable-length 32-bit number.
func (m *memBits) number() uint32 {
	switch m.bits(2) {
	case 0:
		return m.bits(4)
	case 1:
		v := m.bits(4)
		if v == 0 {
			return 0xffffff00 | m.bits(8)
		}
		return v<<4 | m.bits(4)
	case 2:
		return m.bits(16)
	}
	return m.bits(32)
}

type vmProgram struct {
	kind    uint8
	lastLen uint32
}

// parseFilter decodes a filter record (flags byte then a bit stream) and
// queues the filter; cur is the stream position of the next byte.
func (d *Decoder) parseFilter(rec []byte, cur int64) error {
	flags := rec[0]
	m := memBits{b: rec[1:]}
	if flags&0x80 != 0 {
		n := m.number()
		if n == 0 {
			d.progs = d.progs[:0]
			d.fnum = 0
		} else {
			n--
			if n > maxFilterNums || int(n) > len(d.progs) {
				return errFilter
			}
			d.fnum = int(n)
		}
	}
	if d.fnum > len(d.progs) {
		return errFilter
	}
	isNew := d.fnum == len(d.progs)
	off := int64(m.number())
	if flags&0x40 != 0 {
		off += 258
	}
	var length uint32
	if !isNew {
		length = d.progs[d.fnum].lastLen
	}
	if flags&0x20 != 0 {
		length = m.number()
	}
	var regs [7]uint32
	if flags&0x10 != 0 {
		mask := m.bits(7)
		for i := range 7 {
			if mask&(1<<i) != 0 {
				regs[i] = m.number()
			}
		}
	}
	if isNew {
		n := m.number()
		if n == 0 || n > maxFilterCode || m.bad {
			return errFilter
		}
		// the bytecode: a check byte (xor of the rest) and the program
		code := d.codeBuf[:0]
		var x byte
		for i := uint32(0); i < n; i++ {
			c := byte(m.bits(8))
			if i > 0 {
				x ^= c
			}
			code = append(code, c)
		}
		d.codeBuf = code
		if m.bad || x != code[0] {
			return errFilter
		}
		crc := crc32.ChecksumIEEE(code)
		var kind uint8
		for _, s := range standardFilters {
			if s.crc == crc && s.size == len(code) {
				kind = s.kind
			}
		}
		if kind == 0 {
			return &archive.UnsupportedError{What: "RAR VM filter"}
		}
		if len(d.progs) >= maxFilterNums {
			return errFilter
		}
		d.progs = append(d.progs, vmProgram{kind: kind})
	}
	if flags&0x08 != 0 {
		n := m.number()
		if n > maxGlobalData {
			return errFilter
		}
		m.pos += uint(n) * 8 // standard filters use no global data
		if int(m.pos>>3) > len(m.b) {
			m.bad = true
		}
	}
	if m.bad {
		return errFilter
	}
	p := &d.progs[d.fnum]
	p.lastLen = length
	if length > maxFilterBlock {
		return errFilter
	}
	if length == 0 {
		return nil
	}
	if len(d.queue)-d.qhead >= maxQueued {
		return errTooMany
	}
	start := cur + off
	f := filterDesc{start: start, length: int64(length), kind: p.kind, r0: regs[0], r1: regs[1]}
	if n := len(d.queue); n > d.qhead {
		last := d.queue[n-1]
		if start < last.start+last.length && !(start == last.start && f.length == last.length) {
			return errFilter
		}
	} else if start < d.lastFilterEnd {
		return errFilter
	}
	if d.qhead == len(d.queue) {
		d.queue = d.queue[:0]
		d.qhead = 0
	}
	d.queue = append(d.queue, f)
	d.lastFilterEnd = start + f.length
	return nil
}
