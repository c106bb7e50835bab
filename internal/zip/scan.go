package zip

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// scanLocals reads the entries from their local headers, front to back,
// for an archive without an end of central directory record (a damaged
// end record, a cut download), as 7-Zip and libarchive do. The archive
// must start with a local header. An entry whose sizes follow in a data
// descriptor is ended by the first descriptor signature whose compressed
// size equals the distance from the data. The scan stops at the central
// directory, at anything that is not a local header, or at the end of the
// file; entries found before are kept. An archive that ends before a
// central directory (a cut download: the file ends after an entry, in a
// local header or in an entry's data) keeps the complete entries before
// the cut, and the cut is recorded in rd.cut, which Err and the end of
// Extract report, as 7-Zip ("Unexpected end of archive") and unzip fail
// on such a file.
func (rd *Reader) scanLocals() error {
	le := binary.LittleEndian
	maxEntries := rd.opts.Limit() / bytesPerEntry
	var h [localLen]byte
	off := int64(0)
	for {
		if off+localLen > rd.size {
			rd.cut = corrupt(off, "the archive ends without a central directory (cut short?)")
			break
		}
		if err := rd.readAt(h[:], off); err != nil || le.Uint32(h[:]) != sigLocal {
			if err == nil && le.Uint32(h[:]) == sigCentral {
				rd.cut = rd.centralCut(off)
			}
			break
		}
		if int64(len(rd.files)) >= maxEntries {
			return &archive.LimitError{What: "ZIP entry count (memory)", Need: (int64(len(rd.files)) + 1) * bytesPerEntry, Limit: rd.opts.Limit()}
		}
		nlen, xlen := int(le.Uint16(h[26:])), int(le.Uint16(h[28:]))
		vb := make([]byte, nlen+xlen)
		if err := rd.readAt(vb, off+localLen); err != nil {
			rd.cut = corrupt(off, "local header cut short by the end of the archive")
			break
		}
		f := file{
			flags:   le.Uint16(h[6:]),
			method:  le.Uint16(h[8:]),
			dosTime: le.Uint16(h[10:]),
			dosDate: le.Uint16(h[12:]),
			crc:     le.Uint32(h[14:]),
			csize:   int64(le.Uint32(h[18:])),
			usize:   int64(le.Uint32(h[22:])),
			rawName: vb[:nlen],
		}
		f.realMethod = f.method
		x, err := parseExtra(vb[nlen:], &f, false)
		if err != nil {
			return &archive.Error{Offset: off, Err: err}
		}
		f.headerOff = off
		f.dataOff = off + localLen + int64(nlen+xlen)
		if f.flags&flagDescriptor != 0 {
			if err := rd.findDescriptor(&f); err != nil {
				if len(rd.files) == 0 {
					return err
				}
				rd.cut = err
				break
			}
		}
		if f.csize < 0 || f.usize < 0 || f.csize > rd.size-f.dataOff {
			err := corrupt(off, "%d bytes of data beyond the end of the archive", f.csize)
			if len(rd.files) == 0 {
				return err
			}
			rd.cut = err
			break
		}
		f.dataEnd = f.dataOff + f.csize
		if f.flags&flagDescriptor != 0 {
			f.dataEnd += rd.descriptorLen(&f)
		}
		e := &archive.Entry{Index: int32(len(rd.entries)), Block: -1}
		e.Name = decodeName(f.rawName, f.flags&flagUTF8 != 0, false)
		if x.unicodePath != "" {
			e.Name = x.unicodePath
		}
		rd.fillEntry(e, &f, &x, hostFAT, 0)
		rd.files = append(rd.files, f)
		rd.entries = append(rd.entries, e)
		off = f.dataEnd
	}
	if len(rd.files) == 0 {
		if rd.cut != nil {
			return rd.cut
		}
		return fmt.Errorf("no end of central directory record and no local header: %w", archive.ErrNotArchive)
	}
	rd.info.PhysicalSize = off
	rd.fromLocals = true
	return nil
}

// centralCut walks the central directory records that start at off in an
// archive without an end record and returns an error when the file ends
// in them or right after them (a cut download), nil when something else
// follows them (a damaged end record). The walk reads 46 bytes per
// record and goes no further than the file.
func (rd *Reader) centralCut(off int64) error {
	le := binary.LittleEndian
	var h [centralLen]byte
	for off+4 <= rd.size {
		if err := rd.readAt(h[:4], off); err != nil || le.Uint32(h[:]) != sigCentral {
			return nil
		}
		if off+centralLen > rd.size || rd.readAt(h[:], off) != nil {
			break
		}
		off += centralLen + int64(le.Uint16(h[28:])) + int64(le.Uint16(h[30:])) + int64(le.Uint16(h[32:]))
		if off > rd.size {
			break
		}
	}
	return corrupt(off, "the archive ends in its central directory, without an end record (cut short?)")
}

// findDescriptor finds the data descriptor ending an entry whose sizes
// are not in its local header and takes the CRC and sizes from it.
func (rd *Reader) findDescriptor(f *file) error {
	le := binary.LittleEndian
	sig := []byte{'P', 'K', 7, 8}
	const chunk = 1 << 20
	buf := make([]byte, chunk+24)
	for pos := f.dataOff; pos < rd.size; pos += chunk {
		n, _ := rd.ra.ReadAt(buf[:min(int64(len(buf)), rd.size-pos)], pos)
		b := buf[:n]
		for i := 0; ; {
			k := bytes.Index(b[i:], sig)
			if k < 0 {
				break
			}
			i += k
			if i+16 > len(b) {
				break
			}
			at := pos + int64(i)
			if int64(le.Uint32(b[i+8:])) == at-f.dataOff {
				f.crc = le.Uint32(b[i+4:])
				f.csize = at - f.dataOff
				f.usize = int64(le.Uint32(b[i+12:]))
				if i+24 <= len(b) && le.Uint64(b[i+8:]) == uint64(at-f.dataOff) {
					f.usize = int64(le.Uint64(b[i+16:])) // Zip64 descriptor
				}
				return nil
			}
			i++
		}
	}
	return corrupt(f.dataOff, "no data descriptor after the data")
}
