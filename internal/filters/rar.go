package filters

import (
	"encoding/binary"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// RAR filters work in place (or from src to dst) on one whole filter block
// that the RAR decoder has collected. fileOffset is the position of the
// block's first byte in the unpacked file.

// rarE8FileSize is the "file size" constant of the RAR x86 filter: absolute
// addresses are kept in [0, 16 MiB).
const rarE8FileSize = 1 << 24

// RARE8 reverses the RAR 2.9-4.x (RAR3 VM standard filter E8 / E8E9) x86
// call filter on buf. With e8e9 the E9 (JMP) opcode is converted as well.
//
// RAR3 and RAR5 differ in one detail: RAR3 uses the 32-bit file offset of
// the operand as is, RAR5 takes it modulo 16 MiB. Use RAR5E8 for RAR5.
func RARE8(buf []byte, fileOffset int64, e8e9 bool) {
	rarE8(buf, uint32(fileOffset), e8e9, false)
}

// RAR5E8 reverses the RAR5 x86 filter (types E8 and E8E9) on buf.
func RAR5E8(buf []byte, fileOffset int64, e8e9 bool) {
	rarE8(buf, uint32(fileOffset), e8e9, true)
}

func rarE8(buf []byte, fileOffset uint32, e8e9, rar5 bool) {
	if len(buf) <= 4 {
		return
	}
	opMask := byte(0xFF)
	if e8e9 {
		opMask = 0xFE
	}
	limit := len(buf) - 4
	for i := 0; i < limit; {
		b := buf[i]
		i++
		if b&opMask != 0xE8 {
			continue
		}
		offset := fileOffset + uint32(i)
		if rar5 {
			offset &= rarE8FileSize - 1
		}
		addr := binary.LittleEndian.Uint32(buf[i:])
		if addr < rarE8FileSize {
			binary.LittleEndian.PutUint32(buf[i:], addr-offset)
		} else if addr&0x80000000 != 0 && (addr+offset)&0x80000000 == 0 {
			binary.LittleEndian.PutUint32(buf[i:], addr+rarE8FileSize)
		}
		i += 4
	}
}

// RARARM reverses the RAR5 ARM filter: the 24-bit word offsets of BL
// instructions (byte 3 == 0xEB at 4-byte aligned block positions) were made
// absolute relative to the instruction's file offset.
func RARARM(buf []byte, fileOffset int64) {
	pc := uint32(fileOffset)
	n := len(buf) &^ 3
	for i := 0; i < n; i += 4 {
		if buf[i+3] != 0xEB {
			continue
		}
		v := binary.LittleEndian.Uint32(buf[i:]) - (pc+uint32(i))>>2
		binary.LittleEndian.PutUint32(buf[i:], v&0x00FFFFFF|0xEB000000)
	}
}

// RARItanium reverses the RAR3 Itanium filter: in 16-byte bundles whose
// template allows branches, the 20-bit bundle offset of each branch slot
// (opcode 5) was made absolute by adding the bundle index in the file.
func RARItanium(buf []byte, fileOffset int64) {
	if len(buf) <= 21 {
		return
	}
	bundle := uint32(fileOffset) >> 4
	// The filter stops 21 bytes before the end of the block: the last
	// bundle processed starts before len-21.
	for i := 0; i < len(buf)-21; i, bundle = i+16, bundle+1 {
		m := uint(ia64Templates>>(buf[i]&0x1E)) & 3
		if m == 0 {
			continue
		}
		for m++; m <= 4; m++ {
			p := i + int(m)*5 - 8
			if (buf[p+3]>>m)&15 != 5 {
				continue
			}
			const mask = 0xFFFFF
			raw := binary.LittleEndian.Uint32(buf[p:])
			v := (raw>>m - bundle) & mask
			raw = raw&^(mask<<m) | v<<m
			binary.LittleEndian.PutUint32(buf[p:], raw)
		}
	}
}

// RARDelta reverses the RAR delta filter: src holds the byte differences of
// channel 0, then of channel 1, and so on; dst receives the interleaved
// bytes. min(len(dst), len(src)) bytes are produced; channels is clamped to
// [1, that count].
func RARDelta(dst, src []byte, channels int) {
	n := min(len(dst), len(src))
	// More channels than bytes is the same as one byte per channel;
	// clamping also keeps i+channels from overflowing.
	channels = max(1, min(channels, n))
	dst, src = dst[:n], src[:n]
	if channels == 1 {
		var prev byte
		for i, b := range src {
			prev -= b
			dst[i] = prev
		}
		return
	}
	// Channel ch has ceil((n-ch)/channels) bytes, stored one after the
	// other in src; ranging over each channel's run leaves one bounds
	// check per byte, on dst.
	for ch := 0; ch < channels; ch++ {
		run := src[:(n-ch+channels-1)/channels]
		src = src[len(run):]
		var prev byte
		i := ch
		if channels == 4 {
			// the common case (32-bit samples): four bytes per step,
			// their stores covered by one slice check
			for len(run) >= 4 && i+12 < n {
				d := dst[i : i+13]
				r := run[:4]
				prev -= r[0]
				d[0] = prev
				prev -= r[1]
				d[4] = prev
				prev -= r[2]
				d[8] = prev
				prev -= r[3]
				d[12] = prev
				run = run[4:]
				i += 16
			}
		}
		for _, b := range run {
			prev -= b
			dst[i] = prev
			i += channels
		}
	}
}

// RARRGB reverses the RAR3 RGB filter for 24-bit images of width bytes per
// line (the VM's R0) whose red component is at byte posR (0..2) of a pixel:
// each colour plane was predicted with the Paeth-like predictor of the
// pixel to the left and the two above, and red and blue were stored as
// differences to green. dst and src must not overlap; len(dst) bytes are
// produced from the same number of src bytes.
//
// When width is not a multiple of 3 (or is 3) the predictor reads bytes of
// dst that this call has not produced yet, as RAR's filter reads whatever
// its memory holds there; pass a zeroed dst for reproducible output.
func RARRGB(dst, src []byte, width, posR int) error {
	n := len(dst)
	if len(src) < n {
		return fmt.Errorf("rar rgb filter: %w: short input", archive.ErrFormat)
	}
	if n < 3 || width < 3 || width-3 > n || posR < 0 || posR > 2 {
		return fmt.Errorf("rar rgb filter: %w: width %d, red position %d, size %d", archive.ErrFormat, width, posR, n)
	}
	s := 0
	for ch := 0; ch < 3; ch++ {
		var prev byte
		for i := ch; i < n; i += 3 {
			pred := uint32(prev)
			if i >= width {
				upLeft := uint32(dst[i-width])
				up := uint32(dst[i-width+3])
				pred = uint32(prev) + up - upLeft
				pa := absDiff(pred, uint32(prev))
				pb := absDiff(pred, up)
				pc := absDiff(pred, upLeft)
				switch {
				case pa <= pb && pa <= pc:
					pred = uint32(prev)
				case pb <= pc:
					pred = up
				default:
					pred = upLeft
				}
			}
			prev = byte(pred) - src[s]
			dst[i] = prev
			s++
		}
	}
	for i := posR; i < n-2; i += 3 {
		g := dst[i+1]
		dst[i] += g
		dst[i+2] += g
	}
	return nil
}

// absDiff returns |int32(a-b)|, the distance of two predictor values.
func absDiff(a, b uint32) uint32 {
	d := int32(a - b)
	if d < 0 {
		return uint32(-d)
	}
	return uint32(d)
}

// RARAudio reverses the RAR3 audio filter: every channel (bytes ch,
// ch+channels, ...) was coded as the error of a linear predictor over the
// previous sample and the last three deltas, whose three weights adapt every
// 32 samples toward the smallest accumulated error. src holds channel 0's
// bytes, then channel 1's, and so on. min(len(dst), len(src)) bytes are
// produced; channels is clamped to [1, that count].
func RARAudio(dst, src []byte, channels int) {
	n := min(len(dst), len(src))
	// More channels than bytes is the same as one byte per channel;
	// clamping also keeps i+channels from overflowing.
	channels = max(1, min(channels, n))
	s := 0
	for ch := 0; ch < channels && ch < n; ch++ {
		var (
			prevByte, prevDelta uint32
			d1, d2, d3          int32
			k1, k2, k3          int32
			dif                 [7]uint32
		)
		for i, count := ch, 0; i < n; i, count = i+channels, count+1 {
			d3 = d2
			d2 = int32(prevDelta) - d1
			d1 = int32(prevDelta)
			pred := uint32(int32(8*prevByte)+k1*d1+k2*d2+k3*d3) >> 3 & 0xFF
			cur := src[s]
			s++
			pred -= uint32(cur)
			dst[i] = byte(pred)
			prevDelta = uint32(int32(int8(byte(pred) - byte(prevByte))))
			prevByte = uint32(byte(pred))

			e := int32(int8(cur)) << 3
			dif[0] += absInt(e)
			dif[1] += absInt(e - d1)
			dif[2] += absInt(e + d1)
			dif[3] += absInt(e - d2)
			dif[4] += absInt(e + d2)
			dif[5] += absInt(e - d3)
			dif[6] += absInt(e + d3)
			if count&0x1F != 0 {
				continue
			}
			best, bestIdx := dif[0], 0
			dif[0] = 0
			for j := 1; j < len(dif); j++ {
				if dif[j] < best {
					best, bestIdx = dif[j], j
				}
				dif[j] = 0
			}
			switch bestIdx {
			case 1:
				if k1 >= -16 {
					k1--
				}
			case 2:
				if k1 < 16 {
					k1++
				}
			case 3:
				if k2 >= -16 {
					k2--
				}
			case 4:
				if k2 < 16 {
					k2++
				}
			case 5:
				if k3 >= -16 {
					k3--
				}
			case 6:
				if k3 < 16 {
					k3++
				}
			}
		}
	}
}

func absInt(v int32) uint32 {
	if v < 0 {
		return uint32(-v)
	}
	return uint32(v)
}
