package unpack5

import "encoding/binary"

// Local implementations of the RAR5 filters, used until internal/filters
// provides them.

// filterDelta undoes the delta filter: src holds each channel's bytes in
// turn, stored as differences from the channel's previous byte.
func filterDelta(dst, src []byte, channels int) {
	k := 0
	for c := 0; c < channels; c++ {
		var prev byte
		for i := c; i < len(dst); i += channels {
			prev -= src[k]
			k++
			dst[i] = prev
		}
	}
}

// filterE8 converts the absolute addresses stored after E8 (call) and,
// with e9, E9 (jmp) opcodes back to relative ones. Positions are taken
// modulo 16 MiB as RAR5 does.
func filterE8(b []byte, off int64, e9 bool) {
	const fileSize = 0x1000000
	for i := 0; i+5 <= len(b); {
		c := b[i]
		i++
		if c != 0xe8 && !(e9 && c == 0xe9) {
			continue
		}
		pos := int32((off + int64(i)) % fileSize)
		addr := int32(binary.LittleEndian.Uint32(b[i:]))
		if addr < 0 {
			if addr+pos >= 0 {
				binary.LittleEndian.PutUint32(b[i:], uint32(addr+fileSize))
			}
		} else if addr < fileSize {
			binary.LittleEndian.PutUint32(b[i:], uint32(addr-pos))
		}
		i += 4
	}
}

// filterARM converts the absolute targets of ARM BL instructions back to
// relative ones.
func filterARM(b []byte, off int64) {
	for i := 0; i+4 <= len(b); i += 4 {
		if b[i+3] == 0xeb {
			v := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16
			v -= uint32((off + int64(i)) / 4)
			b[i] = byte(v)
			b[i+1] = byte(v >> 8)
			b[i+2] = byte(v >> 16)
		}
	}
}
