package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// withDescriptors rewrites a ZIP archive into the form a writer to a pipe
// makes: every entry's local header has flag bit 3 and zero CRC and
// sizes, and a data descriptor with its signature (8-byte sizes when
// zip64) follows the data; the central directory's flags and offsets
// follow.
func withDescriptors(t testing.TB, b []byte, zip64 bool) []byte {
	t.Helper()
	return withDescriptorsSig(t, b, zip64, true)
}

// withDescriptorsSig is withDescriptors, the descriptors without their
// signature when sig is false (APPNOTE 4.3.9.3 allows it).
func withDescriptorsSig(t testing.TB, b []byte, zip64, sig bool) []byte {
	t.Helper()
	r, err := newReader(bytes.NewReader(b), int64(len(b)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	var out []byte
	newOff := make([]int64, len(r.files))
	for i := range r.files {
		f := &r.files[i]
		newOff[i] = int64(len(out))
		h := append([]byte(nil), b[f.headerOff:f.dataOff]...)
		le.PutUint16(h[6:], le.Uint16(h[6:])|flagDescriptor)
		le.PutUint32(h[14:], 0)
		le.PutUint32(h[18:], 0)
		le.PutUint32(h[22:], 0)
		out = append(out, h...)
		out = append(out, b[f.dataOff:f.dataOff+f.csize]...)
		if sig {
			out = le.AppendUint32(out, sigDescriptor)
		}
		out = le.AppendUint32(out, f.crc)
		if zip64 {
			out = le.AppendUint64(out, uint64(f.csize))
			out = le.AppendUint64(out, uint64(f.usize))
		} else {
			out = le.AppendUint32(out, uint32(f.csize))
			out = le.AppendUint32(out, uint32(f.usize))
		}
	}
	cdStart := int64(len(out))
	pos := r.files[len(r.files)-1].dataEnd
	for i := range r.files {
		// The central records follow the last entry in order.
		for le.Uint32(b[pos:]) != sigCentral {
			pos++
		}
		n := centralLen + int(le.Uint16(b[pos+28:])) + int(le.Uint16(b[pos+30:])) + int(le.Uint16(b[pos+32:]))
		c := append([]byte(nil), b[pos:pos+int64(n)]...)
		le.PutUint16(c[8:], le.Uint16(c[8:])|flagDescriptor)
		if le.Uint32(c[42:]) == 0xFFFFFFFF {
			t.Fatal("withDescriptors: Zip64 offsets not handled")
		}
		le.PutUint32(c[42:], uint32(newOff[i]))
		out = append(out, c...)
		pos += int64(n)
	}
	cdSize := int64(len(out)) - cdStart
	out = le.AppendUint32(out, sigEnd)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint16(out, uint16(len(r.files)))
	out = le.AppendUint16(out, uint16(len(r.files)))
	out = le.AppendUint32(out, uint32(cdSize))
	out = le.AppendUint32(out, uint32(cdStart))
	return le.AppendUint16(out, 0)
}

// readStream reads b with StreamReader, a byte or a few at a time as a
// pipe delivers them, and returns the contents and the entries after the
// central directory.
func readStream(t testing.TB, b []byte, password string) (map[string]string, []*archive.Entry, *StreamReader, error) {
	t.Helper()
	opts := &archive.Options{Name: "s.zip", Password: func() (string, error) { return password, nil }}
	s, err := NewStreamReader(iotest.HalfReader(bytes.NewReader(b)), opts)
	if err != nil {
		return nil, nil, nil, err
	}
	got := map[string]string{}
	err = s.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		got[e.Name] = string(d)
		return err
	})
	return got, s.Entries(), s, err
}

// The stream reader gives what the file reader gives, for every method,
// encryption, with and without data descriptors (32- and 64-bit sizes),
// and lists the entries as the central directory describes them.
func TestStreamReaderMatchesFileReader(t *testing.T) {
	items, files := testItems()
	type variant struct {
		name string
		b    []byte
		pw   string
	}
	var cases []variant
	for _, m := range testMethods {
		plain := writeZip(t, items, WriteOptions{Method: m, Level: 5})
		aes := writeZip(t, items, WriteOptions{Method: m, Level: 5, Password: "pw"})
		crypto := writeZip(t, items, WriteOptions{Method: m, Level: 5, Password: "pw", Encryption: "ZipCrypto"})
		z64 := writeZip(t, items, WriteOptions{Method: m, Level: 5, ForceZip64: true})
		cases = append(cases,
			variant{m, plain, ""},
			variant{m + " descriptor", withDescriptors(t, plain, false), ""},
			variant{m + " zip64 descriptor", withDescriptors(t, plain, true), ""},
			variant{m + " descriptor without signature", withDescriptorsSig(t, plain, false, false), ""},
			variant{m + " zip64 descriptor without signature", withDescriptorsSig(t, plain, true, false), ""},
			variant{m + " AES descriptor without signature", withDescriptorsSig(t, aes, false, false), "pw"},
			variant{m + " zip64", z64, ""},
			variant{m + " AES", aes, "pw"},
			variant{m + " AES descriptor", withDescriptors(t, aes, false), "pw"},
			variant{m + " ZipCrypto", crypto, "pw"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantEntries := readZip(t, c.b, c.pw)
			got, entries, s, err := readStream(t, c.b, c.pw)
			if err != nil {
				t.Fatal(err)
			}
			for name, data := range files {
				if got[name] != data {
					t.Errorf("%s: %d bytes, want %d", name, len(got[name]), len(data))
				}
			}
			if got["link"] != "dir/a.txt" {
				t.Errorf("link content %q", got["link"])
			}
			if len(entries) != len(wantEntries) {
				t.Fatalf("%d entries, file reader %d", len(entries), len(wantEntries))
			}
			for i, e := range entries {
				w := wantEntries[i]
				if e.Name != w.Name || e.Type != w.Type || e.Mode != w.Mode || e.Size != w.Size || e.PackedSize != w.PackedSize ||
					e.CRC32 != w.CRC32 || e.Method != w.Method || !e.ModTime.Equal(w.ModTime) {
					t.Errorf("entry %d: %s %v %v %d/%d %08x %s, file reader %s %v %v %d/%d %08x %s", i,
						e.Name, e.Type, e.Mode, e.Size, e.PackedSize, e.CRC32, e.Method,
						w.Name, w.Type, w.Mode, w.Size, w.PackedSize, w.CRC32, w.Method)
				}
				_ = want
			}
			// Revisions: the link and the entries with modes other
			// than the defaults the local headers give.
			rev := map[string]archive.EntryType{}
			for _, e := range s.Revisions() {
				rev[e.Name] = e.Type
			}
			if rev["link"] != archive.TypeSymlink || len(rev) < 2 {
				t.Errorf("revisions %v: want the link and the modes", rev)
			}
			if s.Info().PhysicalSize != int64(len(c.b)) {
				t.Errorf("physical size %d, want %d", s.Info().PhysicalSize, len(c.b))
			}
		})
	}
}

// editEntry returns a copy of b with the central directory record of the
// entry named name changed by edit.
func editCentral(t *testing.T, b []byte, name string, edit func(rec []byte)) []byte {
	t.Helper()
	b = append([]byte(nil), b...)
	i := bytes.LastIndex(b, binary.LittleEndian.AppendUint32(nil, sigCentral))
	for i >= 0 {
		nlen := int(binary.LittleEndian.Uint16(b[i+28:]))
		if string(b[i+centralLen:i+centralLen+nlen]) == name {
			edit(b[i:])
			return b
		}
		i = bytes.LastIndex(b[:i], binary.LittleEndian.AppendUint32(nil, sigCentral))
	}
	t.Fatalf("no central record %q", name)
	return nil
}

// A central directory that disagrees with the local headers, or an archive
// cut short, is an error naming the archive and the entry; the entries
// read before are handed out.
func TestStreamReaderErrors(t *testing.T) {
	items, _ := testItems()
	b := writeZip(t, items, WriteOptions{Method: "Deflate"})
	d := withDescriptors(t, b, false)
	le := binary.LittleEndian
	for _, c := range []struct {
		name  string
		b     []byte
		is    error
		entry string
		says  string
	}{
		{"size differs", editCentral(t, b, "dir/a.txt", func(r []byte) { le.PutUint32(r[24:], 999) }), archive.ErrFormat, "dir/a.txt", "size"},
		{"crc differs", editCentral(t, d, "big.bin", func(r []byte) { le.PutUint32(r[16:], 1) }), archive.ErrFormat, "big.bin", "CRC"},
		{"name differs", editCentral(t, b, "dir/a.txt", func(r []byte) { r[centralLen+4] = 'b' }), archive.ErrFormat, "dir/b.txt", "name"},
		{"entry only in the directory", editCentral(t, b, "big.bin", func(r []byte) { le.PutUint32(r[42:], 5) }), archive.ErrFormat, "big.bin", "only in the central directory"},
		{"cut in data", b[:len(b)/2], archive.ErrFormat, "", "cut short"},
		{"cut in descriptor data", d[:len(d)/2], archive.ErrFormat, "", "cut short"},
		{"cut in directory", b[:len(b)-30], archive.ErrFormat, "", "cut short"},
		{"wrong password", writeZip(t, items, WriteOptions{Method: "Deflate", Password: "other"}), archive.ErrWrongPassword, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, s, err := readStream(t, c.b, "pw")
			if s != nil && err == nil {
				err = s.Err()
			}
			if !errors.Is(err, c.is) {
				t.Fatalf("error %v, want %v", err, c.is)
			}
			var ae *archive.Error
			if !errors.As(err, &ae) || ae.Archive != "s.zip" || (c.entry != "" && ae.Entry != c.entry) {
				t.Errorf("error %v does not name s.zip and %q", err, c.entry)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
		})
	}
}

// A second reading fails; Entries after a listing costs nothing.
func TestStreamReaderOnce(t *testing.T) {
	items, _ := testItems()
	b := writeZip(t, items, WriteOptions{Method: "Deflate"})
	s, err := NewStreamReader(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	list := s.Entries()
	if len(list) != len(items) {
		t.Fatalf("%d entries, want %d", len(list), len(items))
	}
	// The listing keeps small contents, for the links' targets.
	if e := list[len(list)-1]; e.Name != "link" || e.Type != archive.TypeSymlink || e.LinkTarget != "dir/a.txt" {
		t.Errorf("last entry %s %v -> %q, want the link to dir/a.txt", e.Name, e.Type, e.LinkTarget)
	}
	if err := s.Extract(context.Background(), nil, func(*archive.Entry, io.Reader) error { return nil }); !errors.Is(err, ErrStreamConsumed) {
		t.Fatalf("second reading: %v", err)
	}
	if _, err := NewStreamReader(strings.NewReader("not a zip"), nil); !errors.Is(err, archive.ErrNotArchive) {
		t.Fatalf("not a zip: %v", err)
	}
}

// Info-ZIP writing into a pipe makes data descriptors (stored entries
// included, with -0), ZipCrypto with the time check byte, spanning
// markers with -s; the stream reader reads them all and the central
// directory agrees.
func TestStreamReaderInfoZIP(t *testing.T) {
	zipExe := testenv.Tool(t, "zip")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "sub", "x.txt"), bytes.Repeat([]byte("some text\n"), 5000), 0o640)
	os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(src, "empty"), nil, 0o600)
	os.WriteFile(filepath.Join(src, "PK\x07\x08.bin"), bytes.Repeat([]byte("PK\x07\x08\x00\x00\x00\x00"), 300), 0o644)
	os.Symlink("sub/x.txt", filepath.Join(src, "ln"))
	for _, c := range []struct {
		name string
		args []string
		pw   string
	}{
		{"deflate", []string{"-qry", "-"}, ""},
		{"stored", []string{"-qry0", "-"}, ""},
		{"zipcrypto", []string{"-qry", "-P", "pw", "-"}, "pw"},
		{"stored zipcrypto", []string{"-qry0", "-P", "pw", "-"}, "pw"},
		{"bzip2", []string{"-qry", "-Z", "bzip2", "-"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(zipExe, append(c.args, ".")...)
			cmd.Dir = src
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				if c.name == "bzip2" {
					t.Skip("zip without bzip2")
				}
				t.Fatal(err)
			}
			b := out.Bytes()
			want, wantEntries := readZip(t, b, c.pw)
			got, entries, s, err := readStream(t, b, c.pw)
			if err != nil {
				t.Fatal(err)
			}
			// The file reader hands the link out as a link, its
			// target in the entry; the stream reader as a file
			// holding the target.
			if got["ln"] != "sub/x.txt" {
				t.Errorf("ln holds %q", got["ln"])
			}
			delete(got, "ln")
			delete(want, "ln")
			if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 5 {
				t.Errorf("contents differ from the file reader's: %d entries, want 5", len(got))
			}
			modes := map[string]fs.FileMode{}
			for _, e := range wantEntries {
				modes[e.Name] = e.Mode
			}
			for _, e := range entries {
				if modes[e.Name] != e.Mode {
					t.Errorf("%s: mode %v, file reader %v", e.Name, e.Mode, modes[e.Name])
				}
			}
			revised := map[string]bool{}
			for _, e := range s.Revisions() {
				revised[e.Name] = true
			}
			if !revised["ln"] || !revised["run.sh"] {
				t.Errorf("revisions %v: want ln and run.sh", revised)
			}
		})
	}
}

// An archive that starts with the marker of a spanned or split archive of
// one part (PK\x07\x08, or PK00 as PKZIP writes it) is read after the
// marker, its offsets counting it or not.
func TestStreamReaderSpanMarker(t *testing.T) {
	items, files := testItems()
	b := writeZip(t, items[:3], WriteOptions{Method: "Deflate"})
	for _, marker := range []string{"PK\x07\x08", "PK00"} {
		data := append([]byte(marker), b...)
		if !StreamStart(data) {
			t.Fatalf("%q: StreamStart false", marker)
		}
		got, entries, s, err := readStream(t, data, "")
		if err != nil {
			t.Fatalf("%q: %v", marker, err)
		}
		if len(entries) != 3 || got["dir/a.txt"] != files["dir/a.txt"] || s.Info().SFXOffset != 4 {
			t.Errorf("%q: %d entries, a.txt %d bytes, prefix %d", marker, len(entries), len(got["dir/a.txt"]), s.Info().SFXOffset)
		}
	}
	if StreamStart([]byte("PK\x07\x08MZ\x90\x00")) || StreamStart([]byte("MZ\x90\x00PK\x03\x04")) {
		t.Error("StreamStart takes what is no local header")
	}
}

// Names recoded between the two headers (the Unicode Path field is
// there) are the local header's from a pipe too, as NewReader takes them.
func TestStreamReaderRecodedLocalName(t *testing.T) {
	data := []byte("x")
	matching := stored("File 2 - \x94.txt", data)
	matching.localName = "File 2 - xx.txt"
	matching.localExtra = unicodePathExtra("File 2 - xx.txt", "File 2 - ö.txt")
	stale := stored("File 4 - \x86.txt", data)
	stale.localName = "File 4 - xx.txt"
	stale.cdExtra = unicodePathExtra("File 4 - \x86.txt", "File 4 - å.txt")
	stale.localExtra = stale.cdExtra
	got, entries, _, err := readStream(t, rawZip([]rawEntry{matching, stale}, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if n := strings.Join(names, "|"); n != "File 2 - ö.txt|File 4 - xx.txt" || got["File 4 - xx.txt"] != "x" {
		t.Fatalf("names %q, contents %v", n, got)
	}
}

// A read-only DOS attribute, in the central directory only, is a
// revision from a pipe, as a Unix mode is.
func TestStreamReaderReadOnlyAttribute(t *testing.T) {
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for _, ro := range []bool{false, true} {
		h := &stdzip.FileHeader{Name: fmt.Sprintf("ro-%v", ro), Method: stdzip.Store, CreatorVersion: 20}
		if ro {
			h.ExternalAttrs = archive.AttrReadOnly
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte("data"))
	}
	w.Close()
	_, _, s, err := readStream(t, buf.Bytes(), "")
	if err != nil {
		t.Fatal(err)
	}
	rev := s.Revisions()
	if len(rev) != 1 || rev[0].Name != "ro-true" || rev[0].Attributes&archive.AttrReadOnly == 0 {
		t.Fatalf("revisions %v", rev)
	}
}

// A PKWARE split set's parts concatenated (cat a.z01 a.zip) are read
// from a pipe to what the file reader reads of the set: the central
// directory's offsets count from the start of their part.
func TestStreamReaderSplitConcatenated(t *testing.T) {
	root := corpusMoreRoot(t)
	var all []byte
	for _, part := range []string{"Archives__Infozip.nocomp.multi.z01", "Archives__Infozip.nocomp.multi.zip"} {
		b, err := os.ReadFile(filepath.Join(root, "files/sharpcompress", part))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	got, _, _, err := readStream(t, all, "")
	if err != nil {
		t.Fatal(err)
	}
	// The file reader reads the parts as a split set.
	u := &corpus.Unit{Unit: "files/sharpcompress/Archives__Infozip.nocomp.multi.zip", Kind: "zip-split",
		Members: []string{"files/sharpcompress/Archives__Infozip.nocomp.multi.z01", "files/sharpcompress/Archives__Infozip.nocomp.multi.zip"}}
	rd, err := openUnit(root, u)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	want := map[string]string{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		want[e.Name] = string(d)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("from a pipe %d entries, from the files %d, or their contents differ", len(got), len(want))
	}
}

// Real archives of the corpus that the file reader reads are read from a
// pipe too, to the same content.
func TestStreamReaderCorpusUnits(t *testing.T) {
	root := corpusMoreRoot(t)
	for _, unit := range []string{
		"files/sharpcompress/Archives__Zip.zip64.compressedonly.zip",
		"files/libarchive/test_read_format_zip_extra_padding.zip",
		"files/libarchive/test_read_format_zip_msdos.zip",
		"files/libarchive/test_read_format_zip_with_invalid_traditional_eocd.zip",
		"files/sharpcompress/Archives__Zip.ppmd.dd.zip",
	} {
		t.Run(filepath.Base(unit), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, unit))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := readZip(t, b, "")
			got, _, _, err := readStream(t, b, "")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("from a pipe %q, from the file %q", got, want)
			}
		})
	}
}

// An empty entry that the central directory alone marks as a directory
// (its DOS attribute, no final '/': libarchive's msdos.zip) is handed
// out as a directory: before a later entry under it, or once the
// directory was read; an empty file as one, before a later entry of its
// name.
func TestStreamReaderDOSDirectory(t *testing.T) {
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for _, it := range []struct {
		name, data string
		attrs      uint32
	}{
		{"abc", "", 0},
		{"def", "", archive.AttrDirectory},
		{"def/foo", "foo", 0},
		{"ghi", "", archive.AttrDirectory},
		{"same", "", 0},
		{"same", "two", 0},
	} {
		fw, err := w.CreateHeader(&stdzip.FileHeader{Name: it.name, Method: stdzip.Store, CreatorVersion: 20, ExternalAttrs: it.attrs})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(it.data))
	}
	w.Close()
	s, err := NewStreamReader(iotest.HalfReader(bytes.NewReader(buf.Bytes())), &archive.Options{Name: "s.zip"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = s.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		got = append(got, fmt.Sprintf("%s %s %q", e.Name, e.Type, d))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`def dir ""`, `def/foo file "foo"`, `same file ""`, `same file "two"`,
		`abc file ""`, `ghi dir ""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("handed out\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
