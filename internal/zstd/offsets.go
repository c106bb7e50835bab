package zstd

import (
	"encoding/binary"
)

// OffsetCheck follows the sequences of a frame's compressed blocks for
// their offsets alone, as internal/stream's zstd check does beside
// klauspost's decoder (which turns an offset of 0 into 1 instead of
// refusing it): it reads the sequences section's tables as the Reader
// does, with the Reader's tables, and walks the bit stream for the
// offsets, passing over the lengths' extra bits. Reset starts each
// frame.
type OffsetCheck struct {
	seq seqState
}

// Reset starts a frame: no tables for the repeat mode, the initial
// repeated offsets.
func (c *OffsetCheck) Reset() { c.seq.reset() }

// Block reads the sequences section b of a compressed block (what
// follows its literals section), updating the tables and the repeated
// offsets. It returns the index of the first sequence whose offset is 0
// (-1 when none), and ok=false when b is not a section whose bit stream
// is read through exactly; the check cannot follow the frame further
// then.
func (c *OffsetCheck) Block(b []byte) (bad int, ok bool) {
	s := &c.seq
	if len(b) == 0 {
		return -1, false
	}
	nseq, h := int(b[0]), 1
	switch {
	case nseq == 255:
		if len(b) < 3 {
			return -1, false
		}
		nseq, h = int(b[1])+int(b[2])<<8+0x7F00, 3
	case nseq >= 128:
		if len(b) < 2 {
			return -1, false
		}
		nseq, h = (nseq-128)<<8+int(b[1]), 2
	}
	if nseq == 0 {
		return -1, true // no sequences (in any of the three forms): tables and offsets stay
	}
	if len(b) < h+1 || b[h]&3 != 0 {
		return -1, false // no modes byte, or its reserved bits set
	}
	modes := b[h]
	b = b[h+1:]
	for k, mode := range [3]byte{modes >> 6, modes >> 4 & 3, modes >> 2 & 3} {
		switch mode {
		case 0:
			s.cur[k] = &predefinedTables()[k]
		case 1:
			if len(b) < 1 || int(b[0]) > seqMaxCode[k] {
				return -1, false
			}
			s.own[k].rle(k, b[0])
			s.cur[k] = &s.own[k]
			b = b[1:]
		case 2:
			log, n, used, ok := ReadNormalized(b, seqMaxCode[k], seqMaxLog[k], s.norm[:])
			if !ok || !s.own[k].build(k, s.norm[:n], log) {
				return -1, false
			}
			s.cur[k] = &s.own[k]
			b = b[used:]
		case 3:
			if s.cur[k] == nil {
				return -1, false
			}
		}
	}
	if len(b) == 0 || b[len(b)-1] == 0 {
		return -1, false
	}
	return c.offsets(b, nseq)
}

// offsets walks the nseq sequences of the bit stream src (its last byte
// is not 0) for their offsets, as Reader.sequences reads them.
func (c *OffsetCheck) offsets(src []byte, nseq int) (bad int, ok bool) {
	s := &c.seq
	// The stream is read backwards as in Reader.sequences: a 64-bit
	// container holding buf[end-8:end], whose top used bits are consumed,
	// never reaching before buf (floor); a stream shorter than 8 bytes
	// is read behind pad = 8 zero bytes.
	buf, end, floor, used, llS, ofS, mlS := s.startStream(src)
	var val uint64 // reloaded before each offset
	ll, of, ml := &s.cur[kindLL].e, &s.cur[kindOF].e, &s.cur[kindML].e
	pad := len(buf) - len(src) // the zero bytes before a short stream
	r0, r1, r2 := s.reps[0], s.reps[1], s.reps[2]
	bad = -1
	for i := nseq; ; i-- {
		{ // an offset reads up to 31 bits
			k := min(int(used>>3), end-floor)
			end -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[end-8:])
		}
		le, oe, me := ll[llS&511], of[ofS&511], ml[mlS&511]
		// Offset_Value: a 1 above the code's extra bits.
		ox := uint64(oe.nbExtra)
		v := int((val<<(used&63)>>1 | 1<<63) >> ((63 - ox) & 63))
		used += ox + uint64(me.nbExtra) + uint64(le.nbExtra) // and the lengths' extra bits
		if v > 3 {
			r0, r1, r2 = v-3, r0, r1
		} else {
			if le.value != 0 { // a literal length code above 0
				v-- // 1, 2, 3: Repeated_Offset1, 2, 3
			} // after no literals: Repeated_Offset2, 3, Repeated_Offset1 - 1
			switch v {
			case 1:
				r0, r1 = r1, r0
			case 2:
				r0, r1, r2 = r2, r0, r1
			case 3:
				if r0 == 1 && bad < 0 {
					bad = nseq - i
				}
				r0, r1, r2 = r0-1, r0, r1
			}
		}
		if i == 1 {
			break
		}
		if used > 64-3*9 { // the states read up to 9 bits each
			k := min(int(used>>3), end-floor)
			end -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[end-8:])
		}
		nb := uint64(le.nbState)
		llS = uint64(le.next) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
		nb = uint64(me.nbState)
		mlS = uint64(me.next) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
		nb = uint64(oe.nbState)
		ofS = uint64(oe.next) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
	}
	if (end-pad)*8 != int(used) {
		return -1, false
	}
	s.reps = [3]int{r0, r1, r2}
	return bad, true
}
