package ppmd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

func corpusUnits(t testing.TB) (string, []corpus.Unit) {
	t.Helper()
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, units
}

func hasPPMd(u *corpus.Unit) bool { return strings.Contains(strings.ToLower(u.Features), "ppmd") }

// TestCorpus7z decodes every single-coder PPMd folder of the corpus's 7z
// units and checks the CRCs of the files in it.
func TestCorpus7z(t *testing.T) {
	root, units := corpusUnits(t)
	checked := 0
	d := &Reader7z{}
	for _, u := range units {
		if u.Format != "7z" || !hasPPMd(&u) || u.Kind != "single" {
			continue
		}
		t.Run(u.Unit, func(t *testing.T) {
			fs, err := ppmdFolders(u.Path(root))
			if err != nil {
				t.Fatalf("test 7z parser: %v", err)
			}
			if len(fs) == 0 {
				t.Skip("no single-coder PPMd folder (filter chains are the 7z reader's business)")
			}
			for i, f := range fs {
				size := int64(f.folder.unpackSize())
				if err := d.Reset(bytes.NewReader(f.packed), f.order, f.memSize, size); err != nil {
					t.Fatal(err)
				}
				got, err := readChunks(d, 1<<16)
				if err != nil {
					t.Fatalf("folder %d (o=%d mem=%d): %v", i, f.order, f.memSize, err)
				}
				if int64(len(got)) != size {
					t.Fatalf("folder %d: %d bytes, want %d", i, len(got), size)
				}
				crcCheck(t, f, got)
				checked++
				t.Logf("folder %d: order %d mem %d: %d -> %d bytes, CRCs ok", i, f.order, f.memSize, len(f.packed), size)
			}
		})
	}
	if checked == 0 {
		t.Fatal("no PPMd folder found in the corpus")
	}
}

// rarFile is a file entry of a RAR 1.5–4.x archive, as far as this test
// needs it.
type rarFile struct {
	name    string
	flags   uint16
	unpVer  byte
	method  byte
	unpSize uint64
	crc     uint32
	data    []byte
}

// rar4Files lists the file entries of a single-volume RAR 4 archive.
func rar4Files(data []byte) ([]rarFile, error) {
	if !bytes.HasPrefix(data, []byte("Rar!\x1a\x07\x00")) {
		return nil, errors.New("not a RAR 4 archive")
	}
	var files []rarFile
	pos := 7
	for pos+7 <= len(data) {
		h := data[pos:]
		typ := h[2]
		flags := binary.LittleEndian.Uint16(h[3:])
		hsize := int(binary.LittleEndian.Uint16(h[5:]))
		if hsize < 7 || hsize > len(h) {
			return files, errors.New("bad header size")
		}
		next := pos + hsize
		switch {
		case typ == 0x74 && hsize >= 32:
			f := rarFile{flags: flags}
			pack := uint64(binary.LittleEndian.Uint32(h[7:]))
			f.unpSize = uint64(binary.LittleEndian.Uint32(h[11:]))
			f.crc = binary.LittleEndian.Uint32(h[16:])
			f.unpVer, f.method = h[24], h[25]
			nameSize := int(binary.LittleEndian.Uint16(h[26:]))
			nameAt := 32
			if flags&0x100 != 0 {
				pack |= uint64(binary.LittleEndian.Uint32(h[32:])) << 32
				f.unpSize |= uint64(binary.LittleEndian.Uint32(h[36:])) << 32
				nameAt = 40
			}
			if nameAt+nameSize <= hsize {
				f.name = string(h[nameAt : nameAt+nameSize])
			}
			if pack > uint64(len(data)-next) {
				return files, errors.New("file data out of range")
			}
			f.data = data[next : next+int(pack)]
			files = append(files, f)
			next += int(pack)
		case typ == 0x7B:
			return files, nil
		case flags&0x8000 != 0:
			next += int(binary.LittleEndian.Uint32(h[7:]))
		}
		pos = next
	}
	return files, nil
}

// errNotPPMOnly marks RAR data this test cannot decode alone (LZ blocks,
// filters, continuation of a solid stream).
var errNotPPMOnly = errors.New("not PPM-only data")

// rarPPMStream is the state a RAR 2.9 PPM stream keeps across the files
// of a solid archive: the model, the range decoder, the escape character
// and the output so far (matches may reach into earlier files).
type rarPPMStream struct {
	m    *Model
	d    RARDecoder
	esc  byte
	hist []byte
	// clean is set when the previous file ended with the end-of-file code,
	// so a solid successor may continue the model.
	clean bool
}

// decodeRARPPM decodes a RAR 2.9 file whose packed data is one PPM block,
// implementing the small part of the RAR 3 format around it: the block
// header and the escape codes for matches, as the RAR decoder will. A
// solid file may continue the previous file's model (no reset flag).
func decodeRARPPM(f *rarFile, st *rarPPMStream, solid bool) ([]byte, error) {
	if !solid {
		st.esc, st.hist = 2, st.hist[:0]
	} else if !st.clean {
		return nil, errNotPPMOnly
	}
	st.clean = false
	br := bytes.NewReader(f.data)
	b0, err := br.ReadByte()
	if err != nil || b0&0x80 == 0 {
		return nil, errNotPPMOnly
	}
	flags := b0 & 0x7F
	if flags&0x20 != 0 {
		maxMB, err := br.ReadByte()
		if err != nil {
			return nil, err
		}
		order := int(flags&0x1F) + 1
		if order > 16 {
			order = 16 + (order-16)*3
		}
		if err := st.m.Init(order, (uint32(maxMB)+1)<<20); err != nil {
			return nil, err
		}
	} else if !solid {
		return nil, errNotPPMOnly
	}
	if flags&0x40 != 0 {
		if st.esc, err = br.ReadByte(); err != nil {
			return nil, err
		}
	}
	d := &st.d
	if err := d.Init(st.m, br); err != nil {
		return nil, err
	}
	base := len(st.hist)
	end := base + int(f.unpSize)
	copyMatch := func(dist, length int) error {
		if dist > len(st.hist) {
			return errors.New("match before start")
		}
		for ; length > 0 && len(st.hist) < end; length-- {
			st.hist = append(st.hist, st.hist[len(st.hist)-dist])
		}
		return nil
	}
	out := func() []byte { return st.hist[base:] }
	for len(st.hist) < end {
		c, err := d.DecodeSymbol()
		if err != nil {
			return out(), err
		}
		if byte(c) != st.esc {
			st.hist = append(st.hist, byte(c))
			continue
		}
		code, err := d.DecodeSymbol()
		if err != nil {
			return out(), err
		}
		switch code {
		case 0, 3: // new LZ table / filter
			return out(), errNotPPMOnly
		case 2: // end of file data
			return out(), nil
		case 4:
			dist := 0
			for i := 0; i < 3; i++ {
				b, err := d.DecodeSymbol()
				if err != nil {
					return out(), err
				}
				dist = dist<<8 | b
			}
			l, err := d.DecodeSymbol()
			if err != nil {
				return out(), err
			}
			if err := copyMatch(dist+2, l+32); err != nil {
				return out(), err
			}
		case 5:
			l, err := d.DecodeSymbol()
			if err != nil {
				return out(), err
			}
			if err := copyMatch(1, l+4); err != nil {
				return out(), err
			}
		default:
			st.hist = append(st.hist, st.esc)
		}
	}
	// The encoder closes a file with the escape character and code 2;
	// consume it so that a solid successor sees the same model.
	if c, err := d.DecodeSymbol(); err == nil && byte(c) == st.esc {
		if code, err := d.DecodeSymbol(); err == nil && code == 2 {
			st.clean = true
		}
	}
	return out(), nil
}

// TestCorpusRAR decodes the RAR 2.9 files of the corpus whose data is a
// single PPM block and checks their CRC; hostile units must end in an
// error or in output, never a panic or a hang.
func TestCorpusRAR(t *testing.T) {
	root, units := corpusUnits(t)
	st := &rarPPMStream{m: NewModel()}
	verified, continued := 0, 0
	for _, u := range units {
		if u.Format != "rar4" || u.Kind != "single" || !hasPPMd(&u) {
			continue
		}
		data, err := os.ReadFile(u.Path(root))
		if err != nil {
			t.Fatal(err)
		}
		files, _ := rar4Files(data)
		for _, f := range files {
			if f.unpVer != 29 || f.method == 0x30 || f.flags&0x07 != 0 || f.flags&0xE0 == 0xE0 {
				continue // other versions, stored, split, encrypted or directory
			}
			if f.unpSize > 64<<20 {
				continue
			}
			start := time.Now()
			solid := f.flags&0x10 != 0
			out, err := decodeRARPPM(&f, st, solid)
			took := time.Since(start)
			name := u.Unit + ":" + f.name
			switch {
			case errors.Is(err, errNotPPMOnly):
				t.Logf("%s: skipped (%v after %d bytes)", name, err, len(out))
			case err != nil:
				if !errors.Is(err, archive.ErrFormat) {
					t.Errorf("%s: error %v does not wrap ErrFormat", name, err)
				}
				if u.Expect == "ok" {
					t.Errorf("%s: %v after %d of %d bytes", name, err, len(out), f.unpSize)
				} else {
					t.Logf("%s (%s): %v", name, u.Expect, err)
				}
			case uint64(len(out)) != f.unpSize:
				t.Logf("%s: ended after %d of %d bytes", name, len(out), f.unpSize)
			case crc32.ChecksumIEEE(out) != f.crc:
				if u.Expect == "ok" {
					t.Errorf("%s: CRC mismatch", name)
				} else {
					t.Logf("%s (%s): CRC mismatch", name, u.Expect)
				}
			default:
				verified++
				if solid {
					continued++
				}
				t.Logf("%s: order %d mem %d MiB solid=%v: %d bytes, CRC ok (%v)", name, st.m.Order(), st.m.MemSize()>>20, solid, len(out), took)
			}
		}
	}
	if verified == 0 || continued == 0 {
		t.Fatalf("%d RAR PPM files verified, %d of them continuing a solid model; want some of both", verified, continued)
	}
}
