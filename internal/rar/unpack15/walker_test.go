package unpack15

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
)

// A minimal RAR 1.5-4.x block walker for tests: it finds the packed data
// of the file entries of a single-volume archive without encrypted headers.

type rar4File struct {
	name      string
	dir       bool
	size      int64
	method    byte
	unpVer    int
	solid     bool
	dict      int64
	encrypted bool
	split     bool
	data      []byte
}

var errWalk = errors.New("walker: bad archive")

func walkRAR4(path string) ([]rar4File, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(buf, []byte("Rar!\x1a\x07\x00"))
	if i < 0 {
		return nil, errWalk
	}
	p := i + 7
	var files []rar4File
	for p+7 <= len(buf) {
		typ := buf[p+2]
		flags := binary.LittleEndian.Uint16(buf[p+3:])
		hsize := int(binary.LittleEndian.Uint16(buf[p+5:]))
		if hsize < 7 || p+hsize > len(buf) {
			return files, errWalk
		}
		add := 0
		if flags&0x8000 != 0 && hsize >= 11 {
			add = int(binary.LittleEndian.Uint32(buf[p+7:]))
		}
		h := buf[p : p+hsize]
		switch typ {
		case 0x73:
			if flags&0x80 != 0 {
				return nil, errors.New("encrypted headers")
			}
		case 0x7b:
			return files, nil
		case 0x74:
			if hsize < 32 {
				return files, errWalk
			}
			var f rar4File
			pack := int64(binary.LittleEndian.Uint32(h[7:]))
			f.size = int64(binary.LittleEndian.Uint32(h[11:]))
			f.unpVer = int(h[24])
			f.method = h[25]
			nl := int(binary.LittleEndian.Uint16(h[26:]))
			q := 32
			if flags&0x100 != 0 {
				pack |= int64(binary.LittleEndian.Uint32(h[32:])) << 32
				f.size |= int64(binary.LittleEndian.Uint32(h[36:])) << 32
				q += 8
			}
			if q+nl > len(h) {
				return files, errWalk
			}
			name := h[q : q+nl]
			if k := bytes.IndexByte(name, 0); k >= 0 {
				name = name[:k]
			}
			f.name = strings.ReplaceAll(string(name), "\\", "/")
			f.dir = flags&0xe0 == 0xe0
			f.solid = flags&0x10 != 0
			f.encrypted = flags&0x04 != 0
			f.split = flags&0x03 != 0
			f.dict = 64 << 10 << (flags >> 5 & 7)
			if pack < 0 || int64(p+hsize)+pack > int64(len(buf)) {
				return files, errWalk
			}
			f.data = buf[p+hsize : p+hsize+int(pack)]
			files = append(files, f)
			add = int(pack)
		}
		p += hsize + add
	}
	return files, nil
}

// walkRAR14 finds the file entries of a single-volume RAR 1.4 ("RE~^")
// archive: a 7-byte archive header (signature, header size, flags) and
// file headers of 21 fixed bytes (packed size, unpacked size, checksum,
// header size, time, attributes, flags, version, name size, method)
// followed by the name and the packed data.
func walkRAR14(path string) ([]rar4File, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(buf) < 7 || string(buf[:4]) != "RE~^" {
		return nil, errWalk
	}
	hs := int(binary.LittleEndian.Uint16(buf[4:]))
	archSolid := buf[6]&0x08 != 0
	p := hs
	var files []rar4File
	for p+21 <= len(buf) {
		h := buf[p:]
		pack := int64(binary.LittleEndian.Uint32(h[0:]))
		var f rar4File
		f.size = int64(binary.LittleEndian.Uint32(h[4:]))
		fhs := int(binary.LittleEndian.Uint16(h[10:]))
		attr := h[16]
		flags := h[17]
		nl := int(h[19])
		f.method = h[20] + 0x30
		f.unpVer = 15
		if fhs < 21+nl || p+fhs > len(buf) || int64(p+fhs)+pack > int64(len(buf)) {
			return files, errWalk
		}
		f.name = strings.ReplaceAll(string(h[21:21+nl]), "\\", "/")
		f.dir = attr&0x10 != 0
		f.solid = flags&0x10 != 0 || (archSolid && len(files) > 0)
		f.encrypted = flags&0x04 != 0
		f.split = flags&0x03 != 0
		f.dict = 64 << 10
		f.data = buf[p+fhs : p+fhs+int(pack)]
		files = append(files, f)
		p += fhs + int(pack)
	}
	return files, nil
}
