package zstd

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// seqEntry is one state of a sequence decoding table: the code's value
// before its extra bits, how many extra bits it reads, and how the next
// state is read (next + the next nbState bits).
type seqEntry struct {
	value   uint32
	next    uint16
	nbState uint8
	nbExtra uint8
}

// seqTable is an FSE decoding table of 1<<log states (log at most 9) for
// literal lengths, offsets or match lengths.
type seqTable struct {
	log uint8
	e   [512]seqEntry
}

// The three kinds of sequence codes, in the order of the modes byte.
const (
	kindLL = iota
	kindOF
	kindML
)

// The largest code and accuracy log of each kind.
var (
	seqMaxCode = [3]int{35, 31, 52}
	seqMaxLog  = [3]int{9, 8, 9}
)

// seqCodeValue returns the value before the extra bits, and the number
// of extra bits, of a code of kind k (the baselines are fse.go's).
func seqCodeValue(k, code int) (uint32, uint8) {
	switch k {
	case kindLL:
		return llBase[code], llBits[code]
	case kindOF:
		return 1 << code, uint8(code)
	}
	return mlBase[code], mlBits[code]
}

// build makes t the decoding table of kind k for the normalized
// distribution norm (-1: a probability below 1) of accuracy log. It
// reports false when the distribution does not fill the table.
func (t *seqTable) build(k int, norm []int16, log int) bool {
	size := 1 << log
	t.log = uint8(log)
	var next [53]uint16
	var sym [512]uint8
	high := size - 1
	for s, n := range norm {
		switch {
		case n == -1:
			sym[high] = uint8(s)
			high--
			next[s] = 1
		case n > 0:
			next[s] = uint16(n)
		}
	}
	step, mask, pos := size>>1+size>>3+3, size-1, 0
	for s, n := range norm {
		for range max(n, 0) {
			sym[pos&511] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return false
	}
	for u := range size {
		s := sym[u&511]
		ns := next[s]
		next[s]++
		nb := uint8(log) + 1 - uint8(bits.Len16(ns))
		v, x := seqCodeValue(k, int(s))
		t.e[u&511] = seqEntry{value: v, next: ns<<nb - uint16(size), nbState: nb, nbExtra: x}
	}
	return true
}

// rle makes t the table of one code (RLE mode): no state bits.
func (t *seqTable) rle(k int, code byte) {
	v, x := seqCodeValue(k, int(code))
	t.log = 0
	t.e[0] = seqEntry{value: v, nbExtra: x}
}

// predefinedTables are the tables of the predefined mode, built on first
// use.
var predefinedTables = sync.OnceValue(func() *[3]seqTable {
	t := new([3]seqTable)
	t[kindLL].build(kindLL, []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}, 6)
	t[kindOF].build(kindOF, []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}, 5)
	t[kindML].build(kindML, []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}, 6)
	return t
})

// seqState is what the sequences of a frame's blocks carry from block to
// block: the tables (for repeat mode) and the repeated offsets.
type seqState struct {
	cur  [3]*seqTable
	own  [3]seqTable
	reps [3]int
	norm [53]int16
	pad  [16]byte
	seqs []sequence
}

// startStream begins the backward reading of the sequences' bit stream
// src (its last byte is not 0), as sequences and OffsetCheck read it: buf
// is src, or src behind 8 zero bytes when shorter than 8; the 64-bit
// container of buf[end-8:end] has its top used bits consumed (the zero
// bits and the end marker, then the three codes' first states, which it
// returns); it never reaches before floor.
func (s *seqState) startStream(src []byte) (buf []byte, end, floor int, used, llS, ofS, mlS uint64) {
	buf, pad := src, 0
	if len(src) < 8 {
		buf = append(s.pad[:8:8], src...)
		pad = 8
	}
	end, floor = len(buf), min(len(buf), pad+8)
	used = uint64(9 - bits.Len8(src[len(src)-1]))
	val := binary.LittleEndian.Uint64(buf[end-8:])
	llLog, ofLog, mlLog := uint64(s.cur[kindLL].log), uint64(s.cur[kindOF].log), uint64(s.cur[kindML].log)
	llS = val << (used & 63) >> 1 >> ((63 - llLog) & 63)
	used += llLog
	ofS = val << (used & 63) >> 1 >> ((63 - ofLog) & 63)
	used += ofLog
	mlS = val << (used & 63) >> 1 >> ((63 - mlLog) & 63)
	used += mlLog
	return
}

func (s *seqState) reset() {
	s.cur = [3]*seqTable{}
	s.reps = [3]int{1, 4, 8}
}

// ReadNormalized reads an FSE table description (RFC 8878 section
// 4.1.1) from the start of b into norm, which holds at least maxCode+1
// entries: the accuracy log, the number of codes described and the bytes
// used. ok is false when it is malformed or exceeds maxCode or maxLog.
func ReadNormalized(b []byte, maxCode, maxLog int, norm []int16) (log, n, used int, ok bool) {
	peek := func(pos, n int) int { // n bits at bit pos, zeros past the end
		var v uint32
		for i := range 4 {
			if j := pos>>3 + i; j < len(b) {
				v |= uint32(b[j]) << (8 * i)
			}
		}
		return int(v>>(pos&7)) & (1<<n - 1)
	}
	if len(b) == 0 {
		return 0, 0, 0, false
	}
	log = int(b[0]&15) + 5
	if log > maxLog {
		return 0, 0, 0, false
	}
	pos, remaining, threshold, nbBits := 4, 1<<log+1, 1<<log, log+1
	sym, prev0 := 0, false
	for remaining > 1 && sym <= maxCode {
		if prev0 {
			for {
				r := peek(pos, 2)
				pos += 2
				if sym += r; sym > maxCode+1 {
					return 0, 0, 0, false
				}
				for i := sym - r; i < sym; i++ {
					norm[i] = 0
				}
				if r != 3 {
					break
				}
			}
			if sym > maxCode {
				break
			}
		}
		limit := 2*threshold - 1 - remaining
		count := peek(pos, nbBits)
		if low := count & (threshold - 1); low < limit {
			count = low
			pos += nbBits - 1
		} else {
			if count >= threshold {
				count -= limit
			}
			pos += nbBits
		}
		count--
		remaining -= max(count, -count)
		norm[sym] = int16(count)
		sym++
		prev0 = count == 0
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	used = (pos + 7) >> 3
	if remaining != 1 || sym > maxCode+1 || used > len(b) {
		return 0, 0, 0, false
	}
	return log, sym, used, true
}

// sequences decodes the sequences section b (at offset at) of a block
// and executes it with the block's literals lits into hist[op:], at most
// limit bytes of output in all.
func (z *Reader) sequences(b, lits []byte, at int64, limit int) error {
	s := &z.seq
	if len(b) == 0 {
		return corrupt(at, "missing sequences section")
	}
	nseq, h := int(b[0]), 1
	switch {
	case nseq == 255:
		if len(b) < 3 {
			return corrupt(at, "truncated sequences header")
		}
		nseq, h = int(b[1])+int(b[2])<<8+0x7F00, 3
	case nseq >= 128:
		if len(b) < 2 {
			return corrupt(at, "truncated sequences header")
		}
		nseq, h = (nseq-128)<<8+int(b[1]), 2
	}
	if nseq == 0 {
		if len(b) != h {
			return corrupt(at, "%d bytes after a sequences section of no sequences", len(b)-h)
		}
		if len(lits) > limit {
			return corrupt(at, "block of more than %d bytes", limit)
		}
		z.op += copy(z.hist[z.op:], lits)
		return nil
	}
	if len(b) < h+1 {
		return corrupt(at, "truncated sequences header")
	}
	modes := b[h]
	if modes&3 != 0 {
		return corrupt(at+int64(h), "reserved bits in the sequences' modes")
	}
	pos := h + 1
	for k, mode := range [3]byte{modes >> 6, modes >> 4 & 3, modes >> 2 & 3} {
		switch mode {
		case 0:
			s.cur[k] = &predefinedTables()[k]
		case 1:
			if pos >= len(b) || int(b[pos]) > seqMaxCode[k] {
				return corrupt(at+int64(pos), "bad RLE code")
			}
			s.own[k].rle(k, b[pos])
			s.cur[k] = &s.own[k]
			pos++
		case 2:
			log, n, used, ok := ReadNormalized(b[pos:], seqMaxCode[k], seqMaxLog[k], s.norm[:])
			if !ok || !s.own[k].build(k, s.norm[:n], log) {
				return corrupt(at+int64(pos), "bad FSE table description")
			}
			s.cur[k] = &s.own[k]
			pos += used
		case 3:
			if s.cur[k] == nil {
				return corrupt(at+int64(pos), "repeated table with none before")
			}
		}
	}
	src := b[pos:]
	at += int64(pos)
	if len(src) == 0 || src[len(src)-1] == 0 {
		return corrupt(at, "bad end of the sequences' bit stream")
	}

	// The stream is read backwards through a 64-bit container holding
	// buf[e-8:e], whose top used bits are consumed. buf is the stream, or
	// for a stream of less than 8 bytes the stream behind pad = 8 zero
	// bytes; the container never reaches before buf (floor), and a
	// stream read too far ends with more bits used than it has. A read
	// of n bits is val<<used>>1>>(63-n), which is 0 for n = 0; shifts are
	// masked to 63.
	buf, e, floor, used, llS, ofS, mlS := s.startStream(src)
	var val uint64 // the container, reloaded before each sequence
	llT, ofT, mlT := &s.cur[kindLL].e, &s.cur[kindOF].e, &s.cur[kindML].e
	pad := len(buf) - len(src) // the zero bytes before a short stream

	if nseq > limit/3+1 {
		return corrupt(at, "%d sequences in a block of at most %d bytes", nseq, limit)
	}
	if cap(s.seqs) < nseq {
		s.seqs = make([]sequence, nseq, max(nseq, 1<<12))
	}
	seqs := s.seqs[:nseq]
	r0, r1, r2 := s.reps[0], s.reps[1], s.reps[2]
	for i := range seqs {
		{
			k := min(int(used>>3), e-floor)
			e -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[e-8:])
		}
		le, oe, me := llT[llS&511], ofT[ofS&511], mlT[mlS&511]
		n := uint64(oe.nbExtra)
		ofv := int(oe.value) + int(val<<(used&63)>>1>>((63-n)&63))
		used += n
		n = uint64(me.nbExtra)
		ml := int(me.value) + int(val<<(used&63)>>1>>((63-n)&63))
		used += n
		if oe.nbExtra > 24 {
			k := min(int(used>>3), e-floor)
			e -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[e-8:])
		}
		n = uint64(le.nbExtra)
		ll := int(le.value) + int(val<<(used&63)>>1>>((63-n)&63))
		used += n

		var off int
		if ofv > 3 {
			off = ofv - 3
			r0, r1, r2 = off, r0, r1
		} else {
			if ll == 0 {
				ofv++
			}
			switch ofv {
			case 1:
				off = r0
			case 2:
				off = r1
				r0, r1 = r1, r0
			case 3:
				off = r2
				r0, r1, r2 = r2, r0, r1
			default:
				off = r0 - 1
				if off == 0 {
					return corrupt(at, "sequence %d of the block has offset 0", i+1)
				}
				r0, r1, r2 = off, r0, r1
			}
		}
		seqs[i] = sequence{ll: uint32(ll), ml: uint32(ml), off: uint32(off)}
		if i == len(seqs)-1 {
			break
		}
		if used > 64-26 { // the states read up to 9, 9 and 8 bits
			k := min(int(used>>3), e-floor)
			e -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[e-8:])
		}
		n = uint64(le.nbState)
		llS = uint64(le.next) + val<<(used&63)>>1>>((63-n)&63)
		used += n
		n = uint64(me.nbState)
		mlS = uint64(me.next) + val<<(used&63)>>1>>((63-n)&63)
		used += n
		n = uint64(oe.nbState)
		ofS = uint64(oe.next) + val<<(used&63)>>1>>((63-n)&63)
		used += n
	}
	if (e-pad)*8 != int(used) {
		return corrupt(at, "sequences' bit stream not read exactly")
	}
	op, err := z.execute(seqs, lits, at, limit)
	if err != nil {
		return err
	}
	s.reps = [3]int{r0, r1, r2}
	z.op = op
	return nil
}

// sequence is one decoded sequence: literal length, match length and
// offset.
type sequence struct{ ll, ml, off uint32 }

// execute writes the block of the sequences seqs and the literals lits
// (at offset at; at most limit bytes) to hist[z.op:], returning the end of
// the output.
func (z *Reader) execute(seqs []sequence, lits []byte, at int64, limit int) (int, error) {
	hist := z.hist
	op, lp := z.op, 0
	end := op + limit
	// base is where the frame's data still in hist begins, before hist[0]
	// (at the end of hist) when negative.
	window := z.window
	base := z.op - int(min(z.produced, int64(window)))
	for i, q := range seqs {
		ll, ml, off := int(q.ll), int(q.ml), int(q.off)
		if ll > len(lits)-lp || ml > end-op-ll {
			return 0, corrupt(at, "sequence %d of the block exceeds the block's literals or size", i+1)
		}
		if ll <= 16 {
			a, b := binary.LittleEndian.Uint64(lits[lp:lp+8:cap(lits)]), binary.LittleEndian.Uint64(lits[lp+8:lp+16:cap(lits)])
			binary.LittleEndian.PutUint64(hist[op:], a)
			binary.LittleEndian.PutUint64(hist[op+8:], b)
		} else {
			copy(hist[op:op+ll], lits[lp:lp+ll])
		}
		op += ll
		lp += ll
		if off > op-base || off > window {
			return 0, corrupt(at, "sequence %d of the block has offset %d beyond the window or the frame's start", i+1, off)
		}
		m := op - off
		if m < 0 { // from before hist[0]: the end of hist
			src := hist[z.wrapEnd+m : z.wrapEnd]
			k := copy(hist[op:op+min(ml, len(src))], src)
			op += k
			ml -= k
			m = 0
		}
		switch {
		case off >= 16 && ml <= 32:
			a, b := binary.LittleEndian.Uint64(hist[m:]), binary.LittleEndian.Uint64(hist[m+8:])
			binary.LittleEndian.PutUint64(hist[op:], a)
			binary.LittleEndian.PutUint64(hist[op+8:], b)
			if ml > 16 {
				a, b := binary.LittleEndian.Uint64(hist[m+16:]), binary.LittleEndian.Uint64(hist[m+24:])
				binary.LittleEndian.PutUint64(hist[op+16:], a)
				binary.LittleEndian.PutUint64(hist[op+24:], b)
			}
		case off >= 8 && ml <= 32:
			for j := 0; j < ml; j += 8 {
				binary.LittleEndian.PutUint64(hist[op+j:], binary.LittleEndian.Uint64(hist[m+j:]))
			}
		case off >= ml:
			copy(hist[op:op+ml], hist[m:m+ml])
		default:
			d := hist[m : op+ml]
			for n := off; n < len(d); n *= 2 {
				copy(d[n:], d[:n])
			}
		}
		op += ml
	}
	rest := len(lits) - lp
	if rest > end-op {
		return 0, corrupt(at, "block of more than %d bytes", limit)
	}
	op += copy(hist[op:op+rest], lits[lp:])
	return op, nil
}
