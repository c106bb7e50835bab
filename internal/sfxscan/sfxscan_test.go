package sfxscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// start7z returns a 7z signature header with a valid CRC.
func start7z() []byte {
	b := make([]byte, StartHeader7z)
	copy(b, Sig7z)
	b[7] = 4
	binary.LittleEndian.PutUint64(b[12:], 1234)
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:32]))
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestFind(t *testing.T) {
	good7z := start7z()
	bad7z := append([]byte(nil), good7z...)
	bad7z[20] ^= 1
	stub := bytes.Repeat([]byte("MZ stub 7z R a"), 100)
	rsfx := make([]byte, 40)
	copy(rsfx[28:], "RSFX")
	straddle := chunk - 3 // a signature across the first chunk boundary
	cases := []struct {
		name    string
		data    []byte
		from    int64
		formats Formats
		want    archive.Format
		off     int64
	}{
		{"7z at 0", good7z, 0, All, archive.Format7z, 0},
		{"7z at 0, bad CRC", bad7z, 0, All, archive.Format7z, 0},
		{"7z after stub", cat(stub, good7z), 0, All, archive.Format7z, int64(len(stub))},
		{"7z after stub, bad CRC", cat(stub, bad7z), 0, All, "", 0},
		{"rar5", cat(SigRAR5, []byte("x")), 0, All, archive.FormatRAR5, 0},
		{"rar4 after jpeg", cat([]byte("\xff\xd8\xff\xe0JFIF"), SigRAR4), 0, All, archive.FormatRAR4, 8},
		{"rar1.4 at 0", cat(SigRAR14, []byte("rest")), 0, All, archive.FormatRAR14, 0},
		{"rar1.4 after stub without RSFX", cat(stub, SigRAR14), 0, All, "", 0},
		{"rar1.4 after RSFX stub", cat(rsfx, SigRAR14), 0, All, archive.FormatRAR14, 40},
		{"first of two wins", cat(stub, SigRAR4, good7z), 0, All, archive.FormatRAR4, int64(len(stub))},
		{"only the formats asked", cat(stub, SigRAR4, good7z), 0, SevenZip, archive.Format7z, int64(len(stub) + len(SigRAR4))},
		{"from skips the first", cat(SigRAR5, stub, SigRAR5), 1, RAR, archive.FormatRAR5, int64(len(SigRAR5) + len(stub))},
		{"rar across a chunk boundary", cat(make([]byte, straddle), SigRAR5), 0, All, archive.FormatRAR5, int64(straddle)},
		{"7z across a chunk boundary", cat(make([]byte, straddle), good7z), 0, All, archive.Format7z, int64(straddle)},
		{"7z header across a chunk boundary", cat(make([]byte, chunk-10), good7z), 0, All, archive.Format7z, chunk - 10},
		{"truncated signature", []byte("Rar!\x1a\x07"), 0, All, "", 0},
		{"nothing", stub, 0, All, "", 0},
		{"empty", nil, 0, All, "", 0},
	}
	for _, c := range cases {
		m, ok, err := Find(bytes.NewReader(c.data), int64(len(c.data)), c.from, c.formats)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ok != (c.want != "") || m.Format != c.want || m.Offset != c.off {
			t.Errorf("%s: %+v %v, want %s at %d", c.name, m, ok, c.want, c.off)
		}
	}
}

// A signature must start before Limit; its 7z start header may end after.
func TestFindLimit(t *testing.T) {
	for _, c := range []struct {
		at int
		ok bool
	}{{Limit - 1, true}, {Limit, false}} {
		for _, sig := range [][]byte{SigRAR4, start7z()} {
			data := cat(make([]byte, c.at), sig)
			m, ok, err := Find(bytes.NewReader(data), int64(len(data)), 0, All)
			if err != nil || ok != c.ok || (ok && m.Offset != int64(c.at)) {
				t.Errorf("signature %x at %d: %+v %v %v", sig[:2], c.at, m, ok, err)
			}
		}
	}
}

type failingReaderAt struct{}

var errRead = errors.New("read failed")

func (failingReaderAt) ReadAt(p []byte, off int64) (int, error) { return 0, errRead }

func TestFindReadError(t *testing.T) {
	if _, _, err := Find(failingReaderAt{}, 100, 0, All); !errors.Is(err, errRead) {
		t.Fatalf("got %v", err)
	}
}

func FuzzFind(f *testing.F) {
	f.Add(cat([]byte("junk"), SigRAR5))
	f.Add(cat(make([]byte, 40), SigRAR14))
	f.Add(cat([]byte("MZ"), start7z()))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok, err := Find(bytes.NewReader(data), int64(len(data)), 0, All)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		rest := data[m.Offset:]
		var sig []byte
		switch m.Format {
		case archive.Format7z:
			if m.Offset > 0 && !Valid7zStart(rest) {
				t.Fatal("7z start header with a wrong CRC accepted after offset 0")
			}
			sig = Sig7z
		case archive.FormatRAR5:
			sig = SigRAR5
		case archive.FormatRAR4:
			sig = SigRAR4
		case archive.FormatRAR14:
			sig = SigRAR14
		}
		if !bytes.HasPrefix(rest, sig) {
			t.Fatalf("%s at %d without its signature", m.Format, m.Offset)
		}
		// Nothing earlier is a signature.
		if m.Offset > 0 {
			if m2, ok2, _ := Find(bytes.NewReader(data[:m.Offset+int64(len(sig))-1]), m.Offset+int64(len(sig))-1, 0, All); ok2 && m2.Offset < m.Offset {
				t.Fatalf("earlier signature at %d missed", m2.Offset)
			}
		}
	})
}
