package sevenzip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

func TestReadNumber(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
	}{
		{[]byte{0x00}, 0},
		{[]byte{0x7F}, 0x7F},
		{[]byte{0x80, 0x80}, 0x80},
		{[]byte{0xBF, 0xFF}, 0x3FFF},
		{[]byte{0xC0, 0x00, 0x40}, 0x4000},
		{[]byte{0xE1, 0x02, 0x03, 0x04}, 0x01040302},
		{[]byte{0xFF, 1, 2, 3, 4, 5, 6, 7, 8}, 0x0807060504030201},
	}
	for _, tt := range tests {
		r := &byteReader{b: tt.in}
		got, err := r.readNumber()
		if err != nil || got != tt.want || r.remaining() != 0 {
			t.Errorf("readNumber(%x) = %x, %v (rest %d), want %x", tt.in, got, err, r.remaining(), tt.want)
		}
	}
	r := &byteReader{b: []byte{0xC0, 0x00}}
	if _, err := r.readNumber(); !errors.Is(err, archive.ErrFormat) {
		t.Errorf("truncated number: %v", err)
	}
}

func TestFileTime(t *testing.T) {
	// 2021-10-21 06:28:09.1234567 UTC
	want := time.Date(2021, 10, 21, 6, 28, 9, 123456700, time.UTC)
	ft := uint64(want.Unix()+11644473600)*10_000_000 + uint64(want.Nanosecond()/100)
	if got := fileTime(ft); !got.Equal(want) {
		t.Errorf("fileTime = %v, want %v", got, want)
	}
}

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/data.7z": "data", "x.7z.001": "x", "noext": "noext", "": "[Content]", "a.tar.7z": "a.tar",
	} {
		if got := defaultName(in); got != want {
			t.Errorf("defaultName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSizeString(t *testing.T) {
	for in, want := range map[uint64]string{1 << 24: "24", 3 << 20: "3m", 3 << 10: "3k", 1000: "1000"} {
		if got := sizeString(in); got != want {
			t.Errorf("sizeString(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestParseReparse(t *testing.T) {
	// A symlink reparse buffer with print name "C:\x\y".
	name := []uint16{'C', ':', '\\', 'x', '\\', 'y'}
	pathBuf := make([]byte, 2*len(name))
	for i, c := range name {
		binary.LittleEndian.PutUint16(pathBuf[2*i:], c)
	}
	d := make([]byte, 12)
	binary.LittleEndian.PutUint16(d[0:], 0)                    // substitute offset
	binary.LittleEndian.PutUint16(d[2:], uint16(len(pathBuf))) // substitute length
	binary.LittleEndian.PutUint16(d[4:], 0)                    // print offset
	binary.LittleEndian.PutUint16(d[6:], uint16(len(pathBuf))) // print length
	d = append(d, pathBuf...)
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, reparseTagSymlink)
	binary.LittleEndian.PutUint16(b[4:], uint16(len(d)))
	b = append(b, d...)
	got, dir, err := parseReparse(b)
	if err != nil || got != "C:/x/y" || dir {
		t.Errorf("parseReparse = %q, %v, %v", got, dir, err)
	}
	if _, _, err := parseReparse(b[:10]); err == nil {
		t.Error("truncated reparse buffer accepted")
	}
}

// buildArchive wraps a plain header into a complete archive.
func buildArchive(packed, hdr []byte) []byte {
	var b bytes.Buffer
	b.Write(signature)
	b.Write([]byte{0, 4})
	var start [20]byte
	binary.LittleEndian.PutUint64(start[0:], uint64(len(packed)))
	binary.LittleEndian.PutUint64(start[8:], uint64(len(hdr)))
	binary.LittleEndian.PutUint32(start[16:], crc32.ChecksumIEEE(hdr))
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], crc32.ChecksumIEEE(start[:]))
	b.Write(c[:])
	b.Write(start[:])
	b.Write(packed)
	b.Write(hdr)
	return b.Bytes()
}

func TestEmptyArchive(t *testing.T) {
	data := buildArchive(nil, nil)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Entries()) != 0 || rd.Info().Format != archive.Format7z {
		t.Errorf("entries %d, info %+v", len(rd.Entries()), rd.Info())
	}
	if err := rd.Extract(context.Background(), nil, func(*archive.Entry, io.Reader) error { return errors.New("called") }); err != nil {
		t.Error(err)
	}
}

// TestHandmade checks a hand-built archive: one stored file with a CRC, a
// file whose data is short, and header errors.
func TestHandmade(t *testing.T) {
	content := []byte("hello world")
	hdr := []byte{idHeader, idMainStreamsInfo,
		idPackInfo, 0, 1, idSize, byte(len(content)), idEnd,
		idUnpackInfo, idFolder, 1, 0, 1, 0x01, 0x00, idCodersUnpackSize, byte(len(content)), idEnd,
		idSubStreamsInfo, idCRC, 1}
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], crc32.ChecksumIEEE(content))
	hdr = append(hdr, c[:]...)
	hdr = append(hdr, idEnd, idEnd, idFilesInfo, 1, idName, 5, 0, 'f', 0, 0, 0, idEnd, idEnd)
	data := buildArchive(content, hdr)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := extractToMap(rd)
	if err != nil || got["f"] != string(content) {
		t.Fatalf("got %q, %v", got, err)
	}
	if e := rd.Entries()[0]; e.Method != "Copy" || !e.HasCRC32 || e.PackedSize != int64(len(content)) {
		t.Errorf("entry %+v", e)
	}
	// Corrupt the content: CRC error.
	bad := bytes.Clone(data)
	bad[signatureHeaderSize] ^= 1
	rd, err = NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extractToMap(rd); !errors.Is(err, archive.ErrChecksum) || errors.Is(err, archive.ErrWrongPassword) {
		t.Errorf("corrupt content: %v", err)
	}
	// Every truncation and every single-byte change of the header must
	// fail cleanly or succeed, never panic.
	for i := range hdr {
		for _, v := range []byte{0, 1, 0x7F, 0x80, 0xFF, hdr[i] + 1} {
			h := bytes.Clone(hdr)
			h[i] = v
			d := buildArchive(content, h)
			if rd, err := NewReader(bytes.NewReader(d), int64(len(d)), nil); err == nil {
				extractToMap(rd)
			}
		}
		if i == 0 {
			continue // an empty next header is an empty archive
		}
		d := buildArchive(content, hdr[:i])
		if _, err := NewReader(bytes.NewReader(d), int64(len(d)), nil); err == nil {
			t.Errorf("header truncated to %d bytes accepted", i)
		}
	}
	// Not an archive.
	if _, err := NewReader(bytes.NewReader(make([]byte, 64)), 64, nil); !errors.Is(err, archive.ErrNotArchive) {
		t.Errorf("zeros: %v", err)
	}
}

// TestLimits checks that dictionary and model sizes above MaxDict are
// refused with a LimitError before decoding.
func TestLimits(t *testing.T) {
	sevenzz := testenv.SevenZip(t)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "f"), mixedData(3, 1200<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"-m0=LZMA:d=1m:a=0", "-m0=LZMA2:d=1m:a=0", "-m0=PPMd:mem=1m:o=2"} {
		arc := filepath.Join(t.TempDir(), "l.7z")
		run7zz(t, sevenzz, src, arc, m)
		data, _ := os.ReadFile(arc)
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		_, err = extractToMap(rd)
		var le *archive.LimitError
		if !errors.As(err, &le) || !errors.Is(err, archive.ErrLimit) {
			t.Errorf("%s: %v, want a LimitError", m, err)
		}
	}
}

// TestTruncated cuts a real archive at many points: every cut must give an
// error (or, for cuts inside unused space, success), never a panic.
func TestTruncated(t *testing.T) {
	root := testenv.CorpusRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "files/sevenzip/lzma2.7z"))
	if err != nil {
		t.Fatal(err)
	}
	step := max(1, len(data)/200)
	for n := 0; n < len(data); n += step {
		d := data[:n]
		rd, err := NewReader(bytes.NewReader(d), int64(len(d)), nil)
		if err == nil {
			t.Errorf("cut at %d of %d accepted", n, len(data))
			extractToMap(rd)
		}
	}
	// Corrupt packed data: errors, no panics.
	for off := signatureHeaderSize; off < len(data)-200; off += step {
		d := bytes.Clone(data)
		d[off] ^= 0x55
		if rd, err := NewReader(bytes.NewReader(d), int64(len(d)), nil); err == nil {
			extractToMap(rd)
		}
	}
}

// corpusHeaders returns the (raw, possibly encoded) headers of corpus 7z
// archives, for fuzz seeds.
func corpusArchives(f *testing.F, maxSize int) [][]byte {
	root, ok := corpus.Root()
	if !ok {
		return nil
	}
	units, err := corpus.Units(root)
	if err != nil {
		return nil
	}
	var out [][]byte
	for i := range units {
		u := &units[i]
		if u.Format != "7z" || u.Kind != "single" {
			continue
		}
		st, err := os.Stat(u.Path(root))
		if err != nil || st.Size() > int64(maxSize) {
			continue
		}
		out = append(out, loadUnit(f, root, u))
	}
	return out
}

// TestUnsupportedFolder checks that a folder with an unsupported method
// fails its own entries only.
func TestUnsupportedFolder(t *testing.T) {
	a, b := []byte("brotli?"), []byte("stored")
	hdr := []byte{idHeader, idMainStreamsInfo,
		idPackInfo, 0, 2, idSize, byte(len(a)), byte(len(b)), idEnd,
		idUnpackInfo, idFolder, 2, 0,
		1, 0x04, 0x04, 0xF7, 0x11, 0x02,
		1, 0x01, 0x00,
		idCodersUnpackSize, byte(len(a)), byte(len(b)), idEnd,
		idEnd,
		idFilesInfo, 2, idName, 9, 0, 'a', 0, 0, 0, 'b', 0, 0, 0, idEnd, idEnd}
	data := buildArchive(append(bytes.Clone(a), b...), hdr)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := rd.Entries()[0].Method; m != "Brotli" {
		t.Errorf("method %q", m)
	}
	results := map[string]error{}
	contents := map[string]string{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		results[e.Name], contents[e.Name] = err, string(d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ue *archive.UnsupportedError
	if !errors.As(results["a"], &ue) || ue.What != "7z method Brotli" {
		t.Errorf("a: %v", results["a"])
	}
	if results["b"] != nil || contents["b"] != string(b) {
		t.Errorf("b: %q, %v", contents["b"], results["b"])
	}
}

// TestManyFailingFoldersThreads checks that folders failing to open do not
// hold back parallel decoding.
func TestManyFailingFoldersThreads(t *testing.T) {
	const n = 40
	hdr := []byte{idHeader, idMainStreamsInfo, idPackInfo, 0, n, idSize}
	var packed []byte
	for i := 0; i < n; i++ {
		hdr = append(hdr, 1)
		packed = append(packed, byte('a'+i%26))
	}
	hdr = append(hdr, idEnd, idUnpackInfo, idFolder, n, 0)
	for i := 0; i < n; i++ {
		if i == n-1 {
			hdr = append(hdr, 1, 0x01, 0x00) // Copy
		} else {
			hdr = append(hdr, 1, 0x04, 0x04, 0xF7, 0x11, 0x04) // LZ4
		}
	}
	hdr = append(hdr, idCodersUnpackSize)
	for i := 0; i < n; i++ {
		hdr = append(hdr, 1)
	}
	hdr = append(hdr, idEnd, idEnd, idFilesInfo, n, idName, 0x80, byte(1+4*n), 0)
	for i := 0; i < n; i++ {
		hdr = append(hdr, byte('A'+i), 0, 0, 0)
	}
	hdr = append(hdr, idEnd, idEnd)
	data := buildArchive(packed, hdr)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	failed, ok := 0, 0
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		if _, err := io.ReadAll(r); errors.Is(err, archive.ErrUnsupported) {
			failed++
		} else if err == nil {
			ok++
		}
		return nil
	})
	if err != nil || failed != n-1 || ok != 1 {
		t.Errorf("%v: %d failed, %d ok", err, failed, ok)
	}
}

// TestCancel checks that a cancelled context stops extraction inside an
// entry.
func TestCancel(t *testing.T) {
	root := testenv.CorpusRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "files/sevenzip/lzma2.7z"))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var readErr error
	err = rd.Extract(ctx, nil, func(e *archive.Entry, r io.Reader) error {
		if e.Size < 2 || readErr != nil {
			return nil
		}
		var b [1]byte
		if _, err := r.Read(b[:]); err != nil {
			return err
		}
		cancel()
		_, readErr = io.ReadAll(r)
		return nil
	})
	if !errors.Is(readErr, context.Canceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("read error %v, Extract %v", readErr, err)
	}
}
