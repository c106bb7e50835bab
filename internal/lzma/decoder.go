package lzma

import (
	"encoding/binary"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// damage is a kind of corrupt or truncated input found while decoding. The
// readers report it as a CorruptInputError with the input offset; where no
// offset applies (properties passed to Reset) it is returned as it is. It
// wraps archive.ErrFormat.
type damage string

func (d damage) Error() string { return "lzma: " + string(d) + ": " + archive.ErrFormat.Error() }
func (d damage) Unwrap() error { return archive.ErrFormat }

const (
	errCorrupt   damage = "invalid data"
	errTruncated damage = "unexpected end of compressed data"
	errDistance  damage = "match distance beyond the dictionary"
	errProps     damage = "invalid properties"
	errEarlyEnd  damage = "end marker before the declared size"
	errTrailing  damage = "range coder not finished cleanly"
	errPastSize  damage = "data continues past the declared size"
)

// CorruptInputError reports corrupt or truncated LZMA or LZMA2 data at an
// offset of the compressed input, counted from the first byte the reader
// read since it was made or Reset. A range decoder notices damage a few
// bytes after it, so the offset can be past the first bad byte. It wraps
// archive.ErrFormat.
type CorruptInputError struct {
	Offset int64  // packed offset at which decoding failed
	Reason string // what was wrong, e.g. "match distance beyond the dictionary"
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("lzma: corrupt data at packed offset %d (%s)", e.Offset, e.Reason)
}

// Unwrap returns archive.ErrFormat.
func (e *CorruptInputError) Unwrap() error { return archive.ErrFormat }

// locate turns a damage into a CorruptInputError at offset off; other
// errors pass unchanged.
func locate(err error, off int64) error {
	if d, ok := err.(damage); ok {
		return &CorruptInputError{Offset: off, Reason: string(d)}
	}
	return err
}

// decoder is the LZMA model and range decoder together with the window it
// decodes into. The window is a flat buffer; pos is the next write
// position. When the owner has flushed the buffer up to its end, wrap
// grows it or, at its full length, starts pos again at 0.
type decoder struct {
	probs []uint16

	lc, lp, pb     uint
	lpMask, pbMask int

	state                  uint32
	rep0, rep1, rep2, rep3 uint32
	// pendLen is the remaining length of a match cut short by the
	// output limit; it continues with distance rep0.
	pendLen int

	dict   []byte
	pos    int
	full   bool // the window has wrapped: all of dict holds history
	window int  // the length dict grows to (see allocWindow)

	rng, code uint32
	in        []byte
	ip        int

	eos bool // end marker decoded
}

// setProps installs lc/lp/pb, growing the probability array if needed.
func (d *decoder) setProps(lc, lp, pb uint) {
	d.lc, d.lp, d.pb = lc, lp, pb
	d.lpMask = 1<<lp - 1
	d.pbMask = 1<<pb - 1
	n := numProbs(lc + lp)
	// Spare capacity past the last literal coder lets
	// decodeMatchedLiteral view each coder as matchedLiteralProbs entries.
	if cap(d.probs) < n+matchedLiteralProbs-literalCoderSize {
		d.probs = make([]uint16, n, n+matchedLiteralProbs-literalCoderSize)
	}
	d.probs = d.probs[:n]
}

// resetState puts the model into its initial state.
func (d *decoder) resetState() {
	// Doubling copies: memmove is several times faster than a loop of
	// 16-bit stores.
	if p := d.probs; len(p) > 0 {
		p[0] = probInit
		for n := 1; n < len(p); n *= 2 {
			copy(p[n:], p[:n])
		}
	}
	d.state = 0
	d.rep0, d.rep1, d.rep2, d.rep3 = 0, 0, 0, 0
	d.pendLen = 0
	d.eos = false
}

// resetDict empties the window.
func (d *decoder) resetDict() {
	d.pos = 0
	d.full = false
}

// initRange starts the range decoder on in[ip:], which must hold at least
// five bytes.
func (d *decoder) initRange() error {
	b := d.in[d.ip : d.ip+5]
	if b[0] != 0 {
		return errCorrupt
	}
	d.code = uint32(b[1])<<24 | uint32(b[2])<<16 | uint32(b[3])<<8 | uint32(b[4])
	d.rng = 0xFFFFFFFF
	d.ip += 5
	if d.code == d.rng {
		return errCorrupt
	}
	return nil
}

// finishRange performs the final normalisation and reports whether the
// range decoder ended cleanly (code == 0).
func (d *decoder) finishRange() bool {
	if d.rng < rangeTop {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.in[d.ip])
		d.ip++
	}
	return d.code == 0
}

// bit decodes one bit with the probability at p, normalising first.
func (d *decoder) bit(p *uint16) uint32 {
	if d.rng < rangeTop {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.in[d.ip])
		d.ip++
	}
	var b uint32
	d.rng, d.code, b = decodeBitBranchless(p, d.rng, d.code)
	return b
}

// endMarkerNext decodes the symbol at d.pos and reports whether it is an
// end marker (a match of distance 0xFFFFFFFF). The model is left changed:
// it is only called where the stream must end. d.in must hold
// maxSymbolInput readable bytes at d.ip.
func (d *decoder) endMarkerNext() bool {
	probs := d.probs
	posState := d.pos & d.pbMask
	if d.bit(&probs[offIsMatch+int(d.state)<<4+posState]) == 0 {
		return false // a literal
	}
	if d.bit(&probs[offIsRep+int(d.state)]) != 0 {
		return false // a rep match
	}
	lcd := probs[offLenMatch : offLenMatch+lenCoderLen]
	var length uint32
	if d.bit(&lcd[lenChoice]) == 0 {
		lo := lcd[lenLow+posState*lenLowSyms : lenLow+posState*lenLowSyms+lenLowSyms]
		length, d.rng, d.code, d.ip = bitTree(lo, 3, d.rng, d.code, d.in, d.ip)
	} else {
		length, d.rng, d.code, d.ip = decodeLenTail(lcd, posState, d.rng, d.code, d.in, d.ip)
	}
	var dist uint32
	dist, d.rng, d.code, d.ip = decodeDistance(probs, length, d.rng, d.code, d.in, d.ip)
	return dist == 0xFFFFFFFF
}

// bitTree decodes an n-bit symbol MSB first from probs[1:1<<n].
func bitTree(probs []uint16, n uint, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	sym := uint32(1)
	end := uint32(1) << n
	probs = probs[:end]
	for sym < end {
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		var bit uint32
		rng, code, bit = decodeBitBranchless(&probs[sym], rng, code)
		sym = sym<<1 | bit
	}
	return sym - end, rng, code, ip
}

// decodeBitBranchless decodes one bit with the probability at p (already
// normalised range). The bits of the distance and length trees are close
// to random, so selecting with masks beats the mispredicted branches of
// the usual form.
func decodeBitBranchless(p *uint16, rng, code uint32) (uint32, uint32, uint32) {
	pr := uint32(*p)
	bound := (rng >> probBits) * pr
	// zero is all ones when code < bound (the bit is 0).
	zero := uint32(int32(uint32((uint64(code) - uint64(bound)) >> 32)))
	rng = bound&zero | (rng-bound)&^zero
	code -= bound &^ zero
	*p = uint16((pr+(probOne-pr)>>moveBits)&zero | (pr-pr>>moveBits)&^zero)
	return rng, code, ^zero & 1
}

// bitTreeRev decodes an n-bit symbol LSB first from probs[1:1<<n].
func bitTreeRev(probs []uint16, n uint, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	m := uint32(1)
	sym := uint32(0)
	probs = probs[:1<<n]
	for i := uint(0); i < n; i++ {
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		var bit uint32
		rng, code, bit = decodeBitBranchless(&probs[m&(1<<n-1)], rng, code)
		m = m<<1 | bit
		sym |= bit << i
	}
	return sym, rng, code, ip
}

// decodeLenTail decodes a match length (0-based) after a 1 choice bit,
// with the length coder at probs[0:lenCoderLen].
func decodeLenTail(probs []uint16, posState int, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	probs = probs[:lenCoderLen]
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	p := probs[lenChoice2]
	bound := (rng >> probBits) * uint32(p)
	if code < bound {
		rng = bound
		probs[lenChoice2] = p + (probOne-p)>>moveBits
		off := lenMid + posState*lenMidSyms
		var s uint32
		s, rng, code, ip = bitTree(probs[off:off+lenMidSyms], 3, rng, code, in, ip)
		return s + lenLowSyms, rng, code, ip
	}
	rng -= bound
	code -= bound
	probs[lenChoice2] = p - p>>moveBits
	var s uint32
	s, rng, code, ip = decodeByte((*[lenHighSyms]uint16)(probs[lenHigh:lenHigh+lenHighSyms]), rng, code, in, ip)
	return s + lenLowSyms + lenMidSyms, rng, code, ip
}

// run decodes symbols into d.dict until d.pos reaches limit, the input
// position reaches inLimit (checked before each symbol), or an end marker
// is decoded (d.eos). The caller guarantees maxSymbolInput readable bytes
// of d.in beyond inLimit.
func (d *decoder) run(limit, inLimit int) error {
	dict := d.dict
	dictLen := len(dict)
	if limit > dictLen {
		return errCorrupt
	}
	pos := d.pos
	full := d.full

	// Finish a match interrupted by the previous limit.
	if d.pendLen > 0 {
		n := d.pendLen
		if n > limit-pos {
			n = limit - pos
		}
		pos = copyMatch(dict, pos, int(d.rep0)+1, n)
		d.pendLen -= n
		d.pos = pos
		if d.pendLen > 0 {
			return nil
		}
	}

	probs := d.probs
	in := d.in
	ip := d.ip
	rng, code := d.rng, d.code
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep0, d.rep1, d.rep2, d.rep3
	pbMask, lpMask := d.pbMask, d.lpMask
	lc := d.lc
	litShift := 8 - lc
	var err error

	for pos < limit && ip < inLimit {
		posState := pos & pbMask
		i := offIsMatch + int(state)<<4 + posState
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		p := probs[i]
		bound := (rng >> probBits) * uint32(p)
		if code < bound {
			rng = bound
			probs[i] = p + (probOne-p)>>moveBits
			// Literal.
			prev := 0
			if pos > 0 {
				prev = int(dict[pos-1])
			} else if full {
				prev = int(dict[dictLen-1])
			}
			base := offLiteral + literalCoderSize*(((pos&lpMask)<<lc)+prev>>litShift)
			var sym uint32
			if afterLiteral(state) {
				sym, rng, code, ip = decodeByte((*[0x100]uint16)(probs[base:base+0x100]), rng, code, in, ip)
			} else {
				src := pos - int(rep0) - 1
				if src < 0 {
					src += dictLen
				}
				sym, rng, code, ip = decodeMatchedLiteral((*[matchedLiteralProbs]uint16)(probs[base:base+matchedLiteralProbs]), uint32(dict[src]), rng, code, in, ip)
			}
			dict[pos] = byte(sym)
			pos++
			state = stateAfterLit(state)
			continue
		}
		rng -= bound
		code -= bound
		probs[i] = p - p>>moveBits

		// isRep
		i = offIsRep + int(state)
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		p = probs[i]
		bound = (rng >> probBits) * uint32(p)
		var length uint32
		lenOff := offLenRep
		simple := code < bound
		if simple {
			rng = bound
			probs[i] = p + (probOne-p)>>moveBits
			lenOff = offLenMatch
		} else {
			rng -= bound
			code -= bound
			probs[i] = p - p>>moveBits
			// isRepG0
			i = offIsRepG0 + int(state)
			if rng < rangeTop {
				rng <<= 8
				code = code<<8 | uint32(in[ip])
				ip++
			}
			p = probs[i]
			bound = (rng >> probBits) * uint32(p)
			if code < bound {
				rng = bound
				probs[i] = p + (probOne-p)>>moveBits
				// isRep0Long
				i = offIsRep0Long + int(state)<<4 + posState
				if rng < rangeTop {
					rng <<= 8
					code = code<<8 | uint32(in[ip])
					ip++
				}
				p = probs[i]
				bound = (rng >> probBits) * uint32(p)
				if code < bound {
					rng = bound
					probs[i] = p + (probOne-p)>>moveBits
					// Short rep: one byte at distance rep0.
					if !full && uint(rep0) >= uint(pos) || uint(rep0) >= uint(dictLen) {
						err = errDistance
						break
					}
					src := pos - int(rep0) - 1
					if src < 0 {
						src += dictLen
					}
					dict[pos] = dict[src]
					pos++
					state = stateAfterShortRep(state)
					continue
				}
				rng -= bound
				code -= bound
				probs[i] = p - p>>moveBits
			} else {
				rng -= bound
				code -= bound
				probs[i] = p - p>>moveBits
				var dist uint32
				// isRepG1
				i = offIsRepG1 + int(state)
				if rng < rangeTop {
					rng <<= 8
					code = code<<8 | uint32(in[ip])
					ip++
				}
				p = probs[i]
				bound = (rng >> probBits) * uint32(p)
				if code < bound {
					rng = bound
					probs[i] = p + (probOne-p)>>moveBits
					dist = rep1
				} else {
					rng -= bound
					code -= bound
					probs[i] = p - p>>moveBits
					// isRepG2
					i = offIsRepG2 + int(state)
					if rng < rangeTop {
						rng <<= 8
						code = code<<8 | uint32(in[ip])
						ip++
					}
					p = probs[i]
					bound = (rng >> probBits) * uint32(p)
					if code < bound {
						rng = bound
						probs[i] = p + (probOne-p)>>moveBits
						dist = rep2
					} else {
						rng -= bound
						code -= bound
						probs[i] = p - p>>moveBits
						dist = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = dist
			}
			state = stateAfterRep(state)
		}

		// Length: the choice bit and the low 3-bit tree inline.
		lcd := probs[lenOff : lenOff+lenCoderLen]
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		p = lcd[lenChoice]
		bound = (rng >> probBits) * uint32(p)
		if code < bound {
			rng = bound
			lcd[lenChoice] = p + (probOne-p)>>moveBits
			lo := lcd[lenLow+posState*lenLowSyms : lenLow+posState*lenLowSyms+lenLowSyms]
			sym := uint32(1)
			for sym < lenLowSyms {
				if rng < rangeTop {
					rng <<= 8
					code = code<<8 | uint32(in[ip])
					ip++
				}
				p := uint32(lo[sym&7])
				bound := (rng >> probBits) * p
				m := uint32((int64(code) - int64(bound)) >> 63)
				rng = bound&m | (rng-bound)&^m
				code -= bound &^ m
				p0 := p + (probOne-p)>>moveBits
				p1 := p - p>>moveBits
				lo[sym&7] = uint16(p1 ^ (p0^p1)&m)
				sym = sym<<1 | ^m&1
			}
			length = sym - lenLowSyms
		} else {
			rng -= bound
			code -= bound
			lcd[lenChoice] = p - p>>moveBits
			length, rng, code, ip = decodeLenTail(lcd, posState, rng, code, in, ip)
		}

		if simple {
			var dist uint32
			dist, rng, code, ip = decodeDistance(probs, length, rng, code, in, ip)
			if dist == 0xFFFFFFFF {
				d.eos = true
				break
			}
			rep3, rep2, rep1, rep0 = rep2, rep1, rep0, dist
			state = stateAfterMatch(state)
		}

		// Copy the match.
		if full {
			if uint(rep0) >= uint(dictLen) {
				err = errDistance
				break
			}
		} else if uint(rep0) >= uint(pos) {
			err = errDistance
			break
		}
		n := int(length) + minMatchLen
		if n > limit-pos {
			d.pendLen = n - (limit - pos)
			n = limit - pos
		}
		if src := pos - int(rep0) - 1; src >= 0 && n <= 16 && rep0 >= 7 && pos+16 <= dictLen {
			// Short, not wrapping, distance at least 8: the common
			// case, copied as two words whatever the length (see
			// windowSlack for the bytes written past the match).
			binary.LittleEndian.PutUint64(dict[pos:], binary.LittleEndian.Uint64(dict[src:]))
			binary.LittleEndian.PutUint64(dict[pos+8:], binary.LittleEndian.Uint64(dict[src+8:]))
			pos += n
		} else {
			pos = copyMatch(dict, pos, int(rep0)+1, n)
		}
	}
	d.pos = pos
	d.ip = ip
	d.rng, d.code = rng, code
	d.state = state
	d.rep0, d.rep1, d.rep2, d.rep3 = rep0, rep1, rep2, rep3
	return err
}

// copyMatch copies n bytes from distance dist back to dict[pos:] and
// returns the new position. pos+n must not exceed len(dict); dist must not
// exceed len(dict).
func copyMatch(dict []byte, pos, dist, n int) int {
	src := pos - dist
	if src < 0 {
		// Source wraps around the end of the window.
		src += len(dict)
		k := len(dict) - src
		if k > n {
			k = n
		}
		// src > pos here, so a forward memmove is the right semantics.
		copy(dict[pos:pos+k], dict[src:src+k])
		pos += k
		n -= k
		if n == 0 {
			return pos
		}
		src = 0
	}
	end := pos + n
	if dist >= n {
		copy(dict[pos:end], dict[src:src+n])
		return end
	}
	if dist == 1 {
		b := dict[src]
		s := dict[pos:end]
		for i := range s {
			s[i] = b
		}
		return end
	}
	// Overlapping: the source region doubles with every copy.
	for pos < end {
		pos += copy(dict[pos:end], dict[src:pos])
	}
	return end
}
