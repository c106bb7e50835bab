package zip

import "encoding/binary"

// centralBlock is the size of the blocks the central directory is kept
// in while the entries are written.
const centralBlock = 256 << 10

// centralDir is the central directory of the entries written so far.
// Each entry's header is encoded as soon as the entry is complete, and
// kept as its difference from the header before it (packCentral): a
// mask of the fields that differ from what the header before predicts,
// those fields, and the name, extra fields and comment less what they
// share at each end with the previous entry's. For a tree of small files
// that is about 12 bytes an entry instead of the header's 46 bytes, the
// name and the extra fields. The encoded headers fill blocks of
// centralBlock bytes that are never copied to grow; they are the only
// state an archive of many files keeps per entry.
type centralDir struct {
	blocks [][]byte
	// last is the header added last, the base of the next one's
	// encoding; hdr, extra (a Zip64 field and the record's extra fields)
	// and enc (the encoding) are reused for each entry.
	last       centralHeader
	hdr        [centralLen]byte
	extra, enc []byte
	// count is the number of entries; files, dirs and unpacked count
	// them for WriteStats.
	count       int64
	files, dirs int
	unpacked    int64
}

// centralHeader is a central directory header in parts: the fixed 46
// bytes, the name, the extra fields and the comment; gap is the distance
// from the end of the previous entry's name, extra fields and data to
// this entry's local header (the local header's fixed part, its extra
// fields' difference from the central ones and the data descriptor).
type centralHeader struct {
	fixed                [centralLen]byte
	name, extra, comment []byte
	gap                  uint32
}

// Fields of a central directory header as packCentral encodes them, in
// the order of their bits in the mask: those that change from entry to
// entry in the low bits, so that the mask is one byte for most. The
// name, extra fields and comment have bits of their own (maskName,
// maskExtra, maskComment).
var centralFields = [...]struct{ bit, off, size uint8 }{
	{0, 16, 4},  // CRC-32: the previous entry's
	{1, 20, 4},  // compressed size: the previous entry's
	{2, 24, 4},  // uncompressed size: this entry's compressed size
	{4, 42, 4},  // local header offset: after the previous entry, at its gap
	{5, 12, 2},  // DOS time, and the rest the previous entry's
	{7, 14, 2},  // DOS date
	{8, 28, 2},  // name length: this entry's name's
	{9, 30, 2},  // extra field length: this entry's extra fields'
	{10, 32, 2}, // comment length: this entry's comment's
	{11, 8, 2},  // flags
	{12, 10, 2}, // method
	{13, 6, 2},  // version needed
	{14, 4, 2},  // version made by
	{15, 38, 4}, // external attributes
	{16, 34, 2}, // disk number
	{17, 36, 2}, // internal attributes
	{18, 0, 4},  // signature
}

// Mask bits of the variable parts of a header.
const (
	maskName    = 1 << 3
	maskExtra   = 1 << 6
	maskComment = 1 << 19
)

// field returns the field at off of size 2 or 4 in h.
func field(h *[centralLen]byte, off, size uint8) uint32 {
	if size == 2 {
		return uint32(binary.LittleEndian.Uint16(h[off:]))
	}
	return binary.LittleEndian.Uint32(h[off:])
}

// setField stores v in the field at off of size 2 or 4 in h.
func setField(h *[centralLen]byte, off, size uint8, v uint32) {
	if size == 2 {
		binary.LittleEndian.PutUint16(h[off:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(h[off:], v)
	}
}

// after returns where the local header after prev's entry would start
// with no gap.
func (prev *centralHeader) after() uint32 {
	return binary.LittleEndian.Uint32(prev.fixed[42:]) + uint32(len(prev.name)) + uint32(len(prev.extra)) + binary.LittleEndian.Uint32(prev.fixed[20:])
}

// predict returns the value of field i (an index of centralFields) of
// the header fixed, with variable parts of the lengths n, encoded after
// the header prev whose entry is followed by a local header at next:
// the field's value when its bit is clear. The fields before i in
// centralFields are set in fixed.
func predict(i int, fixed *[centralLen]byte, n [3]int, prev *[centralLen]byte, next uint32) uint32 {
	f := centralFields[i]
	switch f.off {
	case 24:
		return binary.LittleEndian.Uint32(fixed[20:])
	case 42:
		return next
	case 28:
		return uint32(uint16(n[0]))
	case 30:
		return uint32(uint16(n[1]))
	case 32:
		return uint32(uint16(n[2]))
	}
	return field(prev, f.off, f.size)
}

// shared returns the lengths of the longest prefix and suffix a and b
// share, together no longer than the shorter of them.
func shared[T ~string | ~[]byte](a []byte, b T) (pre, suf int) {
	n := min(len(a), len(b))
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	for suf < n-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// appendPart appends the encoding of a variable part p given the
// previous entry's: the lengths of the prefix and suffix they share,
// and the rest of p with its length.
func appendPart[T ~string | ~[]byte](b, prev []byte, p T) []byte {
	pre, suf := shared(prev, p)
	b = binary.AppendUvarint(b, uint64(pre))
	b = binary.AppendUvarint(b, uint64(suf))
	b = binary.AppendUvarint(b, uint64(len(p)-pre-suf))
	return append(b, p[pre:len(p)-suf]...)
}

// equal reports whether the bytes of a and b are the same.
func equal[T ~string | ~[]byte](a []byte, b T) bool {
	return len(a) == len(b) && string(a) == string(b)
}

// packCentral returns b with the header fixed, name, extra, comment
// appended, encoded as its difference from prev, and makes prev that
// header (its gap included).
func packCentral(b []byte, prev *centralHeader, fixed *[centralLen]byte, name string, extra []byte, comment string) []byte {
	var mask uint64
	if !equal(prev.name, name) {
		mask |= maskName
	}
	if !equal(prev.extra, extra) {
		mask |= maskExtra
	}
	if !equal(prev.comment, comment) {
		mask |= maskComment
	}
	n := [3]int{len(name), len(extra), len(comment)}
	next := prev.after() + prev.gap
	for i, f := range centralFields {
		if field(fixed, f.off, f.size) != predict(i, fixed, n, &prev.fixed, next) {
			mask |= 1 << f.bit
		}
	}
	b = binary.AppendUvarint(b, mask)
	if mask&maskName != 0 {
		b = appendPart(b, prev.name, name)
	}
	if mask&maskExtra != 0 {
		b = appendPart(b, prev.extra, extra)
	}
	if mask&maskComment != 0 {
		b = appendPart(b, prev.comment, comment)
	}
	for _, f := range centralFields {
		if mask&(1<<f.bit) == 0 {
			continue
		}
		v := field(fixed, f.off, f.size)
		if f.off == 16 {
			b = binary.LittleEndian.AppendUint32(b, v) // a CRC takes 4 bytes as it is
		} else {
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	prev.gap = binary.LittleEndian.Uint32(fixed[42:]) - prev.after()
	prev.fixed = *fixed
	prev.name = append(prev.name[:0], name...)
	prev.extra = append(prev.extra[:0], extra...)
	prev.comment = append(prev.comment[:0], comment...)
	return b
}

// centralReader decodes the headers packCentral encoded, in order.
type centralReader struct {
	// h is the header decoded last; spare holds the buffers of the
	// variable parts before it, reused for the next.
	h     centralHeader
	spare [3][]byte
}

// next decodes the header at the start of b into r.h and returns the
// rest of b.
func (r *centralReader) next(b []byte) []byte {
	mask, k := binary.Uvarint(b)
	b = b[k:]
	after := r.h.after()
	next := after + r.h.gap
	parts := [3]*[]byte{&r.h.name, &r.h.extra, &r.h.comment}
	var n [3]int
	for i, bit := range [3]uint64{maskName, maskExtra, maskComment} {
		if p := *parts[i]; mask&bit != 0 {
			pre, n1 := binary.Uvarint(b)
			suf, n2 := binary.Uvarint(b[n1:])
			mid, n3 := binary.Uvarint(b[n1+n2:])
			b = b[n1+n2+n3:]
			q := append(append(r.spare[i][:0], p[:pre]...), b[:mid]...)
			q = append(q, p[len(p)-int(suf):]...)
			b = b[mid:]
			r.spare[i], *parts[i] = p, q
		}
		n[i] = len(*parts[i])
	}
	prev := r.h.fixed
	for i, f := range centralFields {
		v := predict(i, &r.h.fixed, n, &prev, next)
		if mask&(1<<f.bit) != 0 {
			if f.off == 16 {
				v, b = binary.LittleEndian.Uint32(b), b[4:]
			} else {
				u, k := binary.Uvarint(b)
				v, b = uint32(u), b[k:]
			}
		}
		setField(&r.h.fixed, f.off, f.size, v)
	}
	r.h.gap = binary.LittleEndian.Uint32(r.h.fixed[42:]) - after
	return b
}

// add encodes the central directory header of r: with a Zip64 field
// where r has Zip64 sizes or a size or offset does not fit 32 bits, and
// with an offset in it also when force is set (WriteOptions.ForceZip64).
func (c *centralDir) add(r *record, force bool) {
	le := binary.LittleEndian
	var z64 [28]byte
	k := 4
	csize, usize, off := uint32(r.csize), uint32(r.usize), uint32(r.offset)
	if r.zip64 || r.usize >= 0xFFFFFFFF {
		le.PutUint64(z64[k:], uint64(r.usize))
		k, usize = k+8, 0xFFFFFFFF
	}
	if r.zip64 || r.csize >= 0xFFFFFFFF {
		le.PutUint64(z64[k:], uint64(r.csize))
		k, csize = k+8, 0xFFFFFFFF
	}
	if force || r.offset >= 0xFFFFFFFF {
		le.PutUint64(z64[k:], uint64(r.offset))
		k, off = k+8, 0xFFFFFFFF
	}
	extra := r.extra
	version := r.version
	if k > 4 {
		le.PutUint16(z64[:], extraZip64)
		le.PutUint16(z64[2:], uint16(k-4))
		c.extra = append(append(c.extra[:0], z64[:k]...), extra...)
		extra = c.extra
		version = max(version, versionZip64)
	}
	h := &c.hdr
	le.PutUint32(h[0:], sigCentral)
	le.PutUint16(h[4:], r.madeBy)
	le.PutUint16(h[6:], version)
	le.PutUint16(h[8:], r.flags)
	le.PutUint16(h[10:], r.method)
	le.PutUint16(h[12:], r.dosTime)
	le.PutUint16(h[14:], r.dosDate)
	le.PutUint32(h[16:], r.crc)
	le.PutUint32(h[20:], csize)
	le.PutUint32(h[24:], usize)
	le.PutUint16(h[28:], uint16(len(r.name)))
	le.PutUint16(h[30:], uint16(len(extra)))
	le.PutUint16(h[32:], uint16(len(r.comment)))
	le.PutUint16(h[34:], 0) // disk
	le.PutUint16(h[36:], 0) // internal attributes
	le.PutUint32(h[38:], r.external)
	le.PutUint32(h[42:], off)
	// The encoding goes to the last block, or a new one where it does
	// not fit.
	c.enc = packCentral(c.enc[:0], &c.last, h, r.name, extra, r.comment)
	e := c.enc
	if len(c.blocks) == 0 || len(c.blocks[len(c.blocks)-1])+len(e) > cap(c.blocks[len(c.blocks)-1]) {
		c.blocks = append(c.blocks, make([]byte, 0, max(centralBlock, len(e))))
	}
	c.blocks[len(c.blocks)-1] = append(c.blocks[len(c.blocks)-1], e...)
	c.count++
	if r.isDir {
		c.dirs++
	} else {
		c.files++
	}
	c.unpacked += r.unpacked
}

// writeDirectory writes the central directory and the end records.
func (w *writer) writeDirectory() error {
	le := binary.LittleEndian
	cdStart := w.pos
	var r centralReader
	b := make([]byte, 0, 64<<10)
	for _, blk := range w.cd.blocks {
		for len(blk) > 0 {
			blk = r.next(blk)
			h := &r.h
			b = append(append(append(append(b, h.fixed[:]...), h.name...), h.extra...), h.comment...)
			if len(b) >= 48<<10 {
				if err := w.write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
	}
	if err := w.write(b); err != nil {
		return err
	}
	cdEnd := w.pos
	count := w.cd.count
	cdSize := cdEnd - cdStart
	zip64 := w.opts.ForceZip64 || count >= 0xFFFF || cdSize >= 0xFFFFFFFF || cdStart >= 0xFFFFFFFF
	b = b[:0]
	if zip64 {
		b = le.AppendUint32(b, sigEnd64)
		b = le.AppendUint64(b, end64Len-12)
		b = le.AppendUint16(b, versionMadeBy)
		b = le.AppendUint16(b, versionZip64)
		b = le.AppendUint32(b, 0) // this disk
		b = le.AppendUint32(b, 0) // the directory's disk
		b = le.AppendUint64(b, uint64(count))
		b = le.AppendUint64(b, uint64(count))
		b = le.AppendUint64(b, uint64(cdSize))
		b = le.AppendUint64(b, uint64(cdStart))
		b = le.AppendUint32(b, sigEnd64Locator)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, uint64(cdEnd))
		b = le.AppendUint32(b, 1)
	}
	n16 := uint16(min(count, 0xFFFF))
	size32, off32 := uint32(min(cdSize, 0xFFFFFFFF)), uint32(min(cdStart, 0xFFFFFFFF))
	if w.opts.ForceZip64 {
		n16, off32 = 0xFFFF, 0xFFFFFFFF
	}
	b = le.AppendUint32(b, sigEnd)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, n16)
	b = le.AppendUint16(b, n16)
	b = le.AppendUint32(b, size32)
	b = le.AppendUint32(b, off32)
	b = le.AppendUint16(b, 0) // comment length
	return w.write(b)
}
