package unpack5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// Params describes the file Reset starts (see lzcore.Params).
type Params = lzcore.Params

const (
	mainSyms     = 306
	distSyms5    = 64
	distSyms7    = 80
	lowSyms      = 16
	lenSyms      = 44
	blSyms       = lzcore.PrecodeSyms
	maxTableLens = mainSyms + distSyms7 + lowSyms + lenSyms

	// maxMatch bounds the bytes one symbol writes: the longest length
	// slot (4097) plus the distance bonus of 3.
	maxMatch = 4100

	// copySlack is the window space past a match that the 8-byte copy
	// loop may scribble on.
	copySlack = 16
	// ringExtra keeps the bytes scribbled past a match (< copySlack)
	// beyond the longest allowed distance.
	ringExtra = 32
	// winTail is the space past the ring that one symbol may write.
	winTail = maxMatch + copySlack + 16

	// decodeChunk is how much output decode produces at a time when
	// no filter block asks for more: small enough to stay in the
	// processor's cache for whoever reads it next.
	decodeChunk = 64 << 10

	maxFilterBlock = 4 << 20
	maxFilters     = 8192
)

// Length and distance slots: a base value and a number of extra bits
// (the arrays are padded to a power of two so that masked indexes need no
// bounds check).
var (
	lenSlotBase  [64]uint16
	lenSlotBits  [64]uint8
	distSlotBase [128]uint64
	distSlotBits [128]uint8
	// distLenBonus is the length added to a match by its distance slot:
	// one for distances above 0x100, 0x2000 and 0x40000 each (the slots
	// starting at 0x100, 0x2000 and 0x40000 hold exactly those).
	distLenBonus [128]uint8
)

func init() {
	for s := range lenSyms {
		if s >= 8 {
			k := s/4 - 1
			lenSlotBase[s], lenSlotBits[s] = uint16((4|s&3)<<k), uint8(k)
		} else {
			lenSlotBase[s] = uint16(s)
		}
	}
	for s := range distSyms7 {
		if s >= 4 {
			k := s/2 - 1
			distSlotBase[s], distSlotBits[s] = uint64(2|s&1)<<k, uint8(k)
		} else {
			distSlotBase[s] = uint64(s)
		}
		for _, t := range []uint64{0x100, 0x2000, 0x40000} {
			if distSlotBase[s] >= t {
				distLenBonus[s]++
			}
		}
	}
}

// corrupt returns the error of damaged packed data (lzcore.DataError).
func corrupt(what string) error {
	return &lzcore.DataError{Method: "rar5", What: what}
}

var (
	errTruncated   = corrupt("unexpected end of packed data")
	errBlockHeader = corrupt("bad block header")
	errNoTables    = corrupt("block without Huffman tables")
	errTable       = corrupt("bad Huffman table")
	errDistance    = corrupt("match distance beyond the data decoded")
	errFilter      = corrupt("bad filter")
	errTooMany     = corrupt("too many filters")
	errNotStarted  = errors.New("unpack5: Read before Reset")
)

// filterType is the type field (3 bits) of a RAR5 filter record.
type filterType uint8

const (
	filterDelta filterType = 0 // byte deltas over 1–32 interleaved channels
	filterE8    filterType = 1 // x86 CALL targets
	filterE8E9  filterType = 2 // x86 CALL and JMP targets
	filterARM   filterType = 3 // ARM BL targets
)

type filterDesc struct {
	start    int64 // stream position of the block
	length   int64
	typ      filterType
	channels uint8
}

// Decoder decodes RAR 5.0 / RAR 7 packed streams. Create it once with
// NewDecoder and Reset it for each file; it reuses its buffers.
type Decoder struct {
	br lzcore.BitReader

	winp      *[]byte
	win       []byte // ring plus winTail bytes that writes may spill into
	ring      int    // size of the circular window
	dict      int    // longest distance allowed, at most ring - ringExtra
	wpos      int    // window index of the next byte written
	total     int64  // stream position of the next byte written
	histStart int64  // oldest stream position still valid in the window
	rpos      int64  // stream position of the next byte to hand out or filter

	fileStart int64
	fileEnd   int64 // -1 unknown
	emitted   int64 // bytes handed out for this file

	blockEnd   int64 // bit position where the current block ends
	lastBlock  bool
	tablesRead bool
	streamDone bool
	started    bool
	err        error

	distSyms int
	dists    [4]uint64 // the most recent distances, newest first
	lastLen  int

	// decode's state between segments (see decode)
	segBase   int64 // stream position of win[0] in the current segment
	limit     int64 // stream position at which decode stops
	histAvail int   // a distance may reach back histAvail+wpos bytes

	mainH, distH, lowH, lenH, blH lzcore.Huffman
	lens                          [maxTableLens]byte

	filters       []filterDesc
	fhead         int
	lastFilterEnd int64
	fbuf, fout    []byte
	foutPos       int
}

// NewDecoder returns a Decoder ready to be Reset.
func NewDecoder() *Decoder {
	return &Decoder{}
}

// Reset prepares to decode the next file's packed stream from src. With
// p.Solid the window, tables and distances carry over from the previous
// file (whose remaining output, if any, is decoded and discarded first);
// otherwise everything starts afresh.
func (d *Decoder) Reset(src io.Reader, p Params) error {
	if p.Version != 0 && p.Version != 1 {
		d.err = &archive.UnsupportedError{What: fmt.Sprintf("RAR5 compression algorithm version %d", p.Version)}
		return d.err
	}
	if p.DictSize <= 0 || p.DictSize > math.MaxInt {
		d.err = corrupt("bad dictionary size")
		return d.err
	}
	solid := p.Solid && d.started && d.win != nil
	if solid {
		if d.err == nil {
			d.drain()
		}
		if d.err != nil {
			return d.err
		}
	}
	need := lzcore.WindowSize(p.DictSize, p.UnpackedSize, p.Solid)
	if need > math.MaxInt {
		d.err = corrupt("bad dictionary size")
		return d.err
	}
	if !solid {
		// A window at least as large is kept: the next file of an
		// archive often needs less, and a fresh window costs its page
		// faults again. The dictionary (the longest distance) is the
		// file's own.
		if d.win != nil && int64(d.ring-ringExtra) < need {
			lzcore.PutWindow(d.winp)
			d.winp, d.win = nil, nil
		}
		if d.win == nil {
			d.setWindow(int(max(need, min(p.MinWindow, math.MaxInt-ringExtra-winTail))))
		}
		d.dict = int(need)
		d.wpos, d.total, d.histStart = 0, 0, 0
		d.tablesRead = false
		d.dists = [4]uint64{}
		d.lastLen = 0
	} else if int64(d.dict) < need {
		if int64(d.ring-ringExtra) >= need {
			d.dict = int(need)
		} else {
			d.growWindow(int(need))
		}
	}
	if p.Version == 1 {
		d.distSyms = distSyms7
	} else {
		d.distSyms = distSyms5
	}
	d.br.ResetSize(src, p.PackedSize)
	d.rpos = d.total
	d.fileStart = d.total
	d.fileEnd = -1
	if p.UnpackedSize >= 0 {
		d.fileEnd = d.total + p.UnpackedSize
	}
	d.emitted = 0
	d.blockEnd = 0
	d.lastBlock = false
	d.streamDone = false
	d.started = true
	d.err = nil
	d.filters = d.filters[:0]
	d.fhead = 0
	d.lastFilterEnd = d.total
	d.fbuf = d.fbuf[:0]
	d.fout = d.fout[:0]
	d.foutPos = 0
	return nil
}

// setWindow takes a window for distances up to dict from the pool. The
// ring is ringExtra bytes longer than dict so that the bytes a match copy
// may scribble past its end are never ones a later match can reach.
func (d *Decoder) setWindow(dict int) {
	d.winp = lzcore.GetWindow(dict + ringExtra + winTail)
	d.win = *d.winp
	d.ring = dict + ringExtra
	d.dict = dict
}

// growWindow moves the valid history into a larger window.
func (d *Decoder) growWindow(dict int) {
	oldp, old, oring := d.winp, d.win, d.ring
	d.setWindow(dict)
	n := lzcore.MoveHistory(d.win, old, oring, d.wpos, d.total-d.histStart)
	lzcore.PutWindow(oldp)
	d.wpos = n
	d.histStart = d.total - int64(n)
}

// Close returns the window to the pool. The Decoder may be Reset again.
func (d *Decoder) Close() error {
	lzcore.PutWindow(d.winp)
	d.winp, d.win = nil, nil
	d.started = false
	d.err = nil
	return nil
}

// drain decodes and discards the rest of the current file.
func (d *Decoder) drain() {
	if err := lzcore.Drain((*output)(d)); err != nil {
		d.err = err
	}
}

// Read reads decoded bytes: exactly UnpackedSize of them (or up to the end
// of the stream when the size is unknown), then io.EOF.
func (d *Decoder) Read(p []byte) (int, error) { return lzcore.Read((*output)(d), p) }

// WriteTo writes the rest of the file's decoded bytes to w.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) { return lzcore.WriteTo((*output)(d), w) }

// output is the Decoder as an lzcore.Source.
type output Decoder

// Next returns the next decoded bytes to hand out; before Reset, an
// error.
func (o *output) Next() ([]byte, error) {
	if !o.started {
		return nil, errNotStarted
	}
	return (*Decoder)(o).next()
}

// Consume marks n bytes handed out: from the filter output buffer while
// it holds bytes (next hands those out first), else from the window.
func (o *output) Consume(n int) {
	if o.foutPos < len(o.fout) {
		o.foutPos += n
	} else {
		o.rpos += int64(n)
	}
	o.emitted += int64(n)
}

// winIndex returns the window index of stream position pos, which must be
// within the valid history.
func (d *Decoder) winIndex(pos int64) int {
	i := d.wpos - int(d.total-pos)
	if i < 0 {
		i += d.ring
	}
	return i
}

// next returns the next decoded bytes ready to hand out, decoding more when
// needed: first the filter output buffer, then the window.
func (d *Decoder) next() (b []byte, err error) {
	for {
		if d.err != nil {
			return nil, d.err
		}
		rem := int64(math.MaxInt64)
		if d.fileEnd >= 0 {
			rem = d.fileEnd - d.fileStart - d.emitted
			if rem <= 0 {
				return nil, io.EOF
			}
		}
		if d.foutPos < len(d.fout) {
			b = d.fout[d.foutPos:]
			if int64(len(b)) > rem {
				b = b[:rem]
			}
			return b, nil
		}
		lim := d.total
		var f *filterDesc
		if d.fhead < len(d.filters) {
			f = &d.filters[d.fhead]
			lim = min(lim, f.start)
		}
		if d.rpos < lim {
			i := d.winIndex(d.rpos)
			n := min(lim-d.rpos, int64(d.ring-i), rem)
			return d.win[i : i+int(n)], nil
		}
		if f != nil && d.rpos >= f.start && d.total > d.rpos {
			if f.typ == filterDelta && d.rpos == f.start && d.total >= f.start+f.length {
				// The whole block is decoded: when it does not wrap,
				// the filter reads it from the window, saving the
				// copy into fbuf.
				if i := d.winIndex(d.rpos); i+int(f.length) <= d.ring {
					d.delta(d.win[i:i+int(f.length)], f.channels)
					d.rpos += f.length
					d.fhead++
					continue
				}
			}
			fend := f.start + f.length
			if d.rpos == f.start && d.total < fend && !d.streamDone && fend <= d.decodeLimit() {
				// the block fits in the window: decode the rest of
				// it rather than collect it piecemeal
				d.err = lzcore.Locate(d.decode(fend), d.br.InputOffset())
				continue
			}
			end := min(d.total, fend)
			d.collect(end)
			if int64(len(d.fbuf)) == f.length {
				d.applyFilter(f)
				d.fhead++
			}
			continue
		}
		if d.streamDone {
			if f != nil {
				// The stream ended inside a filter block: hand the
				// collected bytes out unfiltered.
				d.fbuf, d.fout = d.fout[:0], d.fbuf
				d.foutPos = 0
				d.fhead++
				continue
			}
			if d.fileEnd >= 0 {
				d.err = lzcore.Locate(errTruncated, d.br.InputOffset())
				continue
			}
			return nil, io.EOF
		}
		d.err = lzcore.Locate(d.decode(d.total+decodeChunk), d.br.InputOffset())
	}
}

// collect appends the window bytes from rpos up to end to the filter input.
func (d *Decoder) collect(end int64) {
	for d.rpos < end {
		i := d.winIndex(d.rpos)
		n := min(end-d.rpos, int64(d.ring-i))
		d.fbuf = append(d.fbuf, d.win[i:i+int(n)]...)
		d.rpos += n
	}
}

func (d *Decoder) applyFilter(f *filterDesc) {
	off := f.start - d.fileStart
	switch f.typ {
	case filterDelta:
		d.delta(d.fbuf, f.channels)
		d.fbuf = d.fbuf[:0]
	case filterE8, filterE8E9:
		filters.RAR5E8(d.fbuf, off, f.typ == filterE8E9)
		d.fbuf, d.fout = d.fout[:0], d.fbuf
	case filterARM:
		filters.RARARM(d.fbuf, off)
		d.fbuf, d.fout = d.fout[:0], d.fbuf
	}
	d.foutPos = 0
}

// delta decodes a delta-filtered block from src into fout.
func (d *Decoder) delta(src []byte, channels uint8) {
	n := len(src)
	if cap(d.fout) < n {
		d.fout = make([]byte, n, max(n, 64<<10))
	}
	d.fout = d.fout[:n]
	filters.RARDelta(d.fout, src, int(channels))
	d.foutPos = 0
}

// readBlockHeader reads the header of the next compressed block and, when
// present, its Huffman tables.
func (d *Decoder) readBlockHeader() error {
	br := &d.br
	br.AlignByte()
	br.Refill()
	flags := byte(br.ReadBits(8))
	sum := byte(br.ReadBits(8))
	nb := int(flags>>3&3) + 1
	if nb == 4 {
		return errBlockHeader
	}
	check := 0x5a ^ flags
	var size int64
	for i := range nb {
		b := byte(br.ReadBits(8))
		check ^= b
		size |= int64(b) << (8 * i)
	}
	if br.Truncated() {
		return errTruncated
	}
	if check != sum {
		return errBlockHeader
	}
	start := br.BitPos()
	d.blockEnd = start
	if size > 0 {
		d.blockEnd = start + (size-1)*8 + int64(flags&7) + 1
	}
	d.lastBlock = flags&0x40 != 0
	if flags&0x80 != 0 {
		if err := d.readTables(); err != nil {
			return err
		}
		d.tablesRead = true
	} else if !d.tablesRead {
		return errNoTables
	}
	return nil
}

// readTables reads the code lengths of the four Huffman codes.
func (d *Decoder) readTables() error {
	br := &d.br
	lens := d.lens[:mainSyms+d.distSyms+lowSyms+lenSyms]
	if !lzcore.ReadCodeLengths(br, &d.blH, lens, false) {
		return errTable
	}
	if br.Truncated() {
		return errTruncated
	}
	d.mainH.Init(lens[:mainSyms])
	lens = lens[mainSyms:]
	d.distH.Init(lens[:d.distSyms])
	lens = lens[d.distSyms:]
	d.lowH.Init(lens[:lowSyms])
	d.lenH.Init(lens[lowSyms : lowSyms+lenSyms])
	return nil
}

// readFilterNum reads a filter's 1-4 byte little-endian number.
func readFilterNum(br *lzcore.BitReader) int64 {
	n := int(br.ReadBits(2)) + 1
	var v int64
	for i := range n {
		v |= int64(br.ReadBits(8)) << (8 * i)
	}
	return v
}

// readFilter reads a filter record; cur is the stream position of the
// next byte to be decoded.
func (d *Decoder) readFilter(cur int64) error {
	br := &d.br
	br.Refill()
	off := readFilterNum(br)
	length := readFilterNum(br)
	typ := filterType(br.ReadBits(3))
	var ch uint8
	switch typ {
	case filterDelta:
		ch = uint8(br.ReadBits(5)) + 1
	case filterE8, filterE8E9, filterARM:
	default:
		return errFilter
	}
	if length > maxFilterBlock {
		return errFilter
	}
	if length == 0 {
		return nil
	}
	if len(d.filters)-d.fhead >= maxFilters {
		return errTooMany
	}
	start := cur + off
	if start < d.lastFilterEnd {
		return errFilter
	}
	if d.fhead == len(d.filters) {
		d.filters = d.filters[:0]
		d.fhead = 0
	}
	d.filters = append(d.filters, filterDesc{start: start, length: length, typ: typ, channels: ch})
	d.lastFilterEnd = start + length
	return nil
}

// decodeLimit returns the stream position up to which the window can hold
// decoded output that is not yet handed out (the last match may overshoot
// it, into the spare bytes).
func (d *Decoder) decodeLimit() int64 {
	return d.rpos + int64(d.ring) - maxMatch - copySlack
}

// decode decodes symbols until the stream position target (or a match
// beyond it), the most pending output the window can safely hold, the
// file's size or the end of its last block, whichever comes first.
// Decoding in chunks (see decodeChunk) rather than filling the window
// lets the filters, the checksum and the writer read the output while it
// is still in the cache.
//
// The bit reader's state lives in locals inside the loop; it is stored
// back before every call that uses the reader.
//
// This loop and unpack3's decodeLZ look alike but stay separate: they
// differ in the symbol alphabets, length and distance slots, repeat
// rules and filter bookkeeping, and each keeps the bit reader
// (lzcore.BitReader's V, N, Pos, Data), the Huffman lookup tables
// (lzcore.Huffman.Table) and the window in locals with the format's
// branches inlined; a shared loop with per-format hooks would put calls
// on the per-symbol path. They share everything below it: lzcore.Load for
// the refill, lzcore.Huffman for the tables, the window pool.
func (d *Decoder) decode(target int64) error {
	if d.fileEnd >= 0 && d.total >= d.fileEnd {
		d.streamDone = true
		return nil
	}
	limit := min(d.decodeLimit(), target)
	if d.fileEnd >= 0 && limit > d.fileEnd {
		limit = d.fileEnd
	}
	if limit <= d.total {
		return corrupt("internal window state")
	}
	win := d.win
	// Symbols are decoded in segments in which wpos stays below stop
	// (<= ring), so literals need no wrap check; a match may run past the
	// ring into the tail, which is moved to the front when the segment
	// ends. What the loop needs only there or for matches lives in d
	// (segBase, limit, histAvail, dists, lastLen), not in locals, which
	// leaves the registers to the symbol loop.
	wpos := d.wpos
	d.segBase = d.total - int64(wpos)
	d.limit = limit
	stop := min(wpos+int(limit-d.total), d.ring)
	// the history available to a match is what precedes wpos since
	// histStart; once it covers the dictionary only the dictionary
	// bounds distances
	if histLen := d.total - d.histStart; histLen >= int64(d.dict) {
		d.histAvail = math.MaxInt / 2
	} else {
		d.histAvail = int(histLen) - wpos
	}
	br := &d.br
	v, nb, pos, data := br.V, br.N, br.Pos, br.Data
	endRel := int(d.blockEnd - br.Base*8) // block end relative to data[0]
	mainQ := d.mainH.Table()
	var err error
loop:
	for {
		if wpos >= stop {
			if wpos >= d.ring {
				wpos = d.wrapTail(wpos)
			}
			rem := d.limit - (d.segBase + int64(wpos))
			if rem <= 0 {
				break
			}
			stop = min(wpos+int(rem), d.ring)
			continue
		}
		if nb < 32 {
			if pos+8 <= len(data) {
				v, nb, pos = lzcore.Load(v, nb, data, pos)
			} else {
				br.V, br.N, br.Pos = v, nb, pos
				if br.Truncated() {
					err = errTruncated
					break
				}
				br.RefillSlow()
				v, nb, pos, data = br.V, br.N, br.Pos, br.Data
				endRel = int(d.blockEnd - br.Base*8)
			}
		}
		if pos*8-int(nb) >= endRel {
			if d.lastBlock {
				d.streamDone = true
				break
			}
			br.V, br.N, br.Pos = v, nb, pos
			err = d.readBlockHeader()
			v, nb, pos, data = br.V, br.N, br.Pos, br.Data
			endRel = int(d.blockEnd - br.Base*8)
			mainQ = d.mainH.Table()
			if err != nil {
				break
			}
			continue
		}
		e := mainQ[v>>(64-lzcore.QuickBits)]
		if e-1 < 256<<4-1 {
			// A run of literals with short codes (e is sym<<4 | length,
			// length > 0), in a tight loop that leaves for anything else:
			// the segment's end, the end of the buffered input, the last
			// bytes of the block (before pos reaches endPos no bit of the
			// block's end has been consumed) or another kind of symbol.
			// pos moves only when bits are loaded, so the block-end
			// test is needed once here and after each load.
			endPos := (endRel + 7) >> 3
			if pos >= endPos {
				l := uint(e & 15)
				v <<= l
				nb -= l
				win[wpos] = byte(e >> 4)
				wpos++
				continue
			}
			// Two literals per turn, then a load: at the top at least
			// 32 bits are valid and a literal here takes at most
			// QuickBits, so the load needs no test of nb, a branch the
			// processor would mispredict a quarter of the time. The
			// loop works on lw, the window up to stop, and ld, the
			// input up to endPos: pos+8 <= endPos before a load keeps
			// pos below endPos after it, and the slices' lengths are
			// the loop's bounds, which leaves fewer values to hold in
			// registers and no bounds checks.
			lw := win[:stop]
			ld := data[:min(len(data), endPos)]
			for {
				l := uint(e & 15)
				v <<= l
				nb -= l
				lw[wpos] = byte(e >> 4)
				wpos++
				if wpos >= len(lw) {
					continue loop
				}
				e = mainQ[v>>(64-lzcore.QuickBits)]
				if e-1 >= 256<<4-1 {
					break
				}
				l = uint(e & 15)
				v <<= l
				nb -= l
				lw[wpos] = byte(e >> 4)
				wpos++
				if wpos >= len(lw) || pos+8 > len(ld) {
					continue loop
				}
				v, nb, pos = lzcore.Load(v, nb, ld, pos)
				e = mainQ[v>>(64-lzcore.QuickBits)]
				if e-1 >= 256<<4-1 {
					break
				}
			}
			// e is another kind of symbol, which begins inside the
			// block (pos < endPos) and below stop: decode it at once
			// instead of looking it up again at the top, after making
			// sure of 32 bits (only the first literal may leave fewer;
			// loading keeps the bits e was read from).
			if nb < 32 {
				if pos+8 > len(data) {
					continue
				}
				v, nb, pos = lzcore.Load(v, nb, data, pos)
			}
		}
		var sym int
		if e&15 != 0 {
			l := uint(e & 15)
			v <<= l
			nb -= l
			sym = int(e >> 4)
		} else {
			s, l := d.mainH.DecodeSlow(v)
			v <<= l
			nb -= l
			sym = s
		}
		if sym < 256 {
			win[wpos] = byte(sym)
			wpos++
			continue
		}
		var length int
		var dist uint64
		switch {
		case sym >= 262:
			// slot s: 2+s below 8, else (4|s&3)<<k + k extra bits
			// with k = s/4-1, computed rather than looked up to keep a
			// load off the bit reader's dependency chain
			slot := uint(sym-262) & 63
			k := slot>>2 - 1
			base := (4 | slot&3) << (k & 15)
			if slot < 8 {
				k, base = 0, slot
			}
			length = int(base) + 2 + int(v>>1>>(63-k))
			v <<= k
			nb -= k
			if nb < 56 {
				if pos+8 <= len(data) {
					v, nb, pos = lzcore.Load(v, nb, data, pos)
				} else {
					br.V, br.N, br.Pos = v, nb, pos
					br.Refill()
					v, nb, pos, data = br.V, br.N, br.Pos, br.Data
					endRel = int(d.blockEnd - br.Base*8)
				}
			}
			var ds int
			if e := d.distH.Table()[v>>(64-lzcore.QuickBits)]; e&15 != 0 {
				ds = int(e >> 4)
				l := uint(e & 15)
				v <<= l
				nb -= l
			} else {
				s, l := d.distH.DecodeSlow(v)
				ds = s
				v <<= l
				nb -= l
			}
			ds &= 127
			length += int(distLenBonus[ds])
			dist = distSlotBase[ds] + 1
			// k = distSlotBits[ds], computed (see the length slot)
			k = uint(ds)>>1 - 1
			if ds < 4 {
				k = 0
			}
			if k < 4 {
				dist += v >> 1 >> (63 - k)
				v <<= k
				nb -= k
			} else {
				{
					k -= 4
					if k > 0 {
						if k > 32 {
							dist += (v >> (64 - (k - 32))) << 36
							v <<= k - 32
							nb -= k - 32
							k = 32
						}
						dist += (v >> (64 - k)) << 4
						v <<= k
						nb -= k
					}
					if nb < 32 {
						if pos+8 <= len(data) {
							v, nb, pos = lzcore.Load(v, nb, data, pos)
						} else {
							br.V, br.N, br.Pos = v, nb, pos
							br.Refill()
							v, nb, pos, data = br.V, br.N, br.Pos, br.Data
							endRel = int(d.blockEnd - br.Base*8)
						}
					}
					if e := d.lowH.Table()[v>>(64-lzcore.QuickBits)]; e&15 != 0 {
						dist += uint64(e >> 4)
						l := uint(e & 15)
						v <<= l
						nb -= l
					} else {
						ls, l := d.lowH.DecodeSlow(v)
						dist += uint64(ls)
						v <<= l
						nb -= l
					}
				}
			}
			d.dists = [4]uint64{dist, d.dists[0], d.dists[1], d.dists[2]}
			d.lastLen = length
		case sym >= 258:
			// the distance moves to the front, the ones before it
			// one place back
			dists := &d.dists
			dist = dists[(sym-258)&3]
			switch sym {
			case 259:
				dists[1] = dists[0]
			case 260:
				dists[2], dists[1] = dists[1], dists[0]
			case 261:
				dists[3], dists[2], dists[1] = dists[2], dists[1], dists[0]
			}
			dists[0] = dist
			if nb < 32 {
				if pos+8 <= len(data) {
					v, nb, pos = lzcore.Load(v, nb, data, pos)
				} else {
					br.V, br.N, br.Pos = v, nb, pos
					br.Refill()
					v, nb, pos, data = br.V, br.N, br.Pos, br.Data
					endRel = int(d.blockEnd - br.Base*8)
				}
			}
			var ls int
			if e := d.lenH.Table()[v>>(64-lzcore.QuickBits)]; e&15 != 0 {
				ls = int(e >> 4)
				l := uint(e & 15)
				v <<= l
				nb -= l
			} else {
				s, l := d.lenH.DecodeSlow(v)
				ls = s
				v <<= l
				nb -= l
			}
			ls &= 63
			k := uint(lenSlotBits[ls])
			length = int(lenSlotBase[ls]) + 2 + int(v>>1>>(63-k))
			v <<= k
			nb -= k
			d.lastLen = length
		case sym == 257:
			length = d.lastLen
			if length == 0 {
				continue
			}
			dist = d.dists[0]
		default:
			br.V, br.N, br.Pos = v, nb, pos
			err = d.readFilter(d.segBase + int64(wpos))
			v, nb, pos, data = br.V, br.N, br.Pos, br.Data
			endRel = int(d.blockEnd - br.Base*8)
			if err != nil {
				break loop
			}
			continue
		}
		if dist-1 >= uint64(d.dict) || int(dist) > d.histAvail+wpos {
			err = errDistance
			break
		}
		// The destination always fits: wpos < ring and the tail holds a
		// match plus copySlack. A source that does not wrap is read
		// linearly, following the writes into the tail if need be; one
		// that wraps must end before the ring does for the fast copies.
		src := wpos - int(dist)
		if src < 0 {
			src += d.ring
		}
		if src < wpos || src+length+copySlack <= d.ring {
			switch {
			case length <= 16 && dist >= 8:
				// two 8-byte moves; the second may read what the
				// first wrote, as the match semantics require
				t := win[wpos : wpos+16]
				f := win[src : src+16]
				binary.LittleEndian.PutUint64(t[0:8], binary.LittleEndian.Uint64(f[0:8]))
				binary.LittleEndian.PutUint64(t[8:16], binary.LittleEndian.Uint64(f[8:16]))
			case length >= 64 && int(dist) >= length:
				copy(win[wpos:wpos+length], win[src:src+length])
			case int(dist) < length && length >= 32:
				// overlapping: copy the period once, then double it
				dst := win[wpos : wpos+length]
				k := copy(dst, win[src:wpos])
				for k < length {
					k += copy(dst[k:], dst[:k])
				}
			case dist >= 8:
				// 8 bytes at a time; may write up to 7 bytes past the
				// match, into window space not yet in use.
				for k := 0; k < length; k += 8 {
					binary.LittleEndian.PutUint64(win[wpos+k:], binary.LittleEndian.Uint64(win[src+k:]))
				}
			default:
				for k := 0; k < length; k++ {
					win[wpos+k] = win[src+k]
				}
			}
			wpos += length
		} else {
			// wrapped source running past the end of the ring
			for k := 0; k < length; k++ {
				win[wpos] = win[src]
				wpos++
				src++
				if src == d.ring {
					src = 0
				}
			}
		}
	}
	if wpos >= d.ring {
		wpos = d.wrapTail(wpos)
	}
	br.V, br.N, br.Pos = v, nb, pos
	d.wpos = wpos
	d.total = d.segBase + int64(wpos)
	if err == nil {
		if br.Err() != nil {
			err = fmt.Errorf("rar5 data: %w", br.Err())
		} else if br.Truncated() {
			err = errTruncated
		}
	}
	return err
}

// wrapTail moves the bytes written past the ring (wpos >= ring) to its
// front, where they belong, and returns the new wpos.
func (d *Decoder) wrapTail(wpos int) int {
	d.segBase += int64(d.ring)
	d.histAvail += d.ring
	return copy(d.win, d.win[d.ring:wpos])
}
