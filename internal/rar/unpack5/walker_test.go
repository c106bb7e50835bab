package unpack5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// A minimal RAR5 header walker for tests: it finds the packed data of the
// file entries of a single-volume, unencrypted archive.

type rar5File struct {
	name      string
	dir       bool
	size      int64 // -1 unknown
	method    int
	version   int
	solid     bool
	dict      int64
	encrypted bool
	split     bool
	data      []byte
}

var errWalk = errors.New("walker: bad archive")

func readVint(b []byte, p *int) (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if *p >= len(b) {
			return 0, errWalk
		}
		c := b[*p]
		*p++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errWalk
}

func walkRAR5(path string) ([]rar5File, error) {
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
	var files []rar5File
	for p+4 < len(buf) {
		q := p + 4
		hsize, err := readVint(buf, &q)
		if err != nil {
			return nil, err
		}
		hend := q + int(hsize)
		if hsize > 1<<21 || hend > len(buf) {
			return nil, errWalk
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
			return nil, errWalk
		}
		switch htype {
		case 4:
			return nil, fmt.Errorf("encrypted headers")
		case 5:
			return files, nil
		case 2:
			var f rar5File
			fflags, _ := readVint(buf, &q)
			us, _ := readVint(buf, &q)
			f.size = int64(us)
			if fflags&8 != 0 {
				f.size = -1
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
				return nil, errWalk
			}
			f.name = string(buf[q : q+int(nl)])
			q += int(nl)
			f.dir = fflags&1 != 0
			f.version = int(ci & 0x3f)
			f.solid = ci&0x40 != 0
			f.method = int(ci >> 7 & 7)
			f.dict = int64(128<<10) << (ci >> 10 & 0x1f)
			if f.version == 1 {
				f.dict += f.dict / 32 * int64(ci>>15&0x1f)
			}
			f.split = hflags&0x18 != 0
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
					f.encrypted = true
				}
				e = next
			}
			f.data = buf[dataStart:dataEnd]
			files = append(files, f)
		}
		p = dataEnd
	}
	return files, nil
}

var _ = binary.LittleEndian
