package filters

import "encoding/binary"

// RISC-V converter (7z method 0B).
//
// Instructions are scanned at every 2-byte boundary (compressed
// instructions make any halfword a possible start). Two kinds are converted:
//
//   - JAL with rd = x1 (ra) or x5 (t0): the 21-bit J-immediate is turned into
//     an absolute address and stored in a simpler big-endian-like bit order
//     in bits 12..31 (bits 0..11, opcode and rd, are kept).
//   - AUIPC rd followed by a 32-bit instruction whose rs1 is rd (the pair
//     that forms a 32-bit PC-relative address): the pair is rewritten so the
//     first word holds the second instruction's low 20 bits under an AUIPC
//     opcode with rd = x2, and the second word holds the absolute address
//     big-endian. AUIPC with rd = x0 or x2 would be ambiguous with that
//     rewritten form, so when such an instruction looks like a rewritten
//     pair the encoder swaps its fields reversibly instead.
//
// Conversion stops 6 bytes (plus an odd byte) before the end of the buffer
// so that a pair is always seen whole.

func le16(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 }

// riscvAmbiguous reports whether a (an AUIPC with rd = x0 or x2) has the
// shape of the encoder's rewritten pair: rd = x2, a 32-bit opcode in the
// immediate's low bits and an rs1 field (bits 27..31) other than x0 or x2.
func riscvAmbiguous(a uint32) bool {
	return a&0x3F80 == 0x3100 && (a>>27)&0x1D != 0
}

func encodeRISCV(data []byte, pc uint32, _ bool) int {
	size := len(data) &^ 1
	if size <= 6 {
		return 0
	}
	lim := size - 6
	p := 0
	for p < lim {
		switch data[p] & 0x7F {
		case 0x6F: // JAL
			if rd := le16(data[p:]) >> 7 & 0x1F; rd != 1 && rd != 5 {
				p += 2
				continue
			}
			a := binary.LittleEndian.Uint32(data[p:])
			v := (a&(1<<31))>>11 | (a&(0x3FF<<21))>>20 | (a&(1<<20))>>9 | a&(0xFF<<12)
			v += pc + uint32(p)
			data[p+1] = byte(v>>13)&0xF0 | byte(a>>8)&0x0F
			data[p+2] = byte(v >> 9)
			data[p+3] = byte(v >> 1)
			p += 4
		case 0x17: // AUIPC
			a := binary.LittleEndian.Uint32(data[p:])
			rd := a >> 7 & 0x1F
			if rd&0x1D != 0 {
				b := binary.LittleEndian.Uint32(data[p+4:])
				if b&3 != 3 || b>>15&0x1F != rd {
					p += 6
					continue
				}
				binary.LittleEndian.PutUint32(data[p:], b<<12|0x117)
				addr := a&0xFFFFF000 + uint32(int32(b)>>20) + pc + uint32(p)
				binary.BigEndian.PutUint32(data[p+4:], addr)
				p += 8
				continue
			}
			if !riscvAmbiguous(a) {
				p += 4
				continue
			}
			b := binary.LittleEndian.Uint32(data[p+4:])
			binary.LittleEndian.PutUint32(data[p:], (a>>27)<<7+0x17+b&0xFFFFF000)
			binary.LittleEndian.PutUint32(data[p+4:], a>>12|b<<20)
			p += 8
		default:
			p += 2
		}
	}
	return p
}

func decodeRISCV(data []byte, pc uint32, _ bool) int {
	size := len(data) &^ 1
	if size <= 6 {
		return 0
	}
	lim := size - 6
	p := 0
	for p < lim {
		switch data[p] & 0x7F {
		case 0x6F: // JAL
			h := le16(data[p:])
			if rd := h >> 7 & 0x1F; rd != 1 && rd != 5 {
				p += 2
				continue
			}
			v := uint32(data[p+3])<<1 | uint32(data[p+2])<<9 | (h&0xF000)<<5
			v -= pc + uint32(p)
			a := h&0xFFF | v<<11&(1<<31) | v<<20&(0x3FF<<21) | v<<9&(1<<20) | v&(0xFF<<12)
			binary.LittleEndian.PutUint32(data[p:], a)
			p += 4
		case 0x17: // AUIPC
			a := binary.LittleEndian.Uint32(data[p:])
			rd := a >> 7 & 0x1F
			if rd&0x1D == 0 {
				if !riscvAmbiguous(a) {
					p += 4
					continue
				}
				addr := binary.BigEndian.Uint32(data[p+4:]) - (pc + uint32(p))
				first := (a>>27)<<7 + 0x17 + (addr+0x800)&0xFFFFF000
				binary.LittleEndian.PutUint32(data[p:], first)
				binary.LittleEndian.PutUint32(data[p+4:], a>>12|addr<<20)
				p += 8
				continue
			}
			b := binary.LittleEndian.Uint32(data[p+4:])
			if b&3 != 3 || b>>15&0x1F != rd {
				p += 6
				continue
			}
			binary.LittleEndian.PutUint32(data[p:], b<<12|0x117)
			binary.LittleEndian.PutUint32(data[p+4:], a&0xFFFFF000|b>>20)
			p += 8
		default:
			p += 2
		}
	}
	return p
}
