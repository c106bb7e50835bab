package rar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/garc-dev/garc/internal/archive"
)

// RAR 1.5–4.x block types.
const (
	block4Mark    = 0x72
	block4Main    = 0x73
	block4File    = 0x74
	block4Comment = 0x75
	block4AV      = 0x76
	block4Sub     = 0x77
	block4Protect = 0x78
	block4Sign    = 0x79
	block4NewSub  = 0x7a
	block4End     = 0x7b
)

// RAR 1.5–4.x flags.
const (
	mhdVolume     = 0x0001
	mhdComment    = 0x0002
	mhdLock       = 0x0004
	mhdSolid      = 0x0008
	mhdNewNumber  = 0x0010
	mhdProtect    = 0x0040
	mhdPassword   = 0x0080
	mhdFirstVol   = 0x0100
	mhdEncryptVer = 0x0200

	lhdSplitBefore = 0x0001
	lhdSplitAfter  = 0x0002
	lhdPassword    = 0x0004
	lhdComment     = 0x0008
	lhdSolid       = 0x0010
	lhdWindowMask  = 0x00e0
	lhdDirectory   = 0x00e0
	lhdLarge       = 0x0100
	lhdUnicode     = 0x0200
	lhdSalt        = 0x0400
	lhdVersion     = 0x0800
	lhdExtTime     = 0x1000
	longBlock      = 0x8000

	earcNextVolume = 0x0001
)

// Byte offsets in a RAR 1.5–4.x block header. Every block starts with the
// 7-byte base header; long blocks (and file and 0x7a blocks always) add a
// 32-bit data size.
const (
	off4CRC      = 0  // uint16: low half of the CRC32 of the header from off4Type
	off4Type     = 2  // byte: block type
	off4Flags    = 3  // uint16: block flags
	off4Size     = 5  // uint16: header size, base header included
	off4DataSize = 7  // uint32: data size (packed size for file blocks)
	base4Size    = 7  // the base header
	long4Size    = 11 // the base header and the data size

	// File header (0x74) and 0x7a sub-block header fields after the
	// base header.
	off4FileNameSize = 26 // uint16: name length
	off4FileHighPack = 32 // uint32: high half of the packed size (lhdLarge)
	file4FixedSize   = 32 // fields before the high sizes and the name

	// Archive header (0x73): two reserved fields follow the base header;
	// an embedded RAR 2.x comment starts after them (and after the
	// encryption version byte with mhdEncryptVer).
	main4Size = 13

	// Old comment block (0x75, also embedded in archive and file
	// headers).
	off4CmtUnpSize = 7  // uint16: unpacked size
	off4CmtVersion = 9  // byte: unpack version
	off4CmtMethod  = 10 // byte: method
	off4CmtCRC     = 11 // uint16: CRC16 of the comment
	cmt4Size       = 13 // the fixed fields; packed data follows

	// Old sub-block (0x77) of the unix owner kind.
	off4SubType      = 11 // uint16: sub-block type (0x101: unix owner)
	off4SubOwnerSize = 14 // uint16: owner name length
	off4SubGroupSize = 16 // uint16: group name length
	sub4OwnerSize    = 18 // the fixed fields of the owner kind
	sub4TypeOwner    = 0x101
)

// block4 is one decoded RAR 1.5–4.x block.
type block4 struct {
	typ      byte
	flags    uint16
	head     []byte // the whole header (from the CRC field)
	crcOK    bool
	dataOff  int64
	dataSize int64
	next     int64
}

// readBlock4 reads the block at pos into b; with encrypted headers it is
// preceded by an 8-byte salt and AES-128-CBC encrypted. The header's bytes
// (b.head) are valid until the next call.
func (r *reader) readBlock4(vol int, pos int64, encrypted bool, b *block4) error {
	ra, size := r.vols[vol], r.sizes[vol]
	w := &r.hdr
	w.begin(vol, pos)
	var head []byte
	var hdrEnd int64
	if !encrypted {
		base, err := w.bytes(ra, size, vol, pos, base4Size)
		if err != nil {
			return err
		}
		hs := int64(binary.LittleEndian.Uint16(base[off4Size:]))
		if hs < base4Size {
			return fmt.Errorf("%w: block header size %d", archive.ErrFormat, hs)
		}
		if pos+hs > size {
			return fmt.Errorf("%w: block header runs past the end of the volume", archive.ErrFormat)
		}
		if head, err = w.bytes(ra, size, vol, pos, int(hs)); err != nil {
			return err
		}
		hdrEnd = pos + hs
	} else {
		start, err := w.bytes(ra, size, vol, pos, 8+16)
		if err != nil {
			return err
		}
		k, err := r.rar3Keys(start[:8])
		if err != nil {
			return err
		}
		first := r.hdrCipher.first[:] // in the reader: it would escape
		copy(first, start[8:])
		if err := r.hdrCipher.decrypt(first, k.key[:], k.iv[:]); err != nil {
			return err
		}
		hs := int64(binary.LittleEndian.Uint16(first[off4Size:]))
		if hs < base4Size {
			return fmt.Errorf("%w: encrypted block header is garbage", archive.ErrWrongPassword)
		}
		padded := (hs + 15) &^ 15
		if pos+8+padded > size {
			return fmt.Errorf("%w: encrypted block header runs past the end of the volume", archive.ErrWrongPassword)
		}
		enc, err := w.bytes(ra, size, vol, pos+8, int(padded))
		if err != nil {
			return err
		}
		buf := r.plainHeader(enc)
		if err := r.hdrCipher.decrypt(buf, k.key[:], k.iv[:]); err != nil {
			return err
		}
		head = buf[:hs]
		hdrEnd = pos + 8 + padded
	}
	*b = block4{typ: head[off4Type], flags: binary.LittleEndian.Uint16(head[off4Flags:]), head: head}
	b.crcOK = uint16(crc32.ChecksumIEEE(head[off4Type:])) == binary.LittleEndian.Uint16(head[off4CRC:])
	if encrypted && !b.crcOK {
		return fmt.Errorf("%w: encrypted header checksum mismatch", archive.ErrWrongPassword)
	}
	var add int64
	if b.flags&longBlock != 0 || b.typ == block4File || b.typ == block4NewSub {
		if len(head) < long4Size {
			return fmt.Errorf("%w: block header too short", archive.ErrFormat)
		}
		add = int64(binary.LittleEndian.Uint32(head[off4DataSize:]))
		if b.typ == block4File || b.typ == block4NewSub {
			if len(head) >= off4FileHighPack+8 && b.flags&lhdLarge != 0 {
				add |= int64(binary.LittleEndian.Uint32(head[off4FileHighPack:])) << 32
			}
		}
	}
	b.dataOff = hdrEnd
	if add < 0 || add > size-hdrEnd {
		return fmt.Errorf("%w: block data (%d bytes) runs past the end of the volume", archive.ErrFormat, add)
	}
	b.dataSize = add
	b.next = hdrEnd + add
	return nil
}

// parseRAR4 reads every block of volume vol, whose marker is at off.
func (r *reader) parseRAR4(vol int, off int64) (volResult, error) {
	var res volResult
	pos := off + int64(len(sigRAR4))
	encrypted := false
	sawMain := false
	firstFile := true
	var blk block4
	b := &blk
	for r.avail(vol, pos, 1) {
		if n := r.sizes[vol] - pos; n >= 0 && n < 7 && !encrypted {
			break // trailing garbage shorter than a block
		}
		if err := r.readBlock4(vol, pos, encrypted, b); err != nil {
			if errors.Is(err, archive.ErrPasswordRequired) || errors.Is(err, archive.ErrWrongPassword) {
				return res, r.errf("", pos, err)
			}
			if sawMain && len(r.files) > 0 && isTruncation(err) {
				r.tailErr = r.errf("", pos, err)
				res.hasEnd, res.more = true, false
				return res, nil
			}
			return res, r.errf("", pos, err)
		}
		if b.typ == block4Main && !sawMain {
			// checked below, with the rule for an embedded comment
		} else if err := r.checkHeaderCRC4(b, vol); err != nil {
			return res, r.errf("", pos, err)
		}
		switch b.typ {
		case block4Main:
			if sawMain {
				break
			}
			sawMain = true
			if !b.crcOK && !(b.flags&mhdComment != 0 && mainCRCPrefixOK(b)) {
				return res, r.errf("", pos, fmt.Errorf("%w: archive header CRC mismatch", archive.ErrChecksum))
			}
			res.volume = b.flags&mhdVolume != 0
			res.newNaming = b.flags&mhdNewNumber != 0
			res.first = b.flags&mhdFirstVol != 0
			if vol == 0 {
				r.info.Solid = b.flags&mhdSolid != 0
				r.info.Locked = b.flags&mhdLock != 0
				r.info.RecoveryRecord = b.flags&mhdProtect != 0
				r.info.EncryptedHeaders = b.flags&mhdPassword != 0
				if b.flags&mhdComment != 0 {
					start := main4Size
					if b.flags&mhdEncryptVer != 0 {
						start++
					}
					if len(b.head) > start+base4Size {
						r.oldComment(b.head[start:])
					}
				}
			}
			if b.flags&mhdPassword != 0 {
				encrypted = true
				if _, err := r.password(); err != nil {
					return res, r.errf("", pos, err)
				}
			}
		case block4File, block4NewSub:
			if !sawMain {
				return res, r.errf("", pos, fmt.Errorf("%w: file block before the archive header", archive.ErrFormat))
			}
			f, err := r.parseFile4(b, vol)
			if err != nil {
				return res, r.errf(f.e.Name, pos, err)
			}
			if b.flags&lhdComment != 0 && len(b.head) > file4FixedSize {
				// RAR 1.5–2.0 file comment embedded after the name; the
				// header CRC then covers the fields before it.
				n := file4FixedSize + int(binary.LittleEndian.Uint16(b.head[off4FileNameSize:]))
				if b.flags&lhdLarge != 0 {
					n += 8
				}
				if n+cmt4Size <= len(b.head) && b.head[n+off4Type] == block4Comment &&
					int(binary.LittleEndian.Uint16(b.head[n+off4Size:])) == len(b.head)-n {
					if !b.crcOK {
						b.crcOK = uint16(crc32.ChecksumIEEE(b.head[off4Type:n])) == binary.LittleEndian.Uint16(b.head[off4CRC:])
					}
					if c, ok := r.decodeOldComment(b.head[n:]); ok {
						f.e.MutableExtra().Comment = c
					}
				}
			}
			if !b.crcOK {
				return res, r.errf(f.e.Name, pos, fmt.Errorf("%w: file header CRC mismatch", archive.ErrChecksum))
			}
			if b.typ == block4File {
				if firstFile && f.e.SplitBefore && vol == 0 {
					res.notFirst = true
				}
				firstFile = false
				if err := r.addPiece(f); err != nil {
					return res, r.errf("", pos, err)
				}
			} else {
				r.service4(f, vol)
			}
		case block4Comment:
			if vol == 0 && r.info.Comment == "" {
				r.oldComment(b.head)
			}
		case block4Sub:
			r.oldSubBlock(b, vol)
		case block4Protect:
			r.info.RecoveryRecord = true
		case block4End:
			if !sawMain {
				return res, r.errf("", pos, fmt.Errorf("%w: end of archive block before the archive header", archive.ErrFormat))
			}
			res.hasEnd = true
			res.more = b.flags&earcNextVolume != 0
			return res, nil
		case block4Mark:
			// a repeated marker is harmless
		default:
			// AV, old sub-blocks, signatures, unknown: skipped by size.
		}
		if b.next <= pos {
			return res, r.errf("", pos, fmt.Errorf("%w: block does not advance", archive.ErrFormat))
		}
		pos = b.next
	}
	if !sawMain {
		return res, r.errf("", pos, fmt.Errorf("%w: no archive header", archive.ErrFormat))
	}
	return res, nil
}

// maxSub4CRCData bounds the data of an old sub-block (0x77) read to check
// its CRC, which covers the header and the data.
const maxSub4CRCData = 64 << 10

// checkHeaderCRC4 checks the header CRC of a block that parseRAR4 does not
// check itself: every type but the first archive header and the file and
// 0x7a sub-block headers, whose CRC may cover only a prefix of the header.
// A block with a wrong CRC is an error (ErrChecksum), except: a repeated
// marker block (its CRC field holds "Ra"), and the optional blocks that
// carry nothing garc extracts (authenticity verification, old sub-block,
// recovery record, signature), whose CRC some writers got wrong; those are
// tolerated when they have no data area (a file header always has one)
// and the header's CRC does not fit it with another type byte, which
// would mean the type byte is what was damaged (a file header would
// otherwise vanish silently). A stand-alone old comment block is not tolerated: a
// file header's type byte is one bit away from it.
func (r *reader) checkHeaderCRC4(b *block4, vol int) error {
	if b.crcOK || b.typ == block4File || b.typ == block4NewSub {
		return nil
	}
	if b.typ == block4Mark && string(b.head) == string(sigRAR4) {
		return nil
	}
	want := binary.LittleEndian.Uint16(b.head[off4CRC:])
	if b.typ == block4Sub && b.dataSize <= maxSub4CRCData {
		// The old sub-block's CRC covers its data too (unix owner names).
		data := make([]byte, b.dataSize)
		if err := readFull(r.vols[vol], data, b.dataOff); err != nil {
			return err
		}
		if uint16(crc32.Update(crc32.ChecksumIEEE(b.head[off4Type:]), crc32.IEEETable, data)) == want {
			return nil
		}
	}
	for t := byte(block4Mark); t <= block4End; t++ {
		if t != b.typ && headerCRCFits(b.head, t, b.flags, want) {
			return fmt.Errorf("%w: block type byte damaged (0x%02x; the header CRC fits type 0x%02x)", archive.ErrChecksum, b.typ, t)
		}
	}
	switch b.typ {
	case block4AV, block4Sub, block4Protect, block4Sign:
		if b.flags&longBlock == 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: header CRC mismatch in a block of type 0x%02x", archive.ErrChecksum, b.typ)
}

// headerCRCFits reports whether want is the CRC of head with typ as its
// type byte: of the whole header, or, for the headers that may embed a
// RAR 1.5–2.0 comment (archive, file, 0x7a), of the fields before it.
func headerCRCFits(head []byte, typ byte, flags uint16, want uint16) bool {
	crcOf := func(end int) bool {
		crc := crc32.Update(crc32.ChecksumIEEE([]byte{typ}), crc32.IEEETable, head[off4Type+1:end])
		return uint16(crc) == want
	}
	if crcOf(len(head)) {
		return true
	}
	n := 0
	switch {
	case typ == block4Main && flags&mhdComment != 0:
		n = main4Size
		if flags&mhdEncryptVer != 0 {
			n++
		}
	case (typ == block4File || typ == block4NewSub) && flags&lhdComment != 0 && len(head) >= file4FixedSize:
		n = file4FixedSize + int(binary.LittleEndian.Uint16(head[off4FileNameSize:]))
		if flags&lhdLarge != 0 {
			n += 8
		}
	}
	return n > off4Type && n < len(head) && crcOf(n)
}

// mainCRCPrefixOK checks an archive header whose CRC covers only the fixed
// fields, the embedded comment excluded (RAR 2.x).
func mainCRCPrefixOK(b *block4) bool {
	n := main4Size
	if b.flags&mhdEncryptVer != 0 {
		n++
	}
	if len(b.head) < n {
		return false
	}
	return uint16(crc32.ChecksumIEEE(b.head[off4Type:n])) == binary.LittleEndian.Uint16(b.head[off4CRC:])
}

// oldComment decodes a RAR 1.5–2.x comment block (type 0x75): base header,
// unpacked size, UnpVer, method, CRC16 of the comment, packed bytes.
func (r *reader) oldComment(blk []byte) {
	if c, ok := r.decodeOldComment(blk); ok {
		r.info.Comment = c
	}
}

func (r *reader) decodeOldComment(blk []byte) (string, bool) {
	if len(blk) < cmt4Size {
		return "", false
	}
	hs := int(binary.LittleEndian.Uint16(blk[off4Size:]))
	if hs > len(blk) || hs < cmt4Size {
		hs = len(blk)
	}
	unp := int64(binary.LittleEndian.Uint16(blk[off4CmtUnpSize:]))
	ver := int(blk[off4CmtVersion])
	method := int(blk[off4CmtMethod])
	crc := binary.LittleEndian.Uint16(blk[off4CmtCRC:])
	data := blk[cmt4Size:hs]
	var out []byte
	if method == 0x30 {
		out = data
	} else {
		a := algoRAR15
		if ver >= 20 {
			a = algoRAR20
		}
		var err error
		out, err = r.decodeSmall(a, ver, data, unp)
		if err != nil {
			return "", false
		}
	}
	if int64(len(out)) > unp {
		out = out[:unp]
	}
	if uint16(crc32.ChecksumIEEE(out)) != crc && method != 0x30 {
		return "", false
	}
	return legacyText(trimNUL(out)), true
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// oldSubBlock handles a RAR 2.x sub-block (0x77). The unix owner kind
// (subtype 0x101) gives owner and group names, stored in the data area, for
// the file before it.
func (r *reader) oldSubBlock(b *block4, vol int) {
	if len(b.head) < sub4OwnerSize || len(r.files) == 0 {
		return
	}
	if binary.LittleEndian.Uint16(b.head[off4SubType:]) != sub4TypeOwner {
		return
	}
	on := int64(binary.LittleEndian.Uint16(b.head[off4SubOwnerSize:]))
	gn := int64(binary.LittleEndian.Uint16(b.head[off4SubGroupSize:]))
	if on+gn > b.dataSize || on+gn > 1024 {
		return
	}
	names := make([]byte, on+gn)
	if readFull(r.vols[vol], names, b.dataOff) != nil {
		return
	}
	f := r.files[len(r.files)-1]
	x := f.e.MutableExtra()
	x.Owner, x.Group = string(names[:on]), string(names[on:])
}

// service4 handles a 0x7a sub-block: CMT comments and recovery records.
func (r *reader) service4(f *fileInfo, vol int) {
	switch f.e.Name {
	case "CMT":
		if vol != 0 || r.info.Comment != "" || f.e.Size > maxCommentSize {
			return
		}
		if b, err := r.readSmall(f, maxCommentSize); err == nil {
			r.info.Comment = legacyText(trimNUL(b))
		}
	case "RR":
		r.info.RecoveryRecord = true
	}
}

// parseFile4 decodes a file header or 0x7a sub-block header.
func (r *reader) parseFile4(b *block4, vol int) (*fileInfo, error) {
	f := r.alloc.newFile()
	e := &f.e
	h := hbuf{b: b.head[base4Size:]}
	pack := uint64(h.u32())
	unp := uint64(h.u32())
	host := h.u8()
	crc := h.u32()
	ftime := h.u32()
	unpVer := int(h.u8())
	method := int(h.u8())
	nameSize := int(h.u16())
	attr := h.u32()
	if b.flags&lhdLarge != 0 {
		pack |= uint64(h.u32()) << 32
		unp |= uint64(h.u32()) << 32
	}
	name := h.bytes(nameSize)
	var salt []byte
	if b.flags&lhdSalt != 0 {
		// a copy: the header's bytes are the reader's window
		salt = append([]byte(nil), h.bytes(8)...)
	}
	if h.err != nil {
		return f, h.err
	}
	_ = pack
	ansi := host >= 3 // unix-like hosts store ANSI (Windows-1252) names, DOS/Windows OEM ones
	if b.flags&lhdUnicode != 0 {
		e.Name = decodeRARName(name, ansi)
	} else {
		e.Name = legacyName(name, ansi)
	}
	if i := strings.IndexByte(e.Name, 0); i >= 0 {
		e.Name = e.Name[:i]
	}
	switch host {
	case 0, 1, 2: // MS-DOS, OS/2, Windows
		e.HostOS = archive.HostWindows
	case 3, 4, 5: // Unix, Mac OS, BeOS
		e.HostOS = archive.HostUnix
	}
	if b.flags&lhdVersion != 0 {
		// File versions (rar -ver) are stored as "name;N".
		if i := strings.LastIndexByte(e.Name, ';'); i > 0 && isDigits(e.Name[i+1:]) && len(e.Name)-i < 10 {
			fmt.Sscan(e.Name[i+1:], &e.MutableExtra().Version)
			e.Name = e.Name[:i]
		}
	}
	// RAR writes '\\' as the separator on every host.
	e.Name = strings.ReplaceAll(e.Name, "\\", "/")
	e.Attributes = attr
	e.HasCRC32, e.CRC32 = true, crc
	e.ModTime = dosTime(ftime)
	if b.flags&lhdExtTime != 0 && h.len() >= 2 {
		parseExtTime(&h, e)
	}
	if b.flags&lhdDirectory == lhdDirectory {
		e.Type = archive.TypeDir
	} else if e.HostOS == archive.HostWindows && attr&archive.AttrDirectory != 0 && unp == 0 && b.flags&(lhdSplitBefore|lhdSplitAfter) == 0 {
		e.Type = archive.TypeDir
	}
	e.SplitBefore = b.flags&lhdSplitBefore != 0
	e.SplitAfter = b.flags&lhdSplitAfter != 0
	if b.flags&lhdLarge != 0 && unp == 1<<64-1 {
		e.Size = -1
	} else if unp > 1<<62 {
		return f, fmt.Errorf("%w: unpacked size %d", archive.ErrFormat, unp)
	} else {
		e.Size = int64(unp)
		f.sizeKnown = true
	}
	e.PackedSize = b.dataSize
	var crypt *partCrypt
	if salt != nil {
		crypt = &partCrypt{salt: salt}
	}
	f.parts = r.alloc.onePart(part{vol: int32(vol), offset: b.dataOff, size: b.dataSize, crypt: crypt})
	f.unpVer = uint8(unpVer)
	f.solid = b.flags&lhdSolid != 0
	if unpVer <= 15 && r.info.Solid && len(r.files) > 0 && b.typ == block4File {
		// RAR 1.5 has no per-file solid flag: in a solid archive every
		// file after the first continues the stream.
		f.solid = true
	}
	e.Solid = f.solid
	f.dictSize = int64(64<<10) << ((b.flags & lhdWindowMask) >> 5)
	if method < 0x30 || method > 0x35 {
		return f, &archive.UnsupportedError{What: fmt.Sprintf("RAR method 0x%02x", method)}
	}
	f.method = uint8(method - 0x30)
	family := "RAR4"
	switch {
	case method == 0x30:
		f.algo = algoStored
	case unpVer <= 15:
		f.algo, family = algoRAR15, "RAR1.5"
	case unpVer == 20 || unpVer == 26:
		f.algo, family = algoRAR20, "RAR2"
	case unpVer == 29 || unpVer == 36:
		f.algo = algoRAR3
	default:
		f.algo = algoStored
		f.badMethod = true
		e.Method = fmt.Sprintf("RAR version %d.%d", unpVer/10, unpVer%10)
	}
	if e.Method == "" {
		if f.algo == algoStored {
			e.Method = r.methodName(family, 0, 0)
		} else {
			e.Method = r.methodName(family, int(f.method), f.dictSize)
		}
	}
	if b.flags&lhdPassword != 0 {
		e.Encrypted = true
		switch {
		case unpVer < 15:
			f.enc = encRAR13
		case unpVer == 15:
			f.enc = encRAR15
		case unpVer == 20 || unpVer == 26:
			f.enc = encRAR20
		default:
			f.enc = encRAR3
		}
	}
	if e.Type == archive.TypeDir {
		e.Size = 0
		f.parts = nil
	} else if e.HostOS == archive.HostUnix && attr&sIFMT == sIFLNK {
		e.Type = archive.TypeSymlink
		f.linkData = true
	}
	e.SetMode()
	return f, nil
}

// parseExtTime decodes the RAR 2.9+ extended time field: a 16-bit flag
// word with 4 bits per time (mtime, ctime, atime, arctime, from the top):
// 8 = present, 4 = add one second, low 2 bits = number of bytes of the
// 100 ns remainder that follow (most significant bytes). Times other than
// mtime are preceded by their DOS time.
func parseExtTime(h *hbuf, e *archive.Entry) {
	fl := h.u16()
	for i := 0; i < 4; i++ {
		bits := fl >> ((3 - i) * 4)
		if bits&8 == 0 {
			continue
		}
		var t time.Time
		if i == 0 {
			t = e.ModTime
		} else {
			t = dosTime(h.u32())
		}
		n := int(bits & 3)
		var rem uint32
		for j := 0; j < n; j++ {
			rem |= uint32(h.u8()) << ((j + 3 - n) * 8)
		}
		if h.err != nil {
			return // tolerated: keep what we have
		}
		if t.IsZero() {
			continue
		}
		if bits&4 != 0 {
			t = t.Add(time.Second)
		}
		t = t.Add(time.Duration(rem) * 100)
		switch i {
		case 0:
			e.ModTime = t
		case 1:
			e.MutableExtra().CreateTime = t
		case 2:
			e.MutableExtra().AccessTime = t
		}
	}
}

// decodeRARName decodes a RAR 2.9+ Unicode file name: the OEM name, a zero
// byte, then the UTF-16 name compressed against the OEM name. The encoded
// part starts with the high byte used by mode 1; then a flags byte gives
// four 2-bit operations (from the top): 0 = one low byte, 1 = one low byte
// with the high byte, 2 = a full 16-bit character, 3 = a run copying
// characters from the OEM name (length byte, with bit 7 = add a correction
// to each copied byte and use the high byte). Without a zero byte the name
// is UTF-8.
func decodeRARName(b []byte, ansi bool) string {
	z := -1
	for i, c := range b {
		if c == 0 {
			z = i
			break
		}
	}
	if z < 0 {
		return legacyName(b, ansi)
	}
	oem, enc := b[:z], b[z+1:]
	if len(enc) == 0 {
		return legacyName(oem, ansi)
	}
	out := make([]uint16, 0, len(oem))
	high := uint16(enc[0])
	p := 1
	var flags byte
	nflag := 0
	const maxOut = maxNameLen
	for p < len(enc) && len(out) < maxOut {
		if nflag == 0 {
			flags = enc[p]
			p++
			nflag = 8
		}
		op := flags >> 6
		flags <<= 2
		nflag -= 2
		switch op {
		case 0:
			if p >= len(enc) {
				goto done
			}
			out = append(out, uint16(enc[p]))
			p++
		case 1:
			if p >= len(enc) {
				goto done
			}
			out = append(out, uint16(enc[p])|high<<8)
			p++
		case 2:
			if p+1 >= len(enc) {
				goto done
			}
			out = append(out, uint16(enc[p])|uint16(enc[p+1])<<8)
			p += 2
		case 3:
			if p >= len(enc) {
				goto done
			}
			l := int(enc[p])
			p++
			if l&0x80 != 0 {
				if p >= len(enc) {
					goto done
				}
				corr := enc[p]
				p++
				for n := (l & 0x7f) + 2; n > 0 && len(out) < len(oem); n-- {
					out = append(out, uint16(oem[len(out)]+corr)|high<<8)
				}
			} else {
				for n := l + 2; n > 0 && len(out) < len(oem); n-- {
					out = append(out, uint16(oem[len(out)]))
				}
			}
		}
	}
done:
	for len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return string(utf16.Decode(out))
}
