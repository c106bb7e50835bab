package rar

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// RAR 1.4 archive flags (in the 7-byte "RE~^" header).
const (
	mhd14Volume  = 0x01
	mhd14Comment = 0x02
	mhd14Lock    = 0x04
	mhd14Solid   = 0x08
)

// RAR 1.4 file flags.
const (
	lhd14SplitBefore = 0x01
	lhd14SplitAfter  = 0x02
	lhd14Password    = 0x04
	lhd14Comment     = 0x08
	lhd14Solid       = 0x10
)

// parseRAR14 reads a RAR 1.4 volume: the archive header ("RE~^", header
// size, flags, then an optional comment) followed by file headers of 21
// fixed bytes (packed size, unpacked size, 16-bit checksum, header size,
// DOS time, attribute byte, flags, version, name size, method) and the name.
func (r *reader) parseRAR14(vol int, off int64) (volResult, error) {
	var res volResult
	ra, size := r.vols[vol], r.sizes[vol]
	var mh [7]byte
	if err := readFull(ra, mh[:], off); err != nil {
		return res, r.errf("", off, err)
	}
	hs := int64(binary.LittleEndian.Uint16(mh[4:]))
	flags := mh[6]
	if hs < 7 || off+hs > size {
		return res, r.errf("", off, fmt.Errorf("%w: RAR 1.4 header size %d", archive.ErrFormat, hs))
	}
	res.volume = flags&mhd14Volume != 0
	if vol == 0 {
		r.info.Solid = flags&mhd14Solid != 0
		r.info.Locked = flags&mhd14Lock != 0
		if flags&mhd14Comment != 0 && hs > 9 {
			c := make([]byte, hs-7)
			if readFull(ra, c, off+7) == nil {
				n := int(binary.LittleEndian.Uint16(c))
				if n <= len(c)-2 {
					r.info.Comment = legacyText(trimNUL(c[2 : 2+n]))
				}
			}
		}
	}
	pos := off + hs
	first := true
	for r.avail(vol, pos, 21) {
		r.hdr.begin(vol, pos)
		fh, err := r.hdr.bytes(ra, size, vol, pos, 21)
		if err != nil {
			return res, r.errf("", pos, err)
		}
		pack := int64(binary.LittleEndian.Uint32(fh[0:]))
		unp := int64(binary.LittleEndian.Uint32(fh[4:]))
		sum := binary.LittleEndian.Uint16(fh[8:])
		fhs := int64(binary.LittleEndian.Uint16(fh[10:]))
		ftime := binary.LittleEndian.Uint32(fh[12:])
		attr := fh[16]
		ff := fh[17]
		ver := int(fh[18])
		nl := int64(fh[19])
		method := int(fh[20])
		if fhs < 21+nl || pos+fhs > size {
			return res, r.errf("", pos, fmt.Errorf("%w: RAR 1.4 file header size %d", archive.ErrFormat, fhs))
		}
		name, err := r.hdr.bytes(ra, size, vol, pos+21, int(nl))
		if err != nil {
			return res, r.errf("", pos, err)
		}
		dataOff := pos + fhs
		if pack > size-dataOff {
			return res, r.errf("", pos, fmt.Errorf("%w: RAR 1.4 data runs past the end of the volume", archive.ErrFormat))
		}
		f := r.alloc.newFile()
		e := &f.e
		e.Name = strings.ReplaceAll(legacyText(name), "\\", "/")
		e.HostOS = archive.HostWindows
		e.Attributes = uint32(attr)
		e.ModTime = dosTime(ftime)
		e.Size = unp
		f.sizeKnown = true
		e.PackedSize = pack
		e.SplitBefore = ff&lhd14SplitBefore != 0
		e.SplitAfter = ff&lhd14SplitAfter != 0
		if first && e.SplitBefore && vol == 0 {
			res.notFirst = true
		}
		first = false
		// The 16-bit checksum is kept in CRC32 with HasCRC32 false; the
		// content reader checks it with the RAR 1.4 sum.
		e.CRC32 = uint32(sum)
		f.unpVer = uint8(ver)
		f.solid = ff&lhd14Solid != 0 || (r.info.Solid && vol >= 0 && len(r.files) > 0)
		e.Solid = f.solid
		f.dictSize = 64 << 10
		f.parts = r.alloc.onePart(part{vol: int32(vol), offset: dataOff, size: pack})
		f.rar14 = true
		switch {
		case method == 0:
			f.algo = algoStored
			e.Method = "RAR1.4 m0"
		case method <= 5:
			f.algo = algoRAR15
			f.method = uint8(method)
			e.Method = fmt.Sprintf("RAR1.4 m%d", method)
		default:
			f.algo = algoStored
			e.Method = fmt.Sprintf("RAR1.4 method %d", method)
			f.badMethod = true
		}
		if ff&lhd14Password != 0 {
			e.Encrypted = true
			f.enc = encRAR13
		}
		if attr&archive.AttrDirectory != 0 {
			e.Type = archive.TypeDir
			e.Size = 0
			f.parts = nil
		}
		e.SetMode()
		if err := r.addPiece(f); err != nil {
			return res, r.errf("", pos, err)
		}
		pos = dataOff + pack
	}
	return res, nil
}
