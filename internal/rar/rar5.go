package rar

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// RAR5 header types.
const (
	head5Main    = 1
	head5File    = 2
	head5Service = 3
	head5Crypt   = 4
	head5End     = 5
)

// RAR5 common header flags.
const (
	hfl5Extra       = 0x01
	hfl5Data        = 0x02
	hfl5SplitBefore = 0x08
	hfl5SplitAfter  = 0x10
)

// header5 is one decoded RAR5 header.
type header5 struct {
	typ      uint64
	flags    uint64
	body     hbuf   // type-specific fields
	extra    []byte // extra area
	dataOff  int64  // data area offset in the volume
	dataSize int64
	next     int64 // offset of the next header
}

// readHeader5 reads the header at pos of volume vol into h, decrypting it
// with key when headers are encrypted. The header's bytes (h.body,
// h.extra) are valid until the next call.
func (r *reader) readHeader5(vol int, pos int64, key *rar5Keys, h *header5) error {
	ra, size := r.vols[vol], r.sizes[vol]
	w := &r.hdr
	w.begin(vol, pos)
	var buf []byte
	var total int64
	if key == nil {
		pre, err := w.bytes(ra, size, vol, pos, int(min(7, size-pos)))
		if err != nil {
			return err
		}
		if len(pre) < 5 {
			return fmt.Errorf("%w: truncated header", archive.ErrFormat)
		}
		hb := hbuf{b: pre[4:]}
		hs := hb.vsize(maxHeaderSize)
		if hb.err != nil || hs == 0 {
			return fmt.Errorf("%w: bad header size", archive.ErrFormat)
		}
		sl := len(pre) - 4 - hb.len()
		total = int64(4 + sl + hs)
		if pos+total > size {
			return fmt.Errorf("%w: header runs past the end of the volume", archive.ErrFormat)
		}
		if buf, err = w.bytes(ra, size, vol, pos, int(total)); err != nil {
			return err
		}
	} else {
		head, err := w.bytes(ra, size, vol, pos, 32)
		if err != nil {
			return err
		}
		// iv and first live in the reader: a local passed to the
		// cipher would escape to the heap, for every header.
		iv, first := r.hdrCipher.iv[:], r.hdrCipher.first[:]
		copy(iv, head)
		copy(first, head[16:])
		if err := r.hdrCipher.decrypt(first, key.key[:], iv); err != nil {
			return err
		}
		hb := hbuf{b: first[4:]}
		hs := hb.vsize(maxHeaderSize)
		if hb.err != nil || hs == 0 {
			return fmt.Errorf("%w: bad encrypted header", archive.ErrWrongPassword)
		}
		sl := 12 - hb.len()
		plain := int64(4 + sl + hs)
		padded := (plain + 15) &^ 15
		if pos+16+padded > size {
			return fmt.Errorf("%w: header runs past the end of the volume", archive.ErrFormat)
		}
		enc, err := w.bytes(ra, size, vol, pos+16, int(padded))
		if err != nil {
			return err
		}
		buf = r.plainHeader(enc)
		if err := r.hdrCipher.decrypt(buf, key.key[:], iv); err != nil {
			return err
		}
		buf = buf[:plain]
		total = 16 + padded
	}
	crc := uint32(buf[0]) | uint32(buf[1])<<8 | uint32(buf[2])<<16 | uint32(buf[3])<<24
	if crc32.ChecksumIEEE(buf[4:]) != crc {
		if key != nil {
			return fmt.Errorf("%w: encrypted header checksum mismatch", archive.ErrWrongPassword)
		}
		return fmt.Errorf("%w: header CRC mismatch", archive.ErrChecksum)
	}
	hb := hbuf{b: buf[4:]}
	hb.vint() // header size, already known
	*h = header5{}
	h.typ = hb.vint()
	h.flags = hb.vint()
	var extraSize, dataSize uint64
	if h.flags&hfl5Extra != 0 {
		extraSize = hb.vint()
	}
	if h.flags&hfl5Data != 0 {
		dataSize = hb.vint()
	}
	if hb.err != nil {
		return hb.err
	}
	if extraSize > uint64(hb.len()) {
		return fmt.Errorf("%w: extra area larger than its header", archive.ErrFormat)
	}
	body := hb.b[:hb.len()-int(extraSize)]
	h.extra = hb.b[hb.len()-int(extraSize):]
	h.body = hbuf{b: body}
	h.dataOff = pos + total
	if dataSize > uint64(size-h.dataOff) {
		return fmt.Errorf("%w: data area (%d bytes) runs past the end of the volume", archive.ErrFormat, dataSize)
	}
	h.dataSize = int64(dataSize)
	h.next = h.dataOff + h.dataSize
	return nil
}

// parseRAR5 reads every header of volume vol, whose signature is at off.
func (r *reader) parseRAR5(vol int, off int64) (volResult, error) {
	res := volResult{newNaming: true}
	pos := off + int64(len(sigRAR5))
	var key *rar5Keys
	sawMain := false
	var hdr header5
	h := &hdr
	for r.avail(vol, pos, 1) {
		if err := r.readHeader5(vol, pos, key, h); err != nil {
			if errors.Is(err, archive.ErrPasswordRequired) || errors.Is(err, archive.ErrWrongPassword) || errors.Is(err, archive.ErrLimit) {
				return res, r.errf("", pos, err)
			}
			if sawMain && len(r.files) > 0 && isTruncation(err) {
				// A damaged tail: keep the entries read so far and report
				// the damage when extracting.
				r.tailErr = r.errf("", pos, err)
				res.hasEnd, res.more = true, false
				return res, nil
			}
			return res, r.errf("", pos, err)
		}
		switch h.typ {
		case head5Crypt:
			b := &h.body
			if v := b.vint(); v != 0 {
				return res, r.errf("", pos, &archive.UnsupportedError{What: fmt.Sprintf("RAR5 encryption version %d", v)})
			}
			fl := b.vint()
			lg2 := int(b.u8())
			salt := b.bytes(16)
			var check *[12]byte
			if fl&1 != 0 {
				if c := b.bytes(12); c != nil {
					check = (*[12]byte)(c)
				}
			}
			if b.err != nil {
				return res, r.errf("", pos, b.err)
			}
			k, err := r.rar5Keys(salt, lg2)
			if err != nil {
				return res, r.errf("", pos, err)
			}
			if err := checkRAR5Password(k, check); err != nil {
				return res, r.errf("", pos, err)
			}
			key = k
			r.info.EncryptedHeaders = true
		case head5Main:
			sawMain = true
			b := &h.body
			fl := b.vint()
			if fl&0x2 != 0 {
				n := b.vint()
				if vol == 0 {
					r.volNumber = int64(n)
				}
				if n > 0 {
					res.notFirst = true
				} else if vol == 0 {
					res.first = true
				}
			} else if fl&0x1 != 0 {
				res.first = true
			}
			if b.err != nil {
				return res, r.errf("", pos, b.err)
			}
			res.volume = fl&0x1 != 0
			if vol == 0 {
				r.info.Solid = fl&0x4 != 0
				r.info.RecoveryRecord = fl&0x8 != 0
				r.info.Locked = fl&0x10 != 0
			}
		case head5File, head5Service:
			f, err := r.parseFile5(h, vol)
			if err != nil {
				return res, r.errf(f.e.Name, pos, err)
			}
			if h.typ == head5File {
				if err := r.addPiece(f); err != nil {
					return res, r.errf("", pos, err)
				}
			} else {
				r.service5(f, vol)
			}
		case head5End:
			fl := h.body.vint()
			res.more = fl&1 != 0
			res.hasEnd = true
			return res, nil
		default:
			// Unknown header types are skipped by size.
		}
		if h.next <= pos {
			return res, r.errf("", pos, fmt.Errorf("%w: header does not advance", archive.ErrFormat))
		}
		pos = h.next
	}
	if !sawMain {
		return res, r.errf("", pos, fmt.Errorf("%w: no main archive header", archive.ErrFormat))
	}
	return res, nil
}

func isTruncation(err error) bool {
	return errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum)
}

// service5 handles a service header: the archive comment, the recovery
// record and (ignored) quick-open, ACL and stream data.
func (r *reader) service5(f *fileInfo, vol int) {
	switch f.e.Name {
	case "CMT":
		if vol != 0 || r.info.Comment != "" || f.e.Size > maxCommentSize || len(f.parts) == 0 {
			return
		}
		if b, err := r.readSmall(f, maxCommentSize); err == nil {
			r.info.Comment = strings.TrimRight(string(b), "\x00")
		}
	case "RR":
		r.info.RecoveryRecord = true
	}
}

// parseFile5 decodes a file or service header.
func (r *reader) parseFile5(h *header5, vol int) (*fileInfo, error) {
	f := r.alloc.newFile()
	e := &f.e
	b := &h.body
	ff := b.vint()
	unp := b.vint()
	attr := b.vint()
	var mtime uint32
	if ff&0x2 != 0 {
		mtime = b.u32()
	}
	if ff&0x4 != 0 {
		e.CRC32 = b.u32()
		e.HasCRC32 = true
	}
	ci := b.vint()
	host := b.vint()
	nl := b.vsize(maxNameLen)
	name := b.bytes(nl)
	if b.err != nil {
		return f, b.err
	}
	e.Name = string(name)
	if i := strings.IndexByte(e.Name, 0); i >= 0 {
		e.Name = e.Name[:i]
	}
	if ff&0x8 != 0 || unp > 1<<62 {
		e.Size = -1
	} else {
		e.Size = int64(unp)
		f.sizeKnown = true
	}
	e.Attributes = uint32(attr)
	switch host {
	case 0:
		e.HostOS = archive.HostWindows
		// RAR5 separates with '/' on every host; a '\' in a name written
		// on Windows, where it cannot be part of a name, separates too.
		// From a Unix host it is a character of the name.
		e.Name = strings.ReplaceAll(e.Name, "\\", "/")
	case 1:
		e.HostOS = archive.HostUnix
	}
	if mtime != 0 {
		e.ModTime = time.Unix(int64(mtime), 0)
	}
	if ff&0x1 != 0 {
		e.Type = archive.TypeDir
	}
	e.SplitBefore = h.flags&hfl5SplitBefore != 0
	e.SplitAfter = h.flags&hfl5SplitAfter != 0
	e.PackedSize = h.dataSize

	ver := int(ci & 0x3f)
	f.solid = ci&0x40 != 0
	f.method = uint8(ci>>7) & 7
	dictBits := uint(ci>>10) & 0x1f
	frac := int64(ci>>15) & 0x1f
	f.unpVer = uint8(ver)
	if ver == 0 {
		dictBits &= 0x0f
		frac = 0
	}
	f.dictSize = int64(128<<10) << dictBits
	if ver >= 1 {
		f.dictSize += f.dictSize / 32 * frac
	}
	e.Solid = f.solid
	if f.method == 0 {
		f.algo = algoStored
		e.Method = "RAR5 m0"
	} else {
		f.algo = algoRAR5
		name := "RAR5"
		if ver == 1 {
			name = "RAR7"
		}
		e.Method = r.methodName(name, int(f.method), f.dictSize)
	}
	if ver > 1 {
		e.Method = fmt.Sprintf("RAR5 algorithm version %d", ver)
		f.badMethod = true
	}
	if f.method > 5 {
		e.Method = fmt.Sprintf("RAR5 method %d", f.method)
		f.badMethod = true
	}
	if h.dataSize > 0 || h.flags&hfl5Data != 0 {
		f.parts = r.alloc.onePart(part{vol: int32(vol), offset: h.dataOff, size: h.dataSize})
	}
	if err := r.extra5(f, h.extra); err != nil {
		return f, err
	}
	if e.Type == archive.TypeDir {
		e.Size = 0
	}
	e.SetMode()
	return f, nil
}

// extra5 decodes the extra records of a file or service header.
func (r *reader) extra5(f *fileInfo, extra []byte) error {
	e := &f.e
	x := hbuf{b: extra}
	for n := 0; x.len() > 0; n++ {
		if n >= maxExtraCount {
			return fmt.Errorf("%w: more than %d extra records", archive.ErrFormat, maxExtraCount)
		}
		sz := x.vsize(uint64(x.len()))
		rec := hbuf{b: x.bytes(sz)}
		if x.err != nil {
			return x.err
		}
		typ := rec.vint()
		switch typ {
		case 1: // encryption
			v := rec.vint()
			fl := rec.vint()
			lg2 := int(rec.u8())
			salt := rec.bytes(16)
			iv := rec.bytes(16)
			var check []byte
			if fl&1 != 0 {
				check = rec.bytes(12)
			}
			if rec.err != nil {
				return rec.err
			}
			if v != 0 {
				return &archive.UnsupportedError{What: fmt.Sprintf("RAR5 encryption version %d", v)}
			}
			// The header's bytes are the reader's window: keep copies,
			// in one allocation.
			kept := make([]byte, 0, len(salt)+len(iv)+len(check))
			kept = append(append(append(kept, salt...), iv...), check...)
			salt, iv = kept[:16:16], kept[16:32:32]
			if check != nil {
				check = kept[32:]
			}
			e.Encrypted = true
			f.enc = encRAR5
			f.lg2Count = uint8(lg2)
			f.pswCheck = nil
			if len(check) == 12 {
				f.pswCheck = (*[12]byte)(check)
			}
			f.useMAC = fl&2 != 0
			crypt := &partCrypt{salt: salt, iv: iv}
			for i := range f.parts {
				f.parts[i].crypt = crypt
			}
			if len(f.parts) == 0 {
				// keep parameters for empty data areas
				f.parts = nil
			}
		case 2: // hash
			if rec.vint() == 0 {
				s := rec.bytes(32)
				if rec.err == nil {
					e.MutableExtra().BLAKE2sp = append([]byte(nil), s...)
				}
			}
		case 3: // time
			fl := rec.vint()
			unix := fl&1 != 0
			var ts [3]time.Time
			var secs [3]int64
			for i := 0; i < 3; i++ {
				if fl&(2<<i) == 0 {
					continue
				}
				if unix {
					secs[i] = int64(int32(rec.u32()))
					ts[i] = time.Unix(secs[i], 0)
				} else {
					ts[i] = archive.FromFiletime(rec.u64())
				}
			}
			if unix && fl&0x10 != 0 {
				for i := 0; i < 3; i++ {
					if fl&(2<<i) != 0 {
						ns := rec.u32()
						if ns < 1e9 {
							ts[i] = time.Unix(secs[i], int64(ns))
						}
					}
				}
			}
			if rec.err == nil {
				if !ts[0].IsZero() {
					e.ModTime = ts[0]
				}
				if !ts[1].IsZero() || !ts[2].IsZero() {
					x := e.MutableExtra()
					x.CreateTime, x.AccessTime = ts[1], ts[2]
				}
			}
		case 4: // version
			rec.vint()
			v := rec.vint()
			if rec.err == nil && v < 1<<31 {
				e.MutableExtra().Version = int(v)
			}
		case 5: // redirection
			rt := rec.vint()
			fl := rec.vint()
			nl := rec.vsize(maxLinkTarget)
			target := rec.bytes(nl)
			if rec.err != nil {
				return rec.err
			}
			t := string(target)
			switch rt {
			case 1:
				e.Type = archive.TypeSymlink
			case 2, 3:
				e.Type = archive.TypeSymlink
				e.MutableExtra().Junction = rt == 3
				e.Extra.LinkToDir = fl&1 != 0
				t = strings.ReplaceAll(t, "\\", "/")
				t = strings.TrimPrefix(t, "/??/") // NT namespace prefix of junctions
			case 4, 5:
				e.Type = archive.TypeHardlink
				if rt == 5 {
					e.Type = archive.TypeCopy
				}
				if e.HostOS == archive.HostWindows {
					// The name of an entry, which separates as
					// the entry names do.
					t = strings.ReplaceAll(t, "\\", "/")
				}
			default:
				continue
			}
			e.LinkTarget = t
		case 6: // unix owner
			fl := rec.vint()
			if fl&1 != 0 {
				n := rec.vsize(256)
				e.MutableExtra().Owner = string(rec.bytes(n))
			}
			if fl&2 != 0 {
				n := rec.vsize(256)
				e.MutableExtra().Group = string(rec.bytes(n))
			}
			if fl&4 != 0 {
				if v := rec.vint(); v < 1<<31 {
					e.MutableExtra().UID = int(v)
				}
			}
			if fl&8 != 0 {
				if v := rec.vint(); v < 1<<31 {
					e.MutableExtra().GID = int(v)
				}
			}
			if rec.err != nil {
				return rec.err
			}
		}
	}
	return nil
}
