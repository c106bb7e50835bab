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
	// hdr holds every probability but the literal coders', at the
	// offsets of consts.go; being part of the struct, it is addressed
	// from d without a register of its own. lit holds the literal
	// coders (the probabilities from offLiteral on).
	hdr [offLiteral]uint16
	lit []uint16

	lc, lp, pb     uint
	lpMask, pbMask int
	// litMask selects, in pos<<8 | the previous byte, the bits that
	// choose the literal coder (the low lp of pos, the high lc of the
	// byte): shifted left by lc and multiplied by 3 it is the coder's
	// offset, as in 7-Zip's LzmaDec.c.
	litMask uint32

	state                  uint32
	rep0, rep1, rep2, rep3 uint32
	// pendLen is the remaining length of a match cut short by the
	// output limit; it continues with distance rep0.
	pendLen int

	dict   []byte
	pos    int
	full   bool // the window has wrapped: all of dict holds history
	window int  // the length dict grows to (see allocWindow)
	sized  bool // the stream's size is known: dict grows to window in one step

	rng, code uint32
	in        []byte
	ip        int

	// run's limits on d.pos and d.ip, kept here rather than in
	// registers.
	limit, inLimit int

	eos bool // end marker decoded

	// Literal statistics (see litSample): the input consumed by the
	// literals decoded since the last choice, their number, and the
	// choice.
	litIn, litN int
	branchy     bool
}

// setProps installs lc/lp/pb, growing the probability array if needed.
func (d *decoder) setProps(lc, lp, pb uint) {
	d.lc, d.lp, d.pb = lc, lp, pb
	d.lpMask = 1<<lp - 1
	d.litMask = 0x100<<lp - 0x100>>lc
	d.pbMask = 1<<pb - 1
	n := numProbs(lc+lp) - offLiteral
	// Spare capacity past the last literal coder lets
	// decodeMatchedLiteral view each coder as matchedLiteralProbs entries.
	if cap(d.lit) < n+matchedLiteralProbs-literalCoderSize {
		d.lit = make([]uint16, n, n+matchedLiteralProbs-literalCoderSize)
	}
	d.lit = d.lit[:n]
}

// resetState puts the model into its initial state.
func (d *decoder) resetState() {
	// Doubling copies: memmove is several times faster than a loop of
	// 16-bit stores.
	for _, p := range [][]uint16{d.hdr[:], d.lit} {
		if len(p) > 0 {
			p[0] = probInit
			for n := 1; n < len(p); n *= 2 {
				copy(p[n:], p[:n])
			}
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
	probs := d.hdr[:]
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
//
// The loop keeps in local variables only what every symbol changes (the
// range coder, the position, the state and rep0) and reads everything
// else from d, so that the compiler keeps those in registers instead of
// spilling them: the probabilities other than the literals' are an array
// inside d, the limits are fields of d. The bits that select the kind of
// symbol and the low length tree are decoded with branches, which cost
// nothing when predicted (docs/PERFORMANCE.md, "Decoding of predictable
// data").
func (d *decoder) run(limit, inLimit int) error {
	if limit > len(d.dict) {
		return errCorrupt
	}
	pos := d.pos

	// Finish a match interrupted by the previous limit.
	if d.pendLen > 0 {
		n := d.pendLen
		if n > limit-pos {
			n = limit - pos
		}
		pos = copyMatch(d.dict, pos, int(d.rep0)+1, n)
		d.pendLen -= n
		d.pos = pos
		if d.pendLen > 0 {
			return nil
		}
	}

	d.limit, d.inLimit = limit, inLimit
	ip := d.ip
	rng, code := d.rng, d.code
	state := d.state
	rep0 := d.rep0
	// prev is the byte before pos (0 at the start of the stream), kept
	// in a register so that a literal's context does not wait for the
	// previous symbol's store.
	var prev uint32
	if pos > 0 {
		prev = uint32(d.dict[pos-1])
	} else if d.full {
		prev = uint32(d.dict[len(d.dict)-1])
	}
	var err error

	for pos < d.limit && ip < d.inLimit {
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(d.in[ip])
			ip++
		}
		i := offIsMatch + int(state)<<4 + pos&d.pbMask
		p := d.hdr[i]
		bound := (rng >> probBits) * uint32(p)
		if code < bound {
			rng = bound
			d.hdr[i] = p + (probOne-p)>>moveBits
			// Literal.
			dict := d.dict
			base := int((uint32(pos)<<8+prev)&d.litMask*3) << (d.lc & 15)
			var sym uint32
			ip0 := ip
			if state < numLitStates {
				probs := (*[0x100]uint16)(d.lit[base : base+0x100])
				if d.branchy {
					sym, rng, code, ip = decodeByteBranchy(probs, rng, code, d.in, ip)
				} else {
					sym, rng, code, ip = decodeLiteral(probs, rng, code, d.in, ip)
				}
			} else {
				src := pos - int(rep0) - 1
				if src < 0 {
					src += len(dict)
				}
				probs := (*[matchedLiteralProbs]uint16)(d.lit[base : base+matchedLiteralProbs])
				if d.branchy {
					sym, rng, code, ip = decodeMatchedLiteralBranchy(probs, uint32(dict[src]), rng, code, d.in, ip)
				} else {
					sym, rng, code, ip = decodeMatchedLit(probs, uint32(dict[src]), rng, code, d.in, ip)
				}
			}
			d.litIn += ip - ip0
			d.litN++
			d.dict[pos] = byte(sym)
			prev = sym
			pos++
			state = uint32(nextStateLit[state&15])
			continue
		}
		rng -= bound
		code -= bound
		d.hdr[i] = p - p>>moveBits

		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(d.in[ip])
			ip++
		}
		i = offIsRep + int(state)
		p = d.hdr[i]
		bound = (rng >> probBits) * uint32(p)
		var lenOff int // the length coder: offLenMatch for a simple match
		if code < bound {
			rng = bound
			d.hdr[i] = p + (probOne-p)>>moveBits
			lenOff = offLenMatch
		} else {
			rng -= bound
			code -= bound
			d.hdr[i] = p - p>>moveBits
			if pos == 0 && !d.full {
				// Every distance decoded is checked, so the reps
				// are valid once the window holds a byte.
				err = errDistance
				break
			}
			if rng < rangeTop {
				rng <<= 8
				code = code<<8 | uint32(d.in[ip])
				ip++
			}
			i = offIsRepG0 + int(state)
			p = d.hdr[i]
			bound = (rng >> probBits) * uint32(p)
			if code < bound {
				rng = bound
				d.hdr[i] = p + (probOne-p)>>moveBits
				if rng < rangeTop {
					rng <<= 8
					code = code<<8 | uint32(d.in[ip])
					ip++
				}
				i = offIsRep0Long + int(state)<<4 + pos&d.pbMask
				p = d.hdr[i]
				bound = (rng >> probBits) * uint32(p)
				if code < bound {
					rng = bound
					d.hdr[i] = p + (probOne-p)>>moveBits
					// Short rep: one byte at distance rep0.
					dict := d.dict
					src := pos - int(rep0) - 1
					if src < 0 {
						src += len(dict)
					}
					prev = uint32(dict[src])
					dict[pos] = byte(prev)
					pos++
					state = uint32(nextStateShortRep[state&15])
					continue
				}
				rng -= bound
				code -= bound
				d.hdr[i] = p - p>>moveBits
			} else {
				rng -= bound
				code -= bound
				d.hdr[i] = p - p>>moveBits
				if rng < rangeTop {
					rng <<= 8
					code = code<<8 | uint32(d.in[ip])
					ip++
				}
				i = offIsRepG1 + int(state)
				p = d.hdr[i]
				bound = (rng >> probBits) * uint32(p)
				var dist uint32
				if code < bound {
					rng = bound
					d.hdr[i] = p + (probOne-p)>>moveBits
					dist = d.rep1
				} else {
					rng -= bound
					code -= bound
					d.hdr[i] = p - p>>moveBits
					if rng < rangeTop {
						rng <<= 8
						code = code<<8 | uint32(d.in[ip])
						ip++
					}
					i = offIsRepG2 + int(state)
					p = d.hdr[i]
					bound = (rng >> probBits) * uint32(p)
					if code < bound {
						rng = bound
						d.hdr[i] = p + (probOne-p)>>moveBits
						dist = d.rep2
					} else {
						rng -= bound
						code -= bound
						d.hdr[i] = p - p>>moveBits
						dist = d.rep3
						d.rep3 = d.rep2
					}
					d.rep2 = d.rep1
				}
				d.rep1 = rep0
				rep0 = dist
			}
			state = uint32(nextStateRep[state&15])
			lenOff = offLenRep
		}

		// Length: the choice bit and the low 3-bit tree inline.
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(d.in[ip])
			ip++
		}
		p = d.hdr[lenOff+lenChoice]
		bound = (rng >> probBits) * uint32(p)
		var length uint32
		if code < bound {
			rng = bound
			d.hdr[lenOff+lenChoice] = p + (probOne-p)>>moveBits
			lo := lenOff + lenLow + pos&d.pbMask*lenLowSyms
			if rng < rangeTop {
				rng <<= 8
				code = code<<8 | uint32(d.in[ip])
				ip++
			}
			p = d.hdr[lo+1]
			bound = (rng >> probBits) * uint32(p)
			sym := 2
			if code < bound {
				rng = bound
				d.hdr[lo+1] = p + (probOne-p)>>moveBits
			} else {
				rng -= bound
				code -= bound
				d.hdr[lo+1] = p - p>>moveBits
				sym = 3
			}
			if rng < rangeTop {
				rng <<= 8
				code = code<<8 | uint32(d.in[ip])
				ip++
			}
			p = d.hdr[lo+sym]
			bound = (rng >> probBits) * uint32(p)
			if code < bound {
				rng = bound
				d.hdr[lo+sym] = p + (probOne-p)>>moveBits
				sym <<= 1
			} else {
				rng -= bound
				code -= bound
				d.hdr[lo+sym] = p - p>>moveBits
				sym = sym<<1 | 1
			}
			if rng < rangeTop {
				rng <<= 8
				code = code<<8 | uint32(d.in[ip])
				ip++
			}
			p = d.hdr[lo+sym]
			bound = (rng >> probBits) * uint32(p)
			if code < bound {
				rng = bound
				d.hdr[lo+sym] = p + (probOne-p)>>moveBits
				sym <<= 1
			} else {
				rng -= bound
				code -= bound
				d.hdr[lo+sym] = p - p>>moveBits
				sym = sym<<1 | 1
			}
			length = uint32(sym) - lenLowSyms
		} else {
			rng -= bound
			code -= bound
			d.hdr[lenOff+lenChoice] = p - p>>moveBits
			length, rng, code, ip = decodeLenTail(d.hdr[lenOff:lenOff+lenCoderLen], pos&d.pbMask, rng, code, d.in, ip)
		}

		if lenOff == offLenMatch {
			var dist uint32
			dist, rng, code, ip = decodeDist(&d.hdr, length, rng, code, d.in, ip)
			if uint(dist) >= uint(pos) && (!d.full || uint(dist) >= uint(len(d.dict)) || dist == 0xFFFFFFFF) {
				if dist == 0xFFFFFFFF {
					d.eos = true
				} else {
					err = errDistance
				}
				break
			}
			d.rep3, d.rep2, d.rep1, rep0 = d.rep2, d.rep1, rep0, dist
			state = uint32(nextStateMatch[state&15])
		}

		// Copy the match.
		n := int(length) + minMatchLen
		if n > d.limit-pos {
			d.pendLen = n - (d.limit - pos)
			n = d.limit - pos
		}
		dict := d.dict
		src := pos - int(rep0) - 1
		if src < 0 {
			src += len(dict)
		}
		if last := uint(len(dict) - 16); n <= 16 && uint(pos) <= last && uint(src) <= last {
			// A short match whose source and destination do not
			// wrap: the common case, copied 16 bytes whatever its
			// length (see windowSlack for the bytes written past the
			// match).
			to, from := (*[16]byte)(dict[pos:pos+16]), (*[16]byte)(dict[src:src+16])
			if rep0 >= 7 {
				// Two words; the second may read bytes the first
				// wrote.
				binary.LittleEndian.PutUint64(to[:8], binary.LittleEndian.Uint64(from[:8]))
				binary.LittleEndian.PutUint64(to[8:], binary.LittleEndian.Uint64(from[8:]))
			} else {
				// A distance below 8: byte by byte, each byte
				// read after the one rep0+1 before it is written.
				for k := range n {
					to[k&15] = from[k&15]
				}
			}
			pos += n
		} else {
			pos = copyMatch(dict, pos, int(rep0)+1, n)
		}
		prev = uint32(d.dict[pos-1])
	}
	d.pos = pos
	d.ip = ip
	d.rng, d.code = rng, code
	d.state = state
	d.rep0 = rep0
	if d.litN >= litSample {
		d.branchy = 2*8*d.litIn < branchyLitHalfBits*d.litN
		d.litIn, d.litN = 0, 0
	}
	return err
}

// The literal decoders are chosen by the information in the literals:
// branches cost nothing when predicted and a pipeline flush when not, so
// they win where a literal carries a bit or two (numbers, repetitive
// text) and lose to the branch-free decoders on varied data (about 6 bits
// a literal on mixed data). Every litSample literals run measures the
// input they took and decodes the next ones with branches if that was
// below branchyLitHalfBits/2 bits a literal (docs/PERFORMANCE.md, "Decoding of
// predictable data").
const (
	litSample          = 1 << 12
	branchyLitHalfBits = 5 // 2.5 bits
)

// State transitions after a literal, a simple match, a rep match and a
// short rep, as tables indexed by the state (their last entries unused).
var (
	nextStateLit      = [16]uint8{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}
	nextStateMatch    = [16]uint8{7, 7, 7, 7, 7, 7, 7, 10, 10, 10, 10, 10}
	nextStateRep      = [16]uint8{8, 8, 8, 8, 8, 8, 8, 11, 11, 11, 11, 11}
	nextStateShortRep = [16]uint8{9, 9, 9, 9, 9, 9, 9, 11, 11, 11, 11, 11}
)

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
