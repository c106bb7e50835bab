package rartest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
)

// File is a file entry found by a walker: its header fields as a decoder
// needs them and its packed data, a slice of the archive bytes.
type File struct {
	Name      string
	Dir       bool
	Size      int64 // unpacked size; -1 unknown (RAR5 only)
	Method    int   // RAR 1.4-4.x: method byte '0'..'5'; RAR5: 0..5
	Version   int   // RAR 1.4-4.x: unpack version; RAR5: algorithm version
	Solid     bool
	Dict      int64
	Encrypted bool
	Split     bool
	Data      []byte
}

// ErrWalk reports an archive the walker cannot follow.
var ErrWalk = errors.New("walker: bad archive")

// WalkRAR4 finds the file entries of a single-volume RAR 1.5-4.x archive
// without encrypted headers (it stops at the end-of-archive block). Method
// is the method byte ('0'..'5'), Version the unpack version (15, 20, 26,
// 29, 36).
func WalkRAR4(path string) ([]File, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(buf, []byte("Rar!\x1a\x07\x00"))
	if i < 0 {
		return nil, ErrWalk
	}
	p := i + 7
	var files []File
	for p+7 <= len(buf) {
		typ := buf[p+2]
		flags := binary.LittleEndian.Uint16(buf[p+3:])
		hsize := int(binary.LittleEndian.Uint16(buf[p+5:]))
		if hsize < 7 || p+hsize > len(buf) {
			return files, ErrWalk
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
				return files, ErrWalk
			}
			var f File
			pack := int64(binary.LittleEndian.Uint32(h[7:]))
			f.Size = int64(binary.LittleEndian.Uint32(h[11:]))
			f.Version = int(h[24])
			f.Method = int(h[25])
			nl := int(binary.LittleEndian.Uint16(h[26:]))
			q := 32
			if flags&0x100 != 0 {
				pack |= int64(binary.LittleEndian.Uint32(h[32:])) << 32
				f.Size |= int64(binary.LittleEndian.Uint32(h[36:])) << 32
				q += 8
			}
			if q+nl > len(h) {
				return files, ErrWalk
			}
			name := h[q : q+nl]
			if k := bytes.IndexByte(name, 0); k >= 0 {
				name = name[:k]
			}
			f.Name = strings.ReplaceAll(string(name), "\\", "/")
			f.Dir = flags&0xe0 == 0xe0
			f.Solid = flags&0x10 != 0
			f.Encrypted = flags&0x04 != 0
			f.Split = flags&0x03 != 0
			f.Dict = 64 << 10 << (flags >> 5 & 7)
			if pack < 0 || int64(p+hsize)+pack > int64(len(buf)) {
				return files, ErrWalk
			}
			f.Data = buf[p+hsize : p+hsize+int(pack)]
			files = append(files, f)
			add = int(pack)
		}
		p += hsize + add
	}
	return files, nil
}

// WalkRAR14 finds the file entries of a single-volume RAR 1.4 ("RE~^")
// archive: a 7-byte archive header (signature, header size, flags) and
// file headers of 21 fixed bytes (packed size, unpacked size, checksum,
// header size, time, attributes, flags, version, name size, method)
// followed by the name and the packed data.
func WalkRAR14(path string) ([]File, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(buf) < 7 || string(buf[:4]) != "RE~^" {
		return nil, ErrWalk
	}
	hs := int(binary.LittleEndian.Uint16(buf[4:]))
	archSolid := buf[6]&0x08 != 0
	p := hs
	var files []File
	for p+21 <= len(buf) {
		h := buf[p:]
		pack := int64(binary.LittleEndian.Uint32(h[0:]))
		var f File
		f.Size = int64(binary.LittleEndian.Uint32(h[4:]))
		fhs := int(binary.LittleEndian.Uint16(h[10:]))
		attr := h[16]
		flags := h[17]
		nl := int(h[19])
		f.Method = int(h[20]) + 0x30
		f.Version = 15
		if fhs < 21+nl || p+fhs > len(buf) || int64(p+fhs)+pack > int64(len(buf)) {
			return files, ErrWalk
		}
		f.Name = strings.ReplaceAll(string(h[21:21+nl]), "\\", "/")
		f.Dir = attr&0x10 != 0
		f.Solid = flags&0x10 != 0 || (archSolid && len(files) > 0)
		f.Encrypted = flags&0x04 != 0
		f.Split = flags&0x03 != 0
		f.Dict = 64 << 10
		f.Data = buf[p+fhs : p+fhs+int(pack)]
		files = append(files, f)
		p += fhs + int(pack)
	}
	return files, nil
}

// readVint reads a RAR5 variable-length integer at *p.
func readVint(b []byte, p *int) (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if *p >= len(b) {
			return 0, ErrWalk
		}
		c := b[*p]
		*p++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, ErrWalk
}

// WalkRAR5 finds the file entries of a single-volume RAR5 archive without
// encrypted headers. Size is -1 when unknown, Method the compression
// method (0 = stored), Version the algorithm version (0 = RAR5, 1 = RAR7).
func WalkRAR5(path string) ([]File, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sig := []byte("Rar!\x1a\x07\x01\x00")
	i := bytes.Index(buf, sig)
	if i < 0 {
		return nil, fmt.Errorf("no RAR5 signature")
	}
	p := i + len(sig)
	var files []File
	for p+4 < len(buf) {
		q := p + 4
		hsize, err := readVint(buf, &q)
		if err != nil {
			return nil, err
		}
		hend := q + int(hsize)
		if hsize > 1<<21 || hend > len(buf) {
			return nil, ErrWalk
		}
		htype, err := readVint(buf, &q)
		if err != nil {
			return nil, err
		}
		hflags, _ := readVint(buf, &q)
		var extraSize, dataSize uint64
		if hflags&1 != 0 {
			extraSize, _ = readVint(buf, &q)
		}
		if hflags&2 != 0 {
			dataSize, _ = readVint(buf, &q)
		}
		dataStart := hend
		dataEnd := dataStart + int(dataSize)
		if dataSize > uint64(len(buf)) || dataEnd > len(buf) {
			return nil, ErrWalk
		}
		switch htype {
		case 4:
			return nil, fmt.Errorf("encrypted headers")
		case 5:
			return files, nil
		case 2:
			var f File
			fflags, _ := readVint(buf, &q)
			us, _ := readVint(buf, &q)
			f.Size = int64(us)
			if fflags&8 != 0 {
				f.Size = -1
			}
			readVint(buf, &q) // attributes
			if fflags&2 != 0 {
				q += 4
			}
			if fflags&4 != 0 {
				q += 4
			}
			ci, _ := readVint(buf, &q)
			readVint(buf, &q) // host OS
			nl, _ := readVint(buf, &q)
			if q+int(nl) > hend {
				return nil, ErrWalk
			}
			f.Name = string(buf[q : q+int(nl)])
			q += int(nl)
			f.Dir = fflags&1 != 0
			f.Version = int(ci & 0x3f)
			f.Solid = ci&0x40 != 0
			f.Method = int(ci >> 7 & 7)
			f.Dict = int64(128<<10) << (ci >> 10 & 0x1f)
			if f.Version == 1 {
				f.Dict += f.Dict / 32 * int64(ci>>15&0x1f)
			}
			f.Split = hflags&0x18 != 0
			// extra area: look for the encryption record
			e := hend - int(extraSize)
			for e < hend {
				sz, err := readVint(buf, &e)
				if err != nil {
					break
				}
				next := e + int(sz)
				t, _ := readVint(buf, &e)
				if t == 1 {
					f.Encrypted = true
				}
				e = next
			}
			f.Data = buf[dataStart:dataEnd]
			files = append(files, f)
		}
		p = dataEnd
	}
	return files, nil
}
