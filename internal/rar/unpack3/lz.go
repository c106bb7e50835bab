package unpack3

import (
	"encoding/binary"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// decode decodes until the window holds as much pending output as it
// safely can, the file's size is reached or its end marker is read.
func (d *Decoder) decode() error {
	if d.fileEnd >= 0 && d.total >= d.fileEnd {
		d.readTailMarker()
		d.streamDone = true
		return nil
	}
	limit := d.rpos + int64(len(d.win)) - maxMatch - copySlack
	if d.fileEnd >= 0 && limit > d.fileEnd {
		limit = d.fileEnd
	}
	if limit <= d.total {
		return corrupt("internal window state")
	}
	var err error
	for d.total < limit && !d.streamDone && err == nil {
		switch {
		case d.needHeader:
			err = d.readBlockHeader()
		case d.ppmMode:
			err = d.decodePPM(limit)
		default:
			err = d.decodeLZ(limit)
		}
	}
	if err == nil {
		if d.br.Err() != nil {
			err = corrupt(d.br.Err().Error())
		} else if d.br.Truncated() {
			err = errTruncated
		}
	}
	return err
}

// readBlockHeader reads an LZ block's tables or a PPMd block's parameters.
func (d *Decoder) readBlockHeader() error {
	br := &d.br
	br.AlignByte()
	br.Refill()
	if br.ReadBits(1) == 1 {
		flags := br.ReadBits(7)
		var mem uint32
		if flags&0x20 != 0 {
			mem = uint32(br.ReadBits(8)+1) << 20
		}
		if flags&0x40 != 0 {
			d.esc = byte(br.ReadBits(8))
		}
		if br.Truncated() {
			return errTruncated
		}
		if flags&0x20 != 0 {
			order := int(flags&0x1f) + 1
			if order > 16 {
				order = 16 + (order-16)*3
			}
			if order < 2 {
				return errPPM
			}
			if d.maxMem > 0 && int64(mem) > d.maxMem {
				return &archive.LimitError{What: "PPMd memory", Need: int64(mem), Limit: d.maxMem}
			}
			if d.model == nil {
				d.model = getModel()
			}
			if err := d.model.Init(order, mem); err != nil {
				return err
			}
		} else if d.model == nil {
			return errPPM
		}
		if err := d.ppm.Init(d.model, br); err != nil {
			return err
		}
		d.ppmMode = true
		d.needHeader = false
		return nil
	}
	if br.ReadBits(1) == 0 {
		clear(d.lens[:])
	}
	if err := d.readTables(); err != nil {
		return err
	}
	d.tablesOK = true
	d.ppmMode = false
	d.needHeader = false
	d.lowDist, d.lowRep = 0, 0
	return nil
}

// readTables reads the code lengths, each added to the previous table's.
func (d *Decoder) readTables() error {
	br := &d.br
	if !lzcore.ReadCodeLengths(br, &d.blH, d.lens[:], true) {
		return errTable
	}
	lens := d.lens[:]
	if br.Truncated() {
		return errTruncated
	}
	d.mainH.Init(lens[:mainSyms])
	d.distH.Init(lens[mainSyms : mainSyms+distSyms])
	d.lowH.Init(lens[mainSyms+distSyms : mainSyms+distSyms+lowSyms])
	d.lenH.Init(lens[mainSyms+distSyms+lowSyms:])
	return nil
}

// readEndMarker handles main symbol 256, whose bits are next in br.
func (d *Decoder) readEndMarker() {
	br := &d.br
	if br.ReadBits(1) == 1 {
		d.needHeader = true // new tables follow in this file
		return
	}
	d.needHeader = br.ReadBits(1) == 1
	d.streamDone = true
}

// readTailMarker consumes an end marker that follows a file's last byte,
// so that the next solid file starts in the right state.
func (d *Decoder) readTailMarker() {
	if d.needHeader || d.streamDone {
		return
	}
	br := &d.br
	if d.ppmMode {
		if br.BitsLeft() < 8 {
			return
		}
		c, err := d.ppm.DecodeSymbol()
		if err != nil || byte(c) != d.esc {
			return
		}
		c, err = d.ppm.DecodeSymbol()
		if err == nil && (c == 0 || c == 2) {
			d.needHeader = true
		}
		return
	}
	if !d.tablesOK {
		return
	}
	left := br.BitsLeft()
	s, l := d.mainH.DecodeV(br.V)
	if s == 256 && int64(l)+1 <= left {
		br.V <<= l
		br.N -= l
		if br.ReadBits(1) == 1 {
			d.needHeader = true
			return
		}
		if int64(l)+2 <= left {
			d.needHeader = br.ReadBits(1) == 1
		}
	}
}

// readRecordLZ reads a filter record from the bit stream into d.rec.
func (d *Decoder) readRecordLZ() []byte {
	br := &d.br
	flags := byte(br.ReadBits(8))
	n := int(flags&7) + 1
	switch n {
	case 7:
		n = int(br.ReadBits(8)) + 7
	case 8:
		n = int(br.ReadBits(16))
	}
	rec := append(d.rec[:0], flags)
	for range n {
		rec = append(rec, byte(br.ReadBits(8)))
	}
	d.rec = rec
	return rec
}

// decodeLZ decodes LZ symbols until total reaches limit or the block or
// file ends. The bit reader's state lives in locals in the loop.
//
// This loop and unpack5's decode look alike but stay separate: they
// differ in the symbol alphabets, length and distance slots, repeat
// rules and filter bookkeeping, and each keeps the bit reader
// (lzcore.BitReader's V, N, Pos, Data), the Huffman lookup tables
// (lzcore.Huffman.Table) and the window in locals with the format's
// branches inlined; a shared loop with per-format hooks would put calls
// on the per-symbol path. They share everything below it: lzcore.Load for
// the refill, lzcore.Huffman for the tables, the window pool.
func (d *Decoder) decodeLZ(limit int64) error {
	br := &d.br
	win := d.win
	wsize := len(win)
	wpos := d.wpos
	left := int(limit - d.total)
	startLeft := left
	histLen := d.total - d.histStart
	v, nb, pos, data := br.V, br.N, br.Pos, br.Data
	mainQ := d.mainH.Table()
	var err error
loop:
	for left > 0 {
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
			}
		}
		e := mainQ[v>>(64-lzcore.QuickBits)]
		if e-1 < 256<<4-1 {
			// a literal with a short code (e is sym<<4 | length, length > 0)
			l := uint(e & 15)
			v <<= l
			nb -= l
			win[wpos] = byte(e >> 4)
			wpos++
			if wpos == wsize {
				wpos = 0
			}
			left--
			continue
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
			if wpos == wsize {
				wpos = 0
			}
			left--
			continue
		}
		var length int
		var dist uint32
		switch {
		case sym >= 271:
			i := sym - 271
			length = int(lengthBase[i]) + 3
			if k := uint(lengthBits[i]); k > 0 {
				length += int(v >> (64 - k))
				v <<= k
				nb -= k
			}
			if nb < 48 {
				br.V, br.N, br.Pos = v, nb, pos
				br.Refill()
				v, nb, pos, data = br.V, br.N, br.Pos, br.Data
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
			dist = distBase[ds] + 1
			k := uint(distBits[ds])
			if k >= 4 {
				if k > 4 {
					dist += uint32(v>>(64-(k-4))) << 4
					v <<= k - 4
					nb -= k - 4
				}
				if d.lowRep > 0 {
					d.lowRep--
					dist += d.lowDist
				} else {
					if nb < 16 {
						br.V, br.N, br.Pos = v, nb, pos
						br.Refill()
						v, nb, pos, data = br.V, br.N, br.Pos, br.Data
					}
					var ls int
					if e := d.lowH.Table()[v>>(64-lzcore.QuickBits)]; e&15 != 0 {
						ls = int(e >> 4)
						l := uint(e & 15)
						v <<= l
						nb -= l
					} else {
						s, l := d.lowH.DecodeSlow(v)
						ls = s
						v <<= l
						nb -= l
					}
					if ls == 16 {
						d.lowRep = 15
						dist += d.lowDist
					} else {
						dist += uint32(ls)
						d.lowDist = uint32(ls)
					}
				}
			} else if k > 0 {
				dist += uint32(v >> (64 - k))
				v <<= k
				nb -= k
			}
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
			d.dists[3], d.dists[2], d.dists[1], d.dists[0] = d.dists[2], d.dists[1], d.dists[0], dist
			d.lastLen = length
		case sym >= 263:
			i := sym - 263
			k := uint(shortBits[i])
			dist = shortBase[i] + 1 + uint32(v>>(64-k))
			v <<= k
			nb -= k
			length = 2
			d.dists[3], d.dists[2], d.dists[1], d.dists[0] = d.dists[2], d.dists[1], d.dists[0], dist
			d.lastLen = length
		case sym >= 259:
			i := sym - 259
			dist = d.dists[i]
			copy(d.dists[1:i+1], d.dists[:i])
			d.dists[0] = dist
			if nb < 24 {
				br.V, br.N, br.Pos = v, nb, pos
				br.Refill()
				v, nb, pos, data = br.V, br.N, br.Pos, br.Data
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
			length = int(lengthBase[ls]) + 2
			if k := uint(lengthBits[ls]); k > 0 {
				length += int(v >> (64 - k))
				v <<= k
				nb -= k
			}
			d.lastLen = length
		case sym == 258:
			length = d.lastLen
			if length == 0 {
				continue
			}
			dist = d.dists[0]
		case sym == 257:
			br.V, br.N, br.Pos = v, nb, pos
			rec := d.readRecordLZ()
			if br.Truncated() {
				err = errTruncated
				break loop
			}
			err = d.parseFilter(rec, limit-int64(left))
			v, nb, pos, data = br.V, br.N, br.Pos, br.Data
			if err != nil {
				break loop
			}
			continue
		default: // 256
			br.V, br.N, br.Pos = v, nb, pos
			d.readEndMarker()
			v, nb, pos = br.V, br.N, br.Pos
			break loop
		}
		avail := histLen + int64(startLeft-left)
		if dist == 0 || int64(dist) > avail || int(dist) > d.dict {
			err = errDistance
			break
		}
		wpos = copyMatch(win, wpos, int(dist), length)
		left -= length
	}
	br.V, br.N, br.Pos = v, nb, pos
	d.wpos = wpos
	d.total = limit - int64(left)
	return err
}

// copyMatch copies length bytes from dist back to wpos in the circular
// window and returns the new write index. dist is within the window.
func copyMatch(win []byte, wpos, dist, length int) int {
	wsize := len(win)
	src := wpos - dist
	if src < 0 {
		src += wsize
	}
	if wpos+length+copySlack <= wsize && src+length+copySlack <= wsize {
		switch {
		case dist >= length && length >= 64:
			copy(win[wpos:wpos+length], win[src:src+length])
		case dist < length && length >= 32:
			// overlapping: copy the period once, then double it
			dst := win[wpos : wpos+length]
			k := copy(dst, win[src:wpos])
			for k < length {
				k += copy(dst[k:], dst[:k])
			}
		case dist >= 8:
			for k := 0; k < length; k += 8 {
				binary.LittleEndian.PutUint64(win[wpos+k:], binary.LittleEndian.Uint64(win[src+k:]))
			}
		default:
			for k := 0; k < length; k++ {
				win[wpos+k] = win[src+k]
			}
		}
		return wpos + length
	}
	for k := 0; k < length; k++ {
		win[wpos] = win[src]
		wpos++
		if wpos == wsize {
			wpos = 0
		}
		src++
		if src == wsize {
			src = 0
		}
	}
	return wpos
}

// decodePPM decodes PPMd symbols until total reaches limit or the block
// or file ends.
func (d *Decoder) decodePPM(limit int64) error {
	win := d.win
	wsize := len(win)
	for d.total < limit {
		// literals go straight into the window, up to the limit or the
		// ring's end
		n, escaped, err := d.ppm.DecodeLiterals(win[d.wpos:min(wsize, d.wpos+int(limit-d.total))], d.esc)
		d.wpos += n
		if d.wpos == wsize {
			d.wpos = 0
		}
		d.total += int64(n)
		if err != nil {
			return err
		}
		if !escaped {
			continue
		}
		c, err := d.ppm.DecodeSymbol()
		if err != nil {
			return err
		}
		var dist, length int
		switch c {
		case 0:
			d.needHeader = true
			return nil
		case 2:
			d.needHeader = true
			d.streamDone = true
			return nil
		case 3:
			if err := d.readRecordPPM(); err != nil {
				return err
			}
			if err := d.parseFilter(d.rec, d.total); err != nil {
				return err
			}
			continue
		case 4:
			for range 3 {
				b, err := d.ppm.DecodeSymbol()
				if err != nil {
					return err
				}
				dist = dist<<8 | b
			}
			b, err := d.ppm.DecodeSymbol()
			if err != nil {
				return err
			}
			dist += 2
			length = b + 32
		case 5:
			b, err := d.ppm.DecodeSymbol()
			if err != nil {
				return err
			}
			dist = 1
			length = b + 4
		default:
			win[d.wpos] = d.esc
			d.wpos++
			if d.wpos == wsize {
				d.wpos = 0
			}
			d.total++
			continue
		}
		if int64(dist) > d.total-d.histStart || dist > d.dict {
			return errDistance
		}
		d.wpos = copyMatch(win, d.wpos, dist, length)
		if d.wpos == wsize {
			d.wpos = 0
		}
		d.total += int64(length)
	}
	return nil
}

// readRecordPPM reads a filter record coded as PPMd symbols into d.rec.
func (d *Decoder) readRecordPPM() error {
	flags, err := d.ppm.DecodeSymbol()
	if err != nil {
		return err
	}
	n := flags&7 + 1
	switch n {
	case 7:
		b, err := d.ppm.DecodeSymbol()
		if err != nil {
			return err
		}
		n = b + 7
	case 8:
		b1, err := d.ppm.DecodeSymbol()
		if err != nil {
			return err
		}
		b2, err := d.ppm.DecodeSymbol()
		if err != nil {
			return err
		}
		n = b1<<8 | b2
	}
	rec := append(d.rec[:0], byte(flags))
	for range n {
		b, err := d.ppm.DecodeSymbol()
		if err != nil {
			return err
		}
		rec = append(rec, byte(b))
	}
	d.rec = rec
	return nil
}
