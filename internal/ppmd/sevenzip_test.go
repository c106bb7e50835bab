package ppmd

// A minimal, test-only 7z header reader: just enough to find the packed
// streams, coders and CRCs of the folders in archives made by 7-Zip and
// the corpus, so PPMd streams can be decoded and checked directly. The
// real 7z reader lives in internal/sevenzip.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ulikunitz/xz/lzma"
)

type szCoder struct {
	id     []byte
	props  []byte
	numIn  int
	numOut int
}

type szFolder struct {
	coders      []szCoder
	unpackSizes []uint64
	crcDefined  bool
	crc         uint32
	// Substreams (files) of the folder and their CRCs.
	subSizes   []uint64
	subCRCDefs []bool
	subCRCs    []uint32
}

type szStreams struct {
	packPos   uint64
	packSizes []uint64
	folders   []*szFolder
}

type szParser struct {
	b   []byte
	pos int
	err error
}

func (p *szParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *szParser) byte() byte {
	if p.pos >= len(p.b) {
		p.fail("7z header truncated")
		return 0
	}
	c := p.b[p.pos]
	p.pos++
	return c
}

func (p *szParser) bytes(n uint64) []byte {
	if n > uint64(len(p.b)-p.pos) {
		p.fail("7z header truncated")
		p.pos = len(p.b)
		return nil
	}
	r := p.b[p.pos : p.pos+int(n)]
	p.pos += int(n)
	return r
}

func (p *szParser) number() uint64 {
	first := p.byte()
	mask := byte(0x80)
	var v uint64
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			return v | uint64(first&(mask-1))<<(8*i)
		}
		v |= uint64(p.byte()) << (8 * i)
		mask >>= 1
	}
	return v
}

func (p *szParser) count() int {
	n := p.number()
	if n > 1<<16 {
		p.fail("7z count %d too large", n)
		return 0
	}
	return int(n)
}

func (p *szParser) digests(n int) (defs []bool, crcs []uint32) {
	defs = make([]bool, n)
	crcs = make([]uint32, n)
	if p.byte() != 0 {
		for i := range defs {
			defs[i] = true
		}
	} else {
		var cur byte
		for i := 0; i < n; i++ {
			if i%8 == 0 {
				cur = p.byte()
			}
			defs[i] = cur&(0x80>>(i%8)) != 0
		}
	}
	for i := 0; i < n; i++ {
		if defs[i] {
			crcs[i] = binary.LittleEndian.Uint32(p.bytes(4))
		}
	}
	return defs, crcs
}

func (p *szParser) folder() *szFolder {
	f := &szFolder{}
	nc := p.count()
	numOut, numIn := 0, 0
	for i := 0; i < nc && p.err == nil; i++ {
		flag := p.byte()
		c := szCoder{id: p.bytes(uint64(flag & 0x0F)), numIn: 1, numOut: 1}
		if flag&0x10 != 0 {
			c.numIn, c.numOut = p.count(), p.count()
		}
		if flag&0x20 != 0 {
			c.props = p.bytes(p.number())
		}
		numIn += c.numIn
		numOut += c.numOut
		f.coders = append(f.coders, c)
	}
	for i := 0; i < numOut-1; i++ {
		p.number()
		p.number()
	}
	if packed := numIn - (numOut - 1); packed > 1 {
		for i := 0; i < packed; i++ {
			p.number()
		}
	}
	f.unpackSizes = make([]uint64, numOut)
	return f
}

func (p *szParser) streamsInfo() *szStreams {
	si := &szStreams{}
	for p.err == nil {
		switch id := p.byte(); id {
		case 0x00:
			return si
		case 0x06: // PackInfo
			si.packPos = p.number()
			n := p.count()
			for p.err == nil {
				t := p.byte()
				if t == 0 {
					break
				}
				switch t {
				case 0x09:
					for i := 0; i < n; i++ {
						si.packSizes = append(si.packSizes, p.number())
					}
				case 0x0A:
					p.digests(n)
				default:
					p.fail("7z pack info property %#x", t)
				}
			}
		case 0x07: // UnpackInfo
			if p.byte() != 0x0B {
				p.fail("7z: no folder list")
			}
			nf := p.count()
			if p.byte() != 0 {
				p.fail("7z: external folders")
			}
			for i := 0; i < nf && p.err == nil; i++ {
				si.folders = append(si.folders, p.folder())
			}
			if p.byte() != 0x0C {
				p.fail("7z: no unpack sizes")
			}
			for _, f := range si.folders {
				for i := range f.unpackSizes {
					f.unpackSizes[i] = p.number()
				}
			}
			for p.err == nil {
				t := p.byte()
				if t == 0 {
					break
				}
				if t != 0x0A {
					p.fail("7z unpack info property %#x", t)
					break
				}
				defs, crcs := p.digests(nf)
				for i, f := range si.folders {
					f.crcDefined, f.crc = defs[i], crcs[i]
				}
			}
		case 0x08: // SubStreamsInfo
			nums := make([]int, len(si.folders))
			for i := range nums {
				nums[i] = 1
			}
			t := p.byte()
			if t == 0x0D {
				for i := range nums {
					nums[i] = p.count()
				}
				t = p.byte()
			}
			for i, f := range si.folders {
				total := f.unpackSize()
				var sum uint64
				for j := 0; j < nums[i]-1 && t == 0x09; j++ {
					s := p.number()
					f.subSizes = append(f.subSizes, s)
					sum += s
				}
				if nums[i] > 0 {
					f.subSizes = append(f.subSizes, total-sum)
				}
			}
			if t == 0x09 {
				t = p.byte()
			}
			if t == 0x0A {
				n := 0
				for i, f := range si.folders {
					if !(nums[i] == 1 && f.crcDefined) {
						n += nums[i]
					}
				}
				defs, crcs := p.digests(n)
				k := 0
				for i, f := range si.folders {
					if nums[i] == 1 && f.crcDefined {
						f.subCRCDefs, f.subCRCs = []bool{true}, []uint32{f.crc}
						continue
					}
					for j := 0; j < nums[i]; j++ {
						f.subCRCDefs = append(f.subCRCDefs, defs[k])
						f.subCRCs = append(f.subCRCs, crcs[k])
						k++
					}
				}
				t = p.byte()
			}
			if t != 0 {
				p.fail("7z substreams property %#x", t)
			}
		default:
			p.fail("7z streams info property %#x", id)
		}
	}
	return si
}

// unpackSize is the size of the folder's final output: the unpack size of
// the first coder (7-Zip lists the last coder of the chain first).
func (f *szFolder) unpackSize() uint64 {
	if len(f.unpackSizes) == 0 {
		return 0
	}
	return f.unpackSizes[0]
}

// readSevenZip parses the headers of the 7z archive in data and returns
// the main streams, decoding an LZMA-compressed header when present.
func readSevenZip(data []byte) (*szStreams, error) {
	if len(data) < 32 || !bytes.Equal(data[:6], []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}) {
		return nil, errors.New("not a 7z archive")
	}
	off := binary.LittleEndian.Uint64(data[12:])
	size := binary.LittleEndian.Uint64(data[20:])
	if off > uint64(len(data)) || size > uint64(len(data))-32-off {
		return nil, errors.New("7z next header out of range")
	}
	hdr := data[32+off : 32+off+size]
	for round := 0; round < 4; round++ {
		p := &szParser{b: hdr}
		switch p.byte() {
		case 0x01: // Header
			for p.err == nil {
				switch id := p.byte(); id {
				case 0x02: // ArchiveProperties
					for p.byte() != 0 && p.err == nil {
						p.bytes(p.number())
					}
				case 0x03:
					p.streamsInfo()
				case 0x04:
					si := p.streamsInfo()
					return si, p.err
				default:
					return nil, fmt.Errorf("7z header property %#x before streams", id)
				}
			}
			return nil, p.err
		case 0x17: // EncodedHeader
			si := p.streamsInfo()
			if p.err != nil {
				return nil, p.err
			}
			if len(si.folders) != 1 || len(si.folders[0].coders) != 1 || !bytes.Equal(si.folders[0].coders[0].id, []byte{3, 1, 1}) || len(si.packSizes) < 1 {
				return nil, errors.New("7z encoded header is not plain LZMA")
			}
			f := si.folders[0]
			start := 32 + si.packPos
			if start > uint64(len(data)) || si.packSizes[0] > uint64(len(data))-start {
				return nil, errors.New("7z packed header out of range")
			}
			var lh [13]byte
			copy(lh[:], f.coders[0].props)
			binary.LittleEndian.PutUint64(lh[5:], f.unpackSize())
			r, err := lzma.NewReader(io.MultiReader(bytes.NewReader(lh[:]), bytes.NewReader(data[start:start+si.packSizes[0]])))
			if err != nil {
				return nil, err
			}
			hdr, err = io.ReadAll(r)
			if err != nil {
				return nil, err
			}
		default:
			return nil, errors.New("7z: unknown header type")
		}
	}
	return nil, errors.New("7z: too many header levels")
}

// ppmdFolder is one folder coded with PPMd alone.
type ppmdFolder struct {
	packed  []byte
	order   int
	memSize uint32
	folder  *szFolder
}

// ppmdFolders returns the folders of the 7z file at path that use a
// single PPMd coder.
func ppmdFolders(path string) ([]ppmdFolder, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	si, err := readSevenZip(data)
	if err != nil {
		return nil, err
	}
	var out []ppmdFolder
	pos := 32 + si.packPos
	pack := 0
	for _, f := range si.folders {
		numPacked := 0
		for _, c := range f.coders {
			numPacked += c.numIn
		}
		numPacked -= len(f.unpackSizes) - 1
		if pack+numPacked > len(si.packSizes) {
			return nil, errors.New("7z: pack streams missing")
		}
		start := pos
		for i := 0; i < numPacked; i++ {
			pos += si.packSizes[pack]
			pack++
		}
		if len(f.coders) != 1 || !bytes.Equal(f.coders[0].id, []byte{3, 4, 1}) {
			continue
		}
		if pos > uint64(len(data)) {
			return nil, errors.New("7z: pack stream out of range")
		}
		order, mem, err := ParseProps7z(f.coders[0].props)
		if err != nil {
			return nil, err
		}
		out = append(out, ppmdFolder{packed: data[start:pos], order: order, memSize: mem, folder: f})
	}
	return out, nil
}
