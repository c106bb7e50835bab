package zstd

import (
	"encoding/binary"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// The types of block (RFC 8878, 3.1.1.2).
const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
)

// The types of literals section and of sequence table.
const (
	litRaw        = 0
	litRLE        = 1
	litCompressed = 2
	litTreeless   = 3

	modePredefined = 0
	modeRLE        = 1
	modeFSE        = 2
	modeRepeat     = 3
)

// seq is one sequence: litLen literals, then matchLen bytes from offset
// back.
type seq struct {
	litLen, matchLen, offset uint32
}

// seqKind is the coding of one of the three codes of the sequences
// across the blocks of a frame: the table the last block used, which the
// next may repeat.
type seqKind struct {
	def    *cTable // the predefined table
	maxLog int
	prev   *cTable // the last table used; nil at the start of a frame
	count  [53]uint32
	norm   [53]int16
	tabs   [2]cTable // the block's own tables, the one of the last block and the next
	codes  []uint8
}

// choose picks the mode of k's codes for a block of n sequences and
// appends its table description, returning the mode and the table.
func (k *seqKind) choose(out []byte, n int) ([]byte, uint8, *cTable) {
	maxSym := 0
	for s, c := range k.count {
		if c > 0 {
			maxSym = s
		}
	}
	if int(k.count[maxSym]) == n && n > 1 {
		return append(out, uint8(maxSym)), modeRLE, &rleTables[maxSym]
	}
	count := k.count[:maxSym+1]
	best, mode, t := 1e18, uint8(modePredefined), k.def
	if k.def.covers(count) {
		best = k.def.cost(count)
	}
	if k.prev != nil && k.prev.covers(count) {
		if c := k.prev.cost(count); c < best {
			best, mode, t = c, modeRepeat, k.prev
		}
	}
	if n >= 16 {
		log := optimalLog(k.maxLog, n, maxSym)
		norm := k.norm[:maxSym+1]
		normalize(norm, count, n, log)
		at := len(out)
		out = appendNCount(out, norm, log)
		if c := normCost(norm, log, count) + float64(8*(len(out)-at)); c < best {
			// Built in the table the previous block did not use.
			own := &k.tabs[0]
			if own == k.prev {
				own = &k.tabs[1]
			}
			own.build(norm, log)
			return out, modeFSE, own
		}
		out = out[:at]
	}
	return out, mode, t
}

// rleTables are the one-state tables of an RLE mode's symbol: a state
// that gives out no bits and stays; built by buildEncTables.
var rleTables [53]cTable

// blockEnc codes the blocks of a frame.
type blockEnc struct {
	huff       huff0.Scratch
	huffValid  bool // huff's last table is the decoder's
	huffNew    bool // the block's literals made huff take a new table
	reps       [3]uint32
	ll, ml, of seqKind
	ofVals     []uint32 // the offset values of the block's sequences
}

func (b *blockEnc) reset() {
	b.huffValid = false
	b.reps = [3]uint32{1, 4, 8}
	b.ll.def, b.ll.maxLog, b.ll.prev = llDefaultTable, llMaxLog, nil
	b.ml.def, b.ml.maxLog, b.ml.prev = mlDefaultTable, mlMaxLog, nil
	b.of.def, b.of.maxLog, b.of.prev = ofDefaultTable, ofMaxLog, nil
}

func appendBlockHeader(out []byte, last bool, typ int, size int) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(out, byte(h), byte(h>>8), byte(h>>16))
}

// encode appends the block of src whose sequences are seqs and literals
// lits: compressed, or raw when that is not smaller.
func (b *blockEnc) encode(out, src []byte, seqs []seq, lits []byte, last bool) []byte {
	start := len(out)
	out = appendBlockHeader(out, last, blockCompressed, 0)
	reps, llPrev, mlPrev, ofPrev, huffValid := b.reps, b.ll.prev, b.ml.prev, b.of.prev, b.huffValid
	b.huffNew = false
	out = b.literals(out, lits)
	out = b.sequences(out, seqs)
	size := len(out) - start - 3
	if size >= len(src) {
		// The decoder sees a raw block: its state stays as it was, but
		// for a Huffman table huff0 keeps and the decoder never saw.
		b.reps, b.ll.prev, b.ml.prev, b.of.prev = reps, llPrev, mlPrev, ofPrev
		b.huffValid = huffValid && !b.huffNew
		out = appendBlockHeader(out[:start], last, blockRaw, len(src))
		return append(out, src...)
	}
	h := uint32(size)<<3 | blockCompressed<<1
	if last {
		h |= 1
	}
	out[start], out[start+1], out[start+2] = byte(h), byte(h>>8), byte(h>>16)
	return out
}

// literals appends the literals section.
func (b *blockEnc) literals(out, lits []byte) []byte {
	n := len(lits)
	if n > 16 {
		if b.huffValid {
			b.huff.Reuse = huff0.ReusePolicyAllow
		} else {
			b.huff.Reuse = huff0.ReusePolicyNone
		}
		var comp []byte
		var reused bool
		var err error
		single := n < 1024
		if single {
			comp, reused, err = huff0.Compress1X(lits, &b.huff)
		} else {
			comp, reused, err = huff0.Compress4X(lits, &b.huff)
		}
		switch err {
		case nil:
			typ := uint32(litCompressed)
			if reused {
				typ = litTreeless
			}
			var hdr []byte
			c := uint32(len(comp))
			switch {
			case single:
				v := typ | uint32(n)<<4 | c<<14
				hdr = []byte{byte(v), byte(v >> 8), byte(v >> 16)}
			case n < 1024 && c < 1024:
				v := typ | 1<<2 | uint32(n)<<4 | c<<14
				hdr = []byte{byte(v), byte(v >> 8), byte(v >> 16)}
			case n < 16384 && c < 16384:
				v := typ | 2<<2 | uint32(n)<<4 | c<<18
				hdr = []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
			default:
				v := uint64(typ) | 3<<2 | uint64(n)<<4 | uint64(c)<<22
				hdr = []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32)}
			}
			b.huffNew = !reused
			if len(hdr)+len(comp) < n+rawLitHeader(n) {
				b.huffValid = true
				out = append(out, hdr...)
				return append(out, comp...)
			}
			// huff0 now holds a table the decoder will not see.
			b.huffValid = false
		case huff0.ErrUseRLE:
			return appendLitHeader(out, litRLE, n, lits[0])
		}
	}
	out = appendLitHeader(out, litRaw, n, 0)
	return append(out, lits...)
}

func rawLitHeader(n int) int {
	switch {
	case n < 32:
		return 1
	case n < 4096:
		return 2
	}
	return 3
}

// appendLitHeader appends the header of a raw or RLE literals section of
// n bytes, and for RLE its byte.
func appendLitHeader(out []byte, typ uint32, n int, rle byte) []byte {
	switch rawLitHeader(n) {
	case 1:
		out = append(out, byte(typ|uint32(n)<<3))
	case 2:
		v := typ | 1<<2 | uint32(n)<<4
		out = append(out, byte(v), byte(v>>8))
	default:
		v := typ | 3<<2 | uint32(n)<<4
		out = append(out, byte(v), byte(v>>8), byte(v>>16))
	}
	if typ == litRLE {
		out = append(out, rle)
	}
	return out
}

// sequences appends the sequences section of seqs.
func (b *blockEnc) sequences(out []byte, seqs []seq) []byte {
	n := len(seqs)
	switch {
	case n < 128:
		out = append(out, byte(n))
	case n < 0x7F00:
		out = append(out, byte(n>>8)+0x80, byte(n))
	default:
		out = append(out, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return out
	}
	ll, ml, of := &b.ll, &b.ml, &b.of
	ll.count, ml.count, of.count = [53]uint32{}, [53]uint32{}, [53]uint32{}
	llc, mlc, ofc := grow(ll.codes, n), grow(ml.codes, n), grow(of.codes, n)
	ll.codes, ml.codes, of.codes = llc, mlc, ofc
	ofVals := grow(b.ofVals, n)
	b.ofVals = ofVals
	r := b.reps
	for i, s := range seqs {
		// The offset's value: a repeat offset's number, or offset+3.
		var v uint32
		o := s.offset
		if s.litLen > 0 {
			switch o {
			case r[0]:
				v = 1
			case r[1]:
				v = 2
				r[0], r[1] = r[1], r[0]
			case r[2]:
				v = 3
				r[0], r[1], r[2] = r[2], r[0], r[1]
			}
		} else {
			switch o {
			case r[1]:
				v = 1
				r[0], r[1] = r[1], r[0]
			case r[2]:
				v = 2
				r[0], r[1], r[2] = r[2], r[0], r[1]
			case r[0] - 1:
				v = 3
				r[0], r[1], r[2] = r[0]-1, r[0], r[1]
			}
		}
		if v == 0 {
			v = o + 3
			r[0], r[1], r[2] = o, r[0], r[1]
		}
		ofVals[i] = v
		lc, mc, oc := llCode(s.litLen), mlCode(s.matchLen), uint8(bits.Len32(v)-1)
		llc[i], mlc[i], ofc[i] = lc, mc, oc
		ll.count[lc]++
		ml.count[mc]++
		of.count[oc]++
	}
	b.reps = r
	modeAt := len(out)
	out = append(out, 0)
	var llm, ofm, mlm uint8
	var llt, oft, mlt *cTable
	out, llm, llt = ll.choose(out, n)
	out, ofm, oft = of.choose(out, n)
	out, mlm, mlt = ml.choose(out, n)
	out[modeAt] = llm<<6 | ofm<<4 | mlm<<2
	ll.prev, of.prev, ml.prev = repeatable(llm, llt), repeatable(ofm, oft), repeatable(mlm, mlt)

	return encodeSeqs(out, seqs, ll.codes, ml.codes, of.codes, ofVals, llt, mlt, oft)
}

// encodeSeqs appends the bit stream of the sequences seqs, whose codes
// are llc, mlc and ofc and offset values ofVals, coded with the tables
// llt, mlt and oft: backwards from the last, whose states the decoder
// reads first.
func encodeSeqs(out []byte, seqs []seq, llc, mlc, ofc []uint8, ofVals []uint32, llt, mlt, oft *cTable) []byte {
	n := len(seqs)
	// A sequence takes at most 9+9+8 bits of states and 16+16+31 extra
	// bits: 12 bytes; a flush writes 8 bytes at a time.
	need := len(out) + 12*n + 24
	if cap(out) < need {
		out = append(make([]byte, 0, need+need/4), out...)
	}
	buf := out[:cap(out)]
	pos := len(out)
	var acc uint64
	var nb uint
	llSyms, llStates := llt.syms, llt.states
	mlSyms, mlStates := mlt.syms, mlt.states
	ofSyms, ofStates := oft.syms, oft.states
	initState := func(t *cTable, s uint8) uint32 {
		sym := t.syms[s]
		k := (sym.deltaBits + 1<<15) >> 16
		v := k<<16 - sym.deltaBits
		return uint32(t.states[int(v>>k)+int(sym.deltaState)])
	}
	last := n - 1
	mlState := initState(mlt, mlc[last])
	ofState := initState(oft, ofc[last])
	llState := initState(llt, llc[last])
	llc, mlc, ofc, ofVals = llc[:n], mlc[:n], ofc[:n], ofVals[:n]
	// The shifts' counts are masked, which they never exceed (nb stays
	// below 56, a state's bits below 10), so that they compile to plain
	// shifts.
	for i := last; i >= 0; i-- {
		lc, mc, oc := llc[i], mlc[i], ofc[i]
		if i != last {
			sym := ofSyms[oc]
			k := (ofState + sym.deltaBits) >> 16 & 31
			acc |= uint64(ofState&(1<<k-1)) << (nb & 63)
			nb += uint(k)
			ofState = uint32(ofStates[int(ofState>>k)+int(sym.deltaState)])
			sym = mlSyms[mc]
			k = (mlState + sym.deltaBits) >> 16 & 31
			acc |= uint64(mlState&(1<<k-1)) << (nb & 63)
			nb += uint(k)
			mlState = uint32(mlStates[int(mlState>>k)+int(sym.deltaState)])
			sym = llSyms[lc]
			k = (llState + sym.deltaBits) >> 16 & 31
			acc |= uint64(llState&(1<<k-1)) << (nb & 63)
			nb += uint(k)
			llState = uint32(llStates[int(llState>>k)+int(sym.deltaState)])
		}
		s := seqs[i]
		acc |= uint64(s.litLen-llBase[lc]) << (nb & 63)
		nb += uint(llBits[lc])
		binary.LittleEndian.PutUint64(buf[pos:], acc)
		pos += int(nb >> 3)
		acc >>= nb & 56
		nb &= 7
		acc |= uint64(s.matchLen-mlBase[mc]) << nb
		nb += uint(mlBits[mc])
		acc |= uint64(ofVals[i]&(1<<(oc&31)-1)) << (nb & 63)
		nb += uint(oc)
		binary.LittleEndian.PutUint64(buf[pos:], acc)
		pos += int(nb >> 3)
		acc >>= nb & 56
		nb &= 7
	}
	acc |= uint64(mlState&(1<<mlt.log-1)) << nb
	nb += uint(mlt.log)
	acc |= uint64(ofState&(1<<oft.log-1)) << nb
	nb += uint(oft.log)
	acc |= uint64(llState&(1<<llt.log-1)) << nb
	nb += uint(llt.log)
	acc |= 1 << nb // the end mark
	nb++
	binary.LittleEndian.PutUint64(buf[pos:], acc)
	pos += int(nb+7) >> 3
	return buf[:pos]
}

// repeatable returns the table a next block may repeat: none after RLE.
func repeatable(mode uint8, t *cTable) *cTable {
	if mode == modeRLE {
		return nil
	}
	return t
}
