package filters

import "encoding/binary"

// Converter converts branch addresses in place.
type Converter interface {
	// Convert processes buf and returns n: buf[:n] is final. The caller presents buf[n:] again at the
	// front of the next call, with more data appended. At the end of the stream the unprocessed tail is
	// passed through unchanged. n may be smaller than len(buf) only by less than 16 bytes (or 0 for tiny bufs).
	Convert(buf []byte) int
	// Reset restores the initial state (start offset as configured).
	Reset()
}

// Arch names a 7z branch converter, for the generic constructor NewBranch.
type Arch int

// The branch converters of 7-Zip (method IDs in parentheses).
const (
	ArchX86   Arch = iota + 1 // BCJ x86 (03030103)
	ArchPPC                   // PowerPC big-endian (03030205)
	ArchIA64                  // Itanium (03030401)
	ArchARM                   // ARM little-endian BL (03030501)
	ArchARMT                  // ARM Thumb BL (03030701)
	ArchSPARC                 // SPARC call (03030805)
	ArchARM64                 // ARM64 BL/ADRP (0A)
	ArchRISCV                 // RISC-V JAL/AUIPC (0B)
)

// StartAlignment returns the mask of low bits that must be zero in a start
// offset for the architecture (7-Zip rejects a misaligned start offset in
// the ARM64 and RISCV properties): 3 for ARM64, 1 for RISCV, 0 otherwise.
func (a Arch) StartAlignment() uint32 {
	switch a {
	case ArchARM64:
		return 3
	case ArchRISCV:
		return 1
	}
	return 0
}

// ParseStartOffset decodes the optional properties of a 7z branch coder: empty
// (start offset 0) or a 4-byte little-endian start offset that must be aligned
// for the architecture. ok is false for any other size or a misaligned offset.
func ParseStartOffset(a Arch, props []byte) (start uint32, ok bool) {
	switch len(props) {
	case 0:
		return 0, true
	case 4:
		start = binary.LittleEndian.Uint32(props)
		return start, start&a.StartAlignment() == 0
	}
	return 0, false
}

// branchFunc converts data whose first byte sits at stream position pc and
// returns how many bytes are final.
type branchFunc func(data []byte, pc uint32, encode bool) int

// branchConverter is the Converter of the stateless RISC converters: it only
// tracks the stream position.
type branchConverter struct {
	fn     branchFunc
	encode bool
	start  uint32
	pc     uint32
}

func (c *branchConverter) Convert(buf []byte) int {
	n := c.fn(buf, c.pc, c.encode)
	c.pc += uint32(n)
	return n
}

func (c *branchConverter) Reset() { c.pc = c.start }

func newBranch(fn branchFunc, encode bool, start uint32) *branchConverter {
	return &branchConverter{fn: fn, encode: encode, start: start, pc: start}
}

// NewBranch returns the converter for arch with the given start offset (the
// stream position of the first byte). It returns nil for an unknown arch.
// Callers that take the offset from 7z properties should check it with
// ParseStartOffset first.
func NewBranch(arch Arch, encode bool, start uint32) Converter {
	switch arch {
	case ArchX86:
		return NewX86At(encode, start)
	case ArchPPC:
		return newBranch(convertPPC, encode, start)
	case ArchIA64:
		return newBranch(convertIA64, encode, start)
	case ArchARM:
		return newBranch(convertARM, encode, start)
	case ArchARMT:
		return newBranch(convertARMT, encode, start)
	case ArchSPARC:
		return newBranch(convertSPARC, encode, start)
	case ArchARM64:
		return newBranch(convertARM64, encode, start)
	case ArchRISCV:
		if encode {
			return newBranch(encodeRISCV, true, start)
		}
		return newBranch(decodeRISCV, false, start)
	}
	return nil
}

// NewX86 returns the BCJ x86 converter (7z method 03030103).
func NewX86(encode bool) Converter { return NewX86At(encode, 0) }

// NewX86At returns the BCJ x86 converter whose first byte is at stream
// position start.
func NewX86At(encode bool, start uint32) Converter {
	return &x86Converter{encode: encode, start: start, pc: start}
}

// NewARM64 returns the ARM64 BL/ADRP converter (7z method 0A). startPC is the
// optional start offset from the coder properties (a multiple of 4).
func NewARM64(encode bool, startPC uint32) Converter {
	return NewBranch(ArchARM64, encode, startPC)
}

// x86Converter is BCJ x86. Besides the position it keeps prevMask: which of
// the three bytes before the next unprocessed byte were E8/E9 opcodes that
// were not converted, so that an opcode byte inside a skipped operand is
// treated exactly as when the data arrives in one piece.
type x86Converter struct {
	encode   bool
	start    uint32
	pc       uint32
	prevMask uint32
}

func (c *x86Converter) Convert(buf []byte) int {
	n := convertX86(buf, c.pc, &c.prevMask, c.encode)
	c.pc += uint32(n)
	return n
}

func (c *x86Converter) Reset() {
	c.pc = c.start
	c.prevMask = 0
}

// x86MSByte reports whether b is a plausible most significant byte of a
// 32-bit relative displacement: 0x00 or 0xFF.
func x86MSByte(b byte) bool { return b+1 <= 1 }

// convertX86 converts the rel32 operands of E8 (CALL) and E9 (JMP) opcodes
// between relative and absolute form.
func convertX86(data []byte, pc uint32, state *uint32, encode bool) int {
	if len(data) < 5 {
		return 0
	}
	limit := len(data) - 4
	pc += 5 // displacements are relative to the end of the 5-byte instruction
	mask := *state & 7
	pos := 0
	scan := data[:limit]
	for {
		p := pos
		for p < len(scan) && scan[p]&0xFE != 0xE8 {
			p++
		}
		d := p - pos
		pos = p
		if p >= limit {
			if d > 2 {
				*state = 0
			} else {
				*state = mask >> uint(d)
			}
			return pos
		}
		if d > 2 {
			mask = 0
		} else {
			mask >>= uint(d)
			if mask != 0 && (mask > 4 || mask == 3 || x86MSByte(data[p+int(mask>>1)+1])) {
				mask = mask>>1 | 4
				pos++
				continue
			}
		}
		if !x86MSByte(data[p+4]) {
			mask = mask>>1 | 4
			pos++
			continue
		}
		v := binary.LittleEndian.Uint32(data[p+1:])
		cur := pc + uint32(pos)
		pos += 5
		if encode {
			v += cur
		} else {
			v -= cur
		}
		if mask != 0 {
			sh := (mask & 6) << 2
			if x86MSByte(byte(v >> sh)) {
				v ^= uint32(0x100)<<sh - 1
				if encode {
					v += cur
				} else {
					v -= cur
				}
			}
			mask = 0
		}
		data[p+1] = byte(v)
		data[p+2] = byte(v >> 8)
		data[p+3] = byte(v >> 16)
		data[p+4] = byte(0 - (v >> 24 & 1))
	}
}

// convertARM converts the 24-bit word offsets of ARM BL instructions
// (condition "always", byte 3 == 0xEB). The offset is relative to the
// instruction address + 8.
func convertARM(data []byte, pc uint32, encode bool) int {
	n := len(data) &^ 3
	pc += 8
	for i := 0; i < n; i += 4 {
		if data[i+3] != 0xEB {
			continue
		}
		v := binary.LittleEndian.Uint32(data[i:])
		c := (pc + uint32(i)) >> 2
		if encode {
			v += c
		} else {
			v -= c
		}
		binary.LittleEndian.PutUint32(data[i:], v&0x00FFFFFF|0xEB000000)
	}
	return n
}

// convertARMT converts Thumb BL instruction pairs (F000 F800 pattern); the
// 22-bit halfword offset is relative to the instruction address + 4.
func convertARMT(data []byte, pc uint32, encode bool) int {
	size := len(data) &^ 1
	p := 0
	for p+4 <= size {
		if data[p+1]&0xF8 != 0xF0 || data[p+3]&0xF8 != 0xF8 {
			p += 2
			continue
		}
		v := uint32(data[p+1]&7)<<19 | uint32(data[p])<<11 | uint32(data[p+3]&7)<<8 | uint32(data[p+2])
		c := (pc + uint32(p) + 4) >> 1
		if encode {
			v += c
		} else {
			v -= c
		}
		data[p] = byte(v >> 11)
		data[p+1] = 0xF0 | byte(v>>19)&7
		data[p+2] = byte(v)
		data[p+3] = 0xF8 | byte(v>>8)&7
		p += 4
	}
	return p
}

// convertPPC converts PowerPC "bl" (opcode 18 with AA=0, LK=1) big-endian
// instructions.
func convertPPC(data []byte, pc uint32, encode bool) int {
	n := len(data) &^ 3
	for i := 0; i < n; i += 4 {
		if data[i]&0xFC != 0x48 || data[i+3]&3 != 1 {
			continue
		}
		v := binary.BigEndian.Uint32(data[i:])
		c := pc + uint32(i)
		if encode {
			v += c
		} else {
			v -= c
		}
		binary.BigEndian.PutUint32(data[i:], v&0x03FFFFFF|0x48000000)
	}
	return n
}

// convertSPARC converts SPARC "call" instructions whose 30-bit displacement
// is a small positive or negative number (top bits all equal).
func convertSPARC(data []byte, pc uint32, encode bool) int {
	n := len(data) &^ 3
	for i := 0; i < n; i += 4 {
		b0, b1 := data[i], data[i+1]
		if !(b0 == 0x40 && b1&0xC0 == 0 || b0 == 0x7F && b1 >= 0xC0) {
			continue
		}
		v := binary.BigEndian.Uint32(data[i:]) << 2
		c := pc + uint32(i)
		if encode {
			v += c
		} else {
			v -= c
		}
		v &= 0x01FFFFFF
		v -= 1 << 24
		v ^= 0xFF000000
		v >>= 2
		v |= 0x40000000
		binary.BigEndian.PutUint32(data[i:], v)
	}
	return n
}

// ia64Templates holds, two bits per bundle template (bits 1..4 of the
// bundle's first byte), how many leading slots cannot hold a branch minus
// one; 0 means the template has no branch slot.
const ia64Templates = 0x334B0000

// convertIA64 converts the 21-bit bundle offsets of IP-relative branches in
// IA-64 16-byte bundles.
func convertIA64(data []byte, pc uint32, encode bool) int {
	n := len(data) &^ 15
	for i := 0; i < n; i += 16 {
		m := uint(ia64Templates>>(data[i]&0x1E)) & 3
		if m == 0 {
			continue
		}
		for m++; m <= 4; m++ {
			p := i + int(m)*5 - 8
			if (data[p+3]>>m)&15 != 5 || ((uint32(data[p-1])|uint32(data[p])<<8)>>m)&0x70 != 0 {
				continue
			}
			raw := binary.LittleEndian.Uint32(data[p:])
			v := raw >> m
			v = v&0xFFFFF | (v&(1<<23))>>3
			v <<= 4
			if encode {
				v += pc + uint32(i)
			} else {
				v -= pc + uint32(i)
			}
			v >>= 4
			v &= 0x1FFFFF
			v += 0x700000
			v &= 0x8FFFFF
			raw &^= 0x8FFFFF << m
			raw |= v << m
			binary.LittleEndian.PutUint32(data[p:], raw)
		}
	}
	return n
}

// convertARM64 converts ARM64 BL instructions (26-bit word offset) and ADRP
// instructions (21-bit offset in 4 KiB pages). ADRP is converted only when
// its offset fits in 18 bits (+-512 MiB), which keeps false positives on
// data rare; the conversion stays within those 18 bits.
func convertARM64(data []byte, pc uint32, encode bool) int {
	const flag = 1 << 20
	const mask = 1<<24 - flag<<1
	n := len(data) &^ 3
	for i := 0; i < n; i += 4 {
		v := binary.LittleEndian.Uint32(data[i:])
		cur := pc + uint32(i)
		if v&0xFC000000 == 0x94000000 { // BL
			c := cur >> 2
			if encode {
				v += c
			} else {
				v -= c
			}
			binary.LittleEndian.PutUint32(data[i:], v&0x03FFFFFF|0x94000000)
			continue
		}
		v -= 0x90000000
		if v&0x9F000000 != 0 { // not ADRP
			continue
		}
		v += flag
		if v&mask != 0 {
			continue
		}
		z := v&0xFFFFFFE0 | v>>26
		c := cur >> 9 &^ 7
		if encode {
			z += c
		} else {
			z -= c
		}
		v &= 0x1F
		v |= 0x90000000
		v |= z << 26
		v |= 0x00FFFFE0 & (z&(flag<<1-1) - flag)
		binary.LittleEndian.PutUint32(data[i:], v)
	}
	return n
}
