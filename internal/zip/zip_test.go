package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// testFile is one entry of a generated archive.
type testFile struct {
	name    string
	data    []byte
	method  uint16
	extra   []byte
	comment string
	mode    os.FileMode
}

// buildZip writes files with the standard library's writer.
func buildZip(t testing.TB, files []testFile, comment string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for _, f := range files {
		h := &stdzip.FileHeader{Name: f.name, Method: f.method, Extra: f.extra, Comment: f.comment,
			Modified: time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)}
		if f.mode != 0 {
			h.SetMode(f.mode)
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if comment != "" {
		if err := w.SetComment(comment); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openBytes(t testing.TB, b []byte, password string) (archive.Reader, error) {
	t.Helper()
	opts := &archive.Options{Name: "test.zip"}
	if password != "" {
		opts.Password = func() (string, error) { return password, nil }
	}
	return NewReader(bytes.NewReader(b), int64(len(b)), opts)
}

// readAll extracts every entry into a map by name, with the first error.
func readAll(r archive.Reader) (map[string][]byte, error) {
	got := map[string][]byte{}
	var first error
	err := r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
		b, err := io.ReadAll(rc)
		if err != nil && first == nil {
			first = err
		}
		if e.Type == archive.TypeSymlink {
			b = []byte(e.LinkTarget)
		}
		got[e.Name] = b
		return nil
	})
	if err == nil {
		err = first
	}
	return got, err
}

func randomText(seed int64, n int) []byte {
	r := rand.New(rand.NewSource(seed))
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta ", "eta ", "theta\n"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
	}
	return b.Bytes()[:n]
}

func TestGoWriterRoundTrip(t *testing.T) {
	text := randomText(1, 100000)
	files := []testFile{
		{name: "dir/", mode: os.ModeDir | 0o755},
		{name: "dir/stored.txt", data: []byte("hello, world\n"), method: stdzip.Store},
		{name: "dir/deflated.txt", data: text, method: stdzip.Deflate, comment: "entry comment"},
		{name: "empty", method: stdzip.Deflate},
		{name: "ünïcödé.txt", data: []byte("utf-8 name"), method: stdzip.Deflate},
		{name: "link", data: []byte("dir/stored.txt"), method: stdzip.Store, mode: os.ModeSymlink | 0o777},
		{name: "exec.sh", data: []byte("#!/bin/sh\n"), method: stdzip.Deflate, mode: 0o755},
	}
	b := buildZip(t, files, "archive comment")
	r, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Info().Comment != "archive comment" || r.Info().Format != Format {
		t.Errorf("info %+v", r.Info())
	}
	es := r.Entries()
	if len(es) != len(files) {
		t.Fatalf("%d entries", len(es))
	}
	byName := map[string]*archive.Entry{}
	for _, e := range es {
		byName[e.Name] = e
	}
	for _, c := range []struct {
		name string
		typ  archive.EntryType
		perm os.FileMode
	}{
		{"dir", archive.TypeDir, 0o755}, {"dir/stored.txt", archive.TypeFile, 0},
		{"link", archive.TypeSymlink, 0o777}, {"exec.sh", archive.TypeFile, 0o755},
	} {
		e := byName[c.name]
		if e == nil {
			t.Fatalf("no entry %q", c.name)
		}
		if e.Type != c.typ || c.perm != 0 && e.Mode.Perm() != c.perm {
			t.Errorf("%s: type %v mode %v", c.name, e.Type, e.Mode)
		}
	}
	if e := byName["dir/deflated.txt"]; e.Comment() != "entry comment" || e.Size != int64(len(text)) || e.Method != "Deflate" {
		t.Errorf("deflated entry %+v", e)
	}
	if e := byName["dir/stored.txt"]; !e.ModTime.Equal(time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)) {
		t.Errorf("mod time %v", e.ModTime)
	}
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f.name, "/")
		if !bytes.Equal(got[name], f.data) {
			t.Errorf("%s: %d bytes, want %d", name, len(got[name]), len(f.data))
		}
	}
}

// rawZip assembles an archive from explicit local records and central
// records, for malformed inputs the standard writer cannot make.
type rawEntry struct {
	name          string
	method        uint16
	flags         uint16
	crc           uint32
	csize, usize  uint32
	data          []byte
	localOff      int64 // -1: where it is written
	cdExtra       []byte
	localExtra    []byte
	skipLocal     bool
	localName     string // when set, the local header's name
	externalAttrs uint32
	madeBy        uint16
}

func rawZip(entries []rawEntry, prefix []byte) []byte {
	le := binary.LittleEndian
	var b bytes.Buffer
	b.Write(prefix)
	offs := make([]int64, len(entries))
	for i, e := range entries {
		offs[i] = int64(b.Len() - len(prefix))
		if e.skipLocal {
			continue
		}
		var h [30]byte
		le.PutUint32(h[0:], sigLocal)
		le.PutUint16(h[4:], 20)
		le.PutUint16(h[6:], e.flags)
		le.PutUint16(h[8:], e.method)
		le.PutUint32(h[14:], e.crc)
		le.PutUint32(h[18:], e.csize)
		le.PutUint32(h[22:], e.usize)
		name := e.name
		if e.localName != "" {
			name = e.localName
		}
		le.PutUint16(h[26:], uint16(len(name)))
		le.PutUint16(h[28:], uint16(len(e.localExtra)))
		b.Write(h[:])
		b.WriteString(name)
		b.Write(e.localExtra)
		b.Write(e.data)
	}
	cdStart := b.Len() - len(prefix)
	for i, e := range entries {
		off := offs[i]
		if e.localOff >= 0 {
			off = e.localOff
		}
		var h [46]byte
		le.PutUint32(h[0:], sigCentral)
		le.PutUint16(h[4:], e.madeBy)
		le.PutUint16(h[6:], 20)
		le.PutUint16(h[8:], e.flags)
		le.PutUint16(h[10:], e.method)
		le.PutUint32(h[16:], e.crc)
		le.PutUint32(h[20:], e.csize)
		le.PutUint32(h[24:], e.usize)
		le.PutUint16(h[28:], uint16(len(e.name)))
		le.PutUint16(h[30:], uint16(len(e.cdExtra)))
		le.PutUint32(h[38:], e.externalAttrs)
		le.PutUint32(h[42:], uint32(off))
		b.Write(h[:])
		b.WriteString(e.name)
		b.Write(e.cdExtra)
	}
	cdSize := b.Len() - len(prefix) - cdStart
	var end [22]byte
	le.PutUint32(end[0:], sigEnd)
	le.PutUint16(end[8:], uint16(len(entries)))
	le.PutUint16(end[10:], uint16(len(entries)))
	le.PutUint32(end[12:], uint32(cdSize))
	le.PutUint32(end[16:], uint32(cdStart))
	b.Write(end[:])
	return b.Bytes()
}

func stored(name string, data []byte) rawEntry {
	return rawEntry{name: name, data: data, crc: crc32.ChecksumIEEE(data), csize: uint32(len(data)),
		usize: uint32(len(data)), localOff: -1}
}

func TestMalformed(t *testing.T) {
	data := []byte("some stored data\n")
	bad := stored("bad", data)
	bad.crc ^= 1
	dup := stored("second", data)
	dup.localOff = 0
	dup.skipLocal = true
	noLocal := stored("a", data)
	noLocal.localOff = 1 // not a local header
	methodDiffers := stored("m", data)
	methodDiffers.cdExtra = nil
	methodDiffers.method = 0
	lzmaEmpty := rawEntry{name: "lzma", method: methodLZMA, data: []byte{9, 20, 5, 0, 0x5d, 0xff, 0xff, 0xff, 0xff},
		csize: 9, localOff: -1}
	otherName := stored("central.txt", data)
	otherName.localName = "localxx.txt"
	short := stored("short", data)
	short.usize = 5
	short.csize = 5 // a stored entry whose stream holds more than declared is cut: CRC fails
	for _, c := range []struct {
		name     string
		archive  []byte
		openErr  error
		entryErr error
	}{
		{"stored CRC differs from the data", rawZip([]rawEntry{bad}, nil), nil, archive.ErrChecksum},
		{"overlapping entries (one stream, two records)", rawZip([]rawEntry{stored("first", data), dup}, nil), archive.ErrFormat, nil},
		{"LZMA stream without range coder bytes", rawZip([]rawEntry{lzmaEmpty}, nil), nil, archive.ErrFormat},
		{"local name differs", rawZip([]rawEntry{otherName}, nil), archive.ErrFormat, nil},
		{"no local header", rawZip([]rawEntry{noLocal}, nil), archive.ErrFormat, nil},
		{"truncated", rawZip([]rawEntry{stored("x", data)}, nil)[:40], archive.ErrFormat, nil},
		{"declared size shorter than the data", rawZip([]rawEntry{short}, nil), nil, archive.ErrChecksum},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := openBytes(t, c.archive, "")
			if c.openErr != nil {
				if !errors.Is(err, c.openErr) {
					t.Fatalf("open: %v, want %v", err, c.openErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			_, err = readAll(r)
			if !errors.Is(err, c.entryErr) {
				t.Fatalf("extract: %v, want %v", err, c.entryErr)
			}
		})
	}
}

// TestChecksumMismatch: content that does not match the stored CRC fails
// with ErrChecksum (the local header CRC agrees, so it is the data).
func TestChecksumMismatch(t *testing.T) {
	data := []byte("some stored data\n")
	e := stored("f", data)
	b := rawZip([]rawEntry{e}, nil)
	i := bytes.Index(b, data)
	b[i] ^= 0x20
	r, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(r); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("%v, want ErrChecksum", err)
	}
}

// TestDeclaredSizeEnforced: a Deflate stream that decodes to more than
// the declared size yields exactly the declared bytes, then ErrFormat.
func TestDeclaredSizeEnforced(t *testing.T) {
	text := randomText(2, 5000)
	b := buildZip(t, []testFile{{name: "f", data: text, method: stdzip.Deflate}}, "")
	// Lower the declared size to 1000 in both headers (CRC of the prefix).
	le := binary.LittleEndian
	crc := crc32.ChecksumIEEE(text[:1000])
	for _, sig := range []uint32{sigCentral} {
		var s [4]byte
		le.PutUint32(s[:], sig)
		i := bytes.Index(b, s[:])
		le.PutUint32(b[i+16:], crc)
		le.PutUint32(b[i+24:], 1000)
	}
	r, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
		var k int64
		k, err = io.Copy(io.Discard, rc)
		n = int(k)
		return err
	})
	if !errors.Is(err, archive.ErrFormat) || n != 1000 {
		t.Fatalf("%d bytes, %v; want 1000 and ErrFormat", n, err)
	}
}

// TestPlainReaderAt: NewReader needs nothing of ra but ReadAt (the size
// is given), as the opener passes files and multi-part readers.
func TestPlainReaderAt(t *testing.T) {
	b := buildZip(t, []testFile{{name: "a", data: []byte("x"), method: stdzip.Store}}, "")
	r, err := NewReader(struct{ io.ReaderAt }{bytes.NewReader(b)}, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(r); err != nil || string(got["a"]) != "x" {
		t.Fatalf("%q %v", got["a"], err)
	}
}

func TestPrefixAndTrailingData(t *testing.T) {
	b := buildZip(t, []testFile{{name: "a.txt", data: []byte("content"), method: stdzip.Deflate}}, "c")
	prefix := bytes.Repeat([]byte("MZ stub "), 100)
	withPrefix := append(append([]byte{}, prefix...), b...)
	r, err := openBytes(t, withPrefix, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Info().SFXOffset != int64(len(prefix)) {
		t.Errorf("SFXOffset %d, want %d", r.Info().SFXOffset, len(prefix))
	}
	got, err := readAll(r)
	if err != nil || string(got["a.txt"]) != "content" {
		t.Fatalf("%q %v", got["a.txt"], err)
	}
}

func TestNames(t *testing.T) {
	upath := func(name, unicode string) []byte {
		d := []byte{1, 0, 0, 0, 0}
		binary.LittleEndian.PutUint32(d[1:], crc32.ChecksumIEEE([]byte(name)))
		d = append(d, unicode...)
		return append([]byte{0x75, 0x70, byte(len(d)), 0}, d...)
	}
	for _, c := range []struct {
		name   string
		raw    string
		extra  []byte
		madeBy uint16
		want   string
	}{
		{"cp437", "\x81ber \xe1 \x9c\xff.txt", nil, 0, "über ß £\u00a0.txt"},
		{"cp437 box drawing", "\xc9\xcd\xbb", nil, 0, "╔═╗"},
		{"utf-8 from unix host", "caf\xc3\xa9", nil, 3 << 8, "café"},
		{"utf-8 bytes from dos host read as cp437", "caf\xc3\xa9", nil, 0, "caf├⌐"},
		{"unicode path extra", "caf\x82", upath("caf\x82", "café"), 0, "café"},
		{"unicode path extra for another name", "caf\x82", upath("other", "wrong"), 0, "café"},
		{"backslashes from dos host", "dir\\file", nil, 0, "dir/file"},
		{"backslash kept from unix host", "dir\\file", nil, 3 << 8, "dir\\file"},
		{"nul ends the name", "name\x00junk", nil, 0, "name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := stored(c.raw, []byte("x"))
			e.cdExtra = c.extra
			e.madeBy = c.madeBy
			r, err := openBytes(t, rawZip([]rawEntry{e}, nil), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Entries()[0].Name; got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

// TestDataDescriptor: entries written in streaming mode (flag bit 3,
// sizes and CRC after the data, with signature) by the standard writer.
func TestDataDescriptor(t *testing.T) {
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for i, name := range []string{"one", "two"} {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(randomText(int64(i), 3000))
	}
	w.Close()
	r, err := openBytes(t, buf.Bytes(), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(r)
	if err != nil || !bytes.Equal(got["two"], randomText(1, 3000)) {
		t.Fatalf("%v", err)
	}
}

// TestNoEndRecord: an archive without an end record is read from its
// local headers, including entries whose sizes follow in a data
// descriptor. When the central directory is there (only the end record is
// damaged) that is all; when the file ends before it (a cut download),
// the complete entries are still read but Err and Extract report the cut,
// as 7-Zip and unzip fail on such a file (garc used to pass it).
func TestNoEndRecord(t *testing.T) {
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for i, name := range []string{"one", "two", "three"} {
		h := &stdzip.FileHeader{Name: name, Method: stdzip.Deflate}
		if i == 2 {
			h.Method = stdzip.Store
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(randomText(int64(i), 3000))
	}
	w.Close()
	b := buf.Bytes()
	cd := bytes.Index(b, []byte("PK\x01\x02"))
	end := bytes.Index(b, []byte("PK\x05\x06"))
	third := bytes.LastIndex(b[:cd], []byte("PK\x03\x04"))
	damagedEnd := bytes.Clone(b)
	damagedEnd[end] = 'X'
	tests := []struct {
		name    string
		b       []byte
		entries int  // complete entries read
		cut     bool // reported as cut short
	}{
		{"end record damaged", damagedEnd, 3, false},
		{"cut before the central directory", b[:cd], 3, true},
		{"cut in the central directory", b[:cd+30], 3, true},
		{"cut in the third local header", b[:third+20], 2, true},
		{"cut in the third entry's data", b[:third+100], 2, true},
		{"cut in the second entry's data (descriptor missing)", b[:third-30], 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := openBytes(t, tt.b, "")
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.Entries()); n != tt.entries {
				t.Errorf("%d entries listed, want %d", n, tt.entries)
			}
			scanErr := r.(*Reader).Err()
			if (scanErr != nil) != tt.cut || (scanErr != nil && !errors.Is(scanErr, archive.ErrFormat)) {
				t.Errorf("Err() = %v, want cut %v", scanErr, tt.cut)
			}
			got, err := readAll(r)
			if (err != nil) != tt.cut || (err != nil && !errors.Is(err, archive.ErrFormat)) {
				t.Errorf("Extract: %v, want cut %v", err, tt.cut)
			}
			if len(got) != tt.entries || !bytes.Equal(got["one"], randomText(0, 3000)) {
				t.Errorf("%d entries extracted, want %d", len(got), tt.entries)
			}
		})
	}
}

// TestZipCryptoCheckByteCollision: a wrong password that passes the
// one-byte check of traditional encryption is still reported (as a
// probable wrong password) before the callback receives any byte.
func TestZipCryptoCheckByteCollision(t *testing.T) {
	text := randomText(5, 20000)
	b := sevenZipArchive(t, map[string][]byte{"f.txt": text}, "-mm=Copy", "-mem=ZipCrypto", "-psecret")
	r, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	f := &r.(*Reader).files[0]
	var pw string
	for i := 0; pw == ""; i++ {
		cand := fmt.Sprintf("wrong%d", i)
		var z zipCrypto
		z.init([]byte(cand))
		hdr := append([]byte(nil), b[f.dataOff:f.dataOff+zipCryptoHeaderLen]...)
		z.decrypt(hdr)
		if hdr[11] == byte(f.crc>>24) {
			pw = cand
		}
	}
	r, err = openBytes(t, b, pw)
	if err != nil {
		t.Fatal(err)
	}
	r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
		n, err := io.Copy(io.Discard, rc)
		if n != 0 || !errors.Is(err, archive.ErrWrongPassword) {
			t.Errorf("password %q passing the check byte: %d bytes, %v", pw, n, err)
		}
		return nil
	})
}

// sevenZipArchive creates an archive with 7zz from files in a temporary
// directory and returns its bytes.
func sevenZipArchive(t *testing.T, files map[string][]byte, args ...string) []byte {
	t.Helper()
	exe := testenv.SevenZip(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	var names []string
	for name, data := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	out := filepath.Join(dir, "out.zip")
	cmd := exec.Command(exe, append(append([]string{"a", "-tzip", out}, args...), names...)...)
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSevenZipMethodsAndEncryption(t *testing.T) {
	files := map[string][]byte{
		"text.txt":   randomText(3, 300000),
		"small.txt":  []byte("small\n"),
		"random.bin": func() []byte { b := make([]byte, 70000); rand.New(rand.NewSource(4)).Read(b); return b }(),
	}
	for _, c := range []struct {
		name     string
		args     []string
		password string
		method   string
	}{
		{"store", []string{"-mm=Copy"}, "", "Store"},
		{"deflate", []string{"-mm=Deflate"}, "", "Deflate"},
		{"deflate64", []string{"-mm=Deflate64"}, "", "Deflate64"},
		{"bzip2", []string{"-mm=BZip2"}, "", "BZip2"},
		{"lzma", []string{"-mm=LZMA"}, "", "LZMA:eos"}, // 7zz writes the end marker and names it
		{"ppmd", []string{"-mm=PPMd"}, "", "PPMd"},
		{"ppmd order 4, 1 MiB (restart)", []string{"-mm=PPMd", "-mo=4", "-mmem=1m"}, "", "PPMd"},
		{"ppmd order 16, 1 MiB (cut off)", []string{"-mm=PPMd", "-mo=16", "-mmem=1m"}, "", "PPMd"},
		{"ppmd order 2", []string{"-mm=PPMd", "-mo=2"}, "", "PPMd"},
		{"zipcrypto", []string{"-mm=Deflate", "-mem=ZipCrypto", "-psecret"}, "secret", "ZipCrypto Deflate"},
		{"aes128", []string{"-mm=Deflate", "-mem=AES128", "-psecret"}, "secret", "AES-128 Deflate"},
		{"aes192", []string{"-mm=LZMA", "-mem=AES192", "-psecret"}, "secret", "AES-192 LZMA:eos"},
		{"aes256", []string{"-mm=Copy", "-mem=AES256", "-psecret"}, "secret", "AES-256 Store"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := sevenZipArchive(t, files, c.args...)
			r, err := openBytes(t, b, c.password)
			if err != nil {
				t.Fatal(err)
			}
			ms := " " + strings.Join(r.Info().Methods, " ") + " "
			for _, m := range strings.Fields(c.method) {
				m, _, _ = strings.Cut(m, ":") // the archive's list names methods without levels
				if !strings.Contains(ms, " "+m+" ") {
					t.Errorf("Info.Methods %q lacks %q", ms, m)
				}
			}
			for _, e := range r.Entries() {
				if e.Name == "text.txt" && e.Method != c.method {
					t.Errorf("%s: method %q, want %q", e.Name, e.Method, c.method)
				}
			}
			got, err := readAll(r)
			if err != nil {
				t.Fatal(err)
			}
			for name, data := range files {
				if !bytes.Equal(got[name], data) {
					t.Errorf("%s differs", name)
				}
			}
			if c.password == "" {
				return
			}
			// A wrong password is reported before any byte is handed
			// out; no password at all asks for one.
			for _, pw := range []string{"wrong", ""} {
				r, err := openBytes(t, b, pw)
				if err != nil {
					t.Fatal(err)
				}
				want := archive.ErrWrongPassword
				if pw == "" {
					want = archive.ErrPasswordRequired
				}
				r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
					n, err := io.Copy(io.Discard, rc)
					if c.name == "zipcrypto" && pw == "wrong" && !errors.Is(err, want) {
						// One check byte: 1 in 256 wrong passwords pass
						// it and fail later as a probable wrong password.
						return nil
					}
					if n != 0 || !errors.Is(err, want) {
						t.Errorf("password %q: %s: %d bytes, %v; want none and %v", pw, e.Name, n, err, want)
					}
					return nil
				})
			}
		})
	}
}

// unicodePathExtra is an Info-ZIP Unicode Path field (0x7075) for a
// stored name.
func unicodePathExtra(stored, utf8Name string) []byte {
	b := []byte{0x75, 0x70, 0, 0, 1, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(b[2:], uint16(5+len(utf8Name)))
	binary.LittleEndian.PutUint32(b[5:], crc32.ChecksumIEEE([]byte(stored)))
	return append(b, utf8Name...)
}

// TestRecodedLocalName: when a Unicode Path field is present and the two
// headers store different name bytes, the local header's name is used
// (with its own Unicode Path field when that matches it), as bsdtar does
// (libarchive's 7075 test); without such a field different names stay an
// error (TestMalformed).
func TestRecodedLocalName(t *testing.T) {
	data := []byte("x")
	matching := stored("File 2 - \x94.txt", data) // CP437 ö in the directory
	matching.localName = "File 2 - xx.txt"
	matching.localExtra = unicodePathExtra("File 2 - xx.txt", "File 2 - ö.txt")
	stale := stored("File 4 - \x86.txt", data) // the field matches only the directory's name
	stale.localName = "File 4 - xx.txt"
	stale.cdExtra = unicodePathExtra("File 4 - \x86.txt", "File 4 - å.txt")
	stale.localExtra = stale.cdExtra
	r, err := openBytes(t, rawZip([]rawEntry{matching, stale}, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range r.Entries() {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, "|"); got != "File 2 - ö.txt|File 4 - xx.txt" {
		t.Fatalf("names %q", got)
	}
}
