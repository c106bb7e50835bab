package zip

import "encoding/binary"

// centralBlock is the size of the blocks the central directory is kept
// in while the entries are written.
const centralBlock = 1 << 20

// centralDir is the central directory of the entries written so far,
// each entry's header encoded as soon as the entry is complete (46
// bytes, the name, the extra fields: about 100 bytes an entry), in
// blocks of centralBlock bytes that are never copied to grow. It is the
// only state an archive of many files keeps per entry.
type centralDir struct {
	blocks [][]byte
	// count is the number of entries; files, dirs and unpacked count
	// them for WriteStats.
	count       int64
	files, dirs int
	unpacked    int64
}

// add encodes the central directory header of r: with a Zip64 field
// where r has Zip64 sizes or a size or offset does not fit 32 bits, and
// with an offset in it also when force is set (WriteOptions.ForceZip64).
func (c *centralDir) add(r *record, force bool) {
	le := binary.LittleEndian
	var z64 []byte
	csize, usize, off := uint32(r.csize), uint32(r.usize), uint32(r.offset)
	if r.zip64 || r.usize >= 0xFFFFFFFF {
		z64, usize = le.AppendUint64(z64, uint64(r.usize)), 0xFFFFFFFF
	}
	if r.zip64 || r.csize >= 0xFFFFFFFF {
		z64, csize = le.AppendUint64(z64, uint64(r.csize)), 0xFFFFFFFF
	}
	if force || r.offset >= 0xFFFFFFFF {
		z64, off = le.AppendUint64(z64, uint64(r.offset)), 0xFFFFFFFF
	}
	extra := r.extra
	version := r.version
	if z64 != nil {
		extra = append(le.AppendUint16(le.AppendUint16(nil, extraZip64), uint16(len(z64))), append(z64, extra...)...)
		version = max(version, versionZip64)
	}
	n := centralLen + len(r.name) + len(extra) + len(r.comment)
	if len(c.blocks) == 0 || len(c.blocks[len(c.blocks)-1])+n > cap(c.blocks[len(c.blocks)-1]) {
		c.blocks = append(c.blocks, make([]byte, 0, max(centralBlock, n)))
	}
	b := c.blocks[len(c.blocks)-1]
	b = le.AppendUint32(b, sigCentral)
	b = le.AppendUint16(b, r.madeBy)
	b = le.AppendUint16(b, version)
	b = le.AppendUint16(b, r.flags)
	b = le.AppendUint16(b, r.method)
	b = le.AppendUint16(b, r.dosTime)
	b = le.AppendUint16(b, r.dosDate)
	b = le.AppendUint32(b, r.crc)
	b = le.AppendUint32(b, csize)
	b = le.AppendUint32(b, usize)
	b = le.AppendUint16(b, uint16(len(r.name)))
	b = le.AppendUint16(b, uint16(len(extra)))
	b = le.AppendUint16(b, uint16(len(r.comment)))
	b = le.AppendUint16(b, 0) // disk
	b = le.AppendUint16(b, 0) // internal attributes
	b = le.AppendUint32(b, r.external)
	b = le.AppendUint32(b, off)
	b = append(b, r.name...)
	b = append(b, extra...)
	b = append(b, r.comment...)
	c.blocks[len(c.blocks)-1] = b
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
	for _, b := range w.cd.blocks {
		if err := w.write(b); err != nil {
			return err
		}
	}
	cdEnd := w.pos
	count := w.cd.count
	cdSize := cdEnd - cdStart
	zip64 := w.opts.ForceZip64 || count >= 0xFFFF || cdSize >= 0xFFFFFFFF || cdStart >= 0xFFFFFFFF
	var b []byte
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
