package sevenzip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// memOutput is an in-memory Output.
type memOutput struct{ b []byte }

func (m *memOutput) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memOutput) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m.b)) {
		return 0, errors.New("WriteAt beyond the end")
	}
	return copy(m.b[off:], p), nil
}

// testFile describes an item and its content for round trips.
type testFile struct {
	name    string
	typ     archive.EntryType
	data    []byte
	target  string
	mode    uint32 // unix mode bits incl. type
	mtime   time.Time
	atime   time.Time
	ctime   time.Time
	noAttrs bool
}

func (tf *testFile) item() WriteItem {
	it := WriteItem{Name: tf.name, Type: tf.typ, ModTime: tf.mtime, AccessTime: tf.atime, CreateTime: tf.ctime,
		Size: int64(len(tf.data)), LinkTarget: tf.target}
	if !tf.noAttrs {
		attr := uint32(archive.AttrUnixExtension) | tf.mode<<16
		if tf.typ == archive.TypeDir {
			attr |= archive.AttrDirectory
		} else {
			attr |= archive.AttrArchive
		}
		it.Attributes, it.HasAttributes = attr, true
	}
	data := tf.data
	it.Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return it
}

func items(files []testFile) []WriteItem {
	out := make([]WriteItem, len(files))
	for i := range files {
		out[i] = files[i].item()
	}
	return out
}

// pseudoText returns compressible text of n bytes.
func pseudoText(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"alpha", "beta", "gamma", "delta", "archive", "seven", "zip", "lzma", "\n", "the", "of"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// fakeELF returns an x86-64 ELF-looking file with call instructions.
func fakeELF(n int) []byte {
	b := pseudoText(7, n)
	copy(b, "\x7fELF\x02\x01\x01\x00")
	b[18], b[19] = 62, 0
	for i := 64; i+5 < n; i += 37 {
		b[i] = 0xE8
	}
	return b
}

func sampleTree() []testFile {
	t0 := time.Date(2024, 3, 4, 5, 6, 7, 123456700, time.UTC)
	return []testFile{
		{name: "dir", typ: archive.TypeDir, mode: 0o40755, mtime: t0},
		{name: "dir/empty", typ: archive.TypeDir, mode: 0o40700, mtime: t0.Add(time.Hour)},
		{name: "dir/a.txt", data: pseudoText(1, 100000), mode: 0o100644, mtime: t0, atime: t0.Add(time.Minute), ctime: t0.Add(-time.Minute)},
		{name: "dir/b.txt", data: pseudoText(2, 3000), mode: 0o100600, mtime: t0.Add(2 * time.Second)},
		{name: "dir/zero", data: nil, mode: 0o100644, mtime: t0},
		{name: "rand.bin", data: randomBytes(3, 70000), mode: 0o100755, mtime: t0},
		{name: "prog", data: fakeELF(20000), mode: 0o100755, mtime: t0},
		{name: "ünïcödé/名前.txt", data: []byte("hello"), mode: 0o100644, mtime: t0},
		{name: "dir/link", typ: archive.TypeSymlink, target: "a.txt", mode: 0o120777, mtime: t0},
		{name: "winfile.doc", data: []byte("windows attrs"), noAttrs: true, mtime: t0},
	}
}

// readBack opens an archive and returns its entries and contents.
func readBack(t testing.TB, b []byte, password string) (map[string]*archive.Entry, map[string][]byte) {
	t.Helper()
	opts := &archive.Options{Name: "test.7z"}
	if password != "" {
		opts.Password = func() (string, error) { return password, nil }
	}
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	defer rd.Close()
	ents := map[string]*archive.Entry{}
	data := map[string][]byte{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		if _, dup := ents[e.Name]; dup {
			return fmt.Errorf("%s listed twice", e.Name)
		}
		ents[e.Name] = e
		data[e.Name] = d
		return nil
	})
	if err != nil {
		t.Fatalf("extracting back: %v", err)
	}
	return ents, data
}

// checkTree compares read-back entries with the files written.
func checkTree(t testing.TB, files []testFile, ents map[string]*archive.Entry, data map[string][]byte) {
	t.Helper()
	if len(ents) != len(files) {
		t.Errorf("%d entries read back, want %d", len(ents), len(files))
	}
	for _, f := range files {
		e, ok := ents[f.name]
		if !ok {
			t.Errorf("%s missing", f.name)
			continue
		}
		want := f.typ
		if e.Type != want {
			t.Errorf("%s: type %v, want %v", f.name, e.Type, want)
		}
		switch f.typ {
		case archive.TypeSymlink:
			if e.LinkTarget != f.target {
				t.Errorf("%s: target %q, want %q", f.name, e.LinkTarget, f.target)
			}
		case archive.TypeFile:
			if !bytes.Equal(data[f.name], f.data) {
				t.Errorf("%s: content differs (%d bytes, want %d)", f.name, len(data[f.name]), len(f.data))
			}
		}
		if !e.ModTime.Equal(f.mtime) {
			t.Errorf("%s: mtime %v, want %v", f.name, e.ModTime, f.mtime)
		}
		if !e.AccessTime().Equal(f.atime) && !(f.atime.IsZero() && e.AccessTime().IsZero()) {
			t.Errorf("%s: atime %v, want %v", f.name, e.AccessTime(), f.atime)
		}
		if !e.CreateTime().Equal(f.ctime) && !(f.ctime.IsZero() && e.CreateTime().IsZero()) {
			t.Errorf("%s: ctime %v, want %v", f.name, e.CreateTime(), f.ctime)
		}
		if !f.noAttrs {
			if !e.HasUnixMode || uint32(e.Mode.Perm()) != f.mode&0o777 {
				t.Errorf("%s: mode %v (unix %v), want %o", f.name, e.Mode, e.HasUnixMode, f.mode)
			}
		}
	}
}

func writeArchive(t testing.TB, files []testFile, opts *WriteOptions) []byte {
	t.Helper()
	var out memOutput
	if _, err := Write(context.Background(), &out, items(files), opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return out.b
}

// optionMatrix lists the option combinations the round trip covers.
func optionMatrix() map[string]WriteOptions {
	return map[string]WriteOptions{
		"default":      {},
		"mx1":          {Level: 1},
		"mx9":          {Level: 9},
		"copy":         {Method: "Copy"},
		"lzma":         {Method: "LZMA"},
		"lzma-nonsol":  {Method: "LZMA", Solid: SolidOptions{Off: true}},
		"nonsolid":     {Solid: SolidOptions{Off: true}},
		"2f":           {Solid: SolidOptions{FilesPerBlock: 2}},
		"4k":           {Solid: SolidOptions{BlockSize: 4096}},
		"byext":        {Solid: SolidOptions{ByExtension: true}},
		"nohc":         {NoHeaderCompression: true},
		"filteroff":    {Filter: "off"},
		"bcj":          {Filter: "BCJ"},
		"arm64":        {Filter: "ARM64"},
		"aes":          {Password: "pässword", KDFCycles: 4},
		"aes-mhe":      {Password: "pässword", EncryptHeaders: true, KDFCycles: 4},
		"aes-copy":     {Password: "p", Method: "Copy", KDFCycles: 4},
		"aes-lzma-nhc": {Password: "p", Method: "LZMA", NoHeaderCompression: true, KDFCycles: 4},
		"mt2":          {Threads: 2, DictSize: 1 << 16},
		"ppmd":         {Method: "PPMd"},
		"ppmd-mx1":     {Method: "PPMd", Level: 1},
		"ppmd-mx9":     {Method: "ppmd", Level: 9},
		"ppmd-nonsol":  {Method: "PPMd", Solid: SolidOptions{Off: true}},
		"ppmd-mem64k":  {Method: "PPMd", DictSize: 1 << 16, Filter: "off"},
		"ppmd-aes-mhe": {Method: "PPMd", Password: "p", EncryptHeaders: true, KDFCycles: 4},
		"ppmd-mt2":     {Method: "PPMd", Threads: 2, Solid: SolidOptions{Off: true}},
		"deflate":      {Method: "Deflate"},
		"deflate-mx1":  {Method: "Deflate", Level: 1},
		"deflate-mx9":  {Method: "deflate", Level: 9, Solid: SolidOptions{FilesPerBlock: 2}},
		"deflate-aes":  {Method: "Deflate", Password: "p", KDFCycles: 4, Filter: "BCJ"},
		"deflate-mt2":  {Method: "Deflate", Threads: 2, Solid: SolidOptions{Off: true}},
	}
}

func TestWriteRoundTrip(t *testing.T) {
	files := sampleTree()
	for name, o := range optionMatrix() {
		t.Run(name, func(t *testing.T) {
			b := writeArchive(t, files, &o)
			ents, data := readBack(t, b, o.Password)
			checkTree(t, files, ents, data)
		})
	}
}

func TestWriteEmptyArchive(t *testing.T) {
	b := writeArchive(t, nil, nil)
	if len(b) != signatureHeaderSize {
		t.Fatalf("empty archive is %d bytes", len(b))
	}
	ents, _ := readBack(t, b, "")
	if len(ents) != 0 {
		t.Fatalf("%d entries", len(ents))
	}
}

// TestWriteHeaderEncoding checks that the header is compressed only when
// that makes it smaller, and encrypted whenever EncryptHeaders asks.
func TestWriteHeaderEncoding(t *testing.T) {
	many := make([]testFile, 40)
	for i := range many {
		many[i] = testFile{name: fmt.Sprintf("dir/file%02d.txt", i), data: pseudoText(uint64(i), 100), mode: 0o100644}
	}
	one := []testFile{{name: "runs", data: make([]byte, 1<<16), mode: 0o100644}}
	tests := []struct {
		name  string
		files []testFile
		opts  WriteOptions
		want  byte // first byte of the next header
	}{
		{"one file plain", one, WriteOptions{}, idHeader},
		{"many files encoded", many, WriteOptions{}, idEncodedHeader},
		{"many files nohc", many, WriteOptions{NoHeaderCompression: true}, idHeader},
		{"one file encrypted", one, WriteOptions{Password: "p", EncryptHeaders: true, KDFCycles: 4}, idEncodedHeader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := writeArchive(t, tc.files, &tc.opts)
			off := binary.LittleEndian.Uint64(b[12:])
			next := b[signatureHeaderSize+off:]
			if len(next) == 0 || next[0] != tc.want {
				t.Fatalf("next header starts with %#x, want %#x", next[:1], tc.want)
			}
			if tc.want == idEncodedHeader && !tc.opts.EncryptHeaders {
				plain := writeArchive(t, tc.files, &WriteOptions{NoHeaderCompression: true})
				if len(b) >= len(plain) {
					t.Fatalf("encoded header makes %d bytes, plain %d", len(b), len(plain))
				}
			}
			ents, data := readBack(t, b, tc.opts.Password)
			checkTree(t, tc.files, ents, data)
		})
	}
}

func TestWriteDeterministicThreads(t *testing.T) {
	files := []testFile{{name: "big", data: pseudoText(9, 3<<20), mode: 0o100644}}
	o1 := WriteOptions{Level: 1, DictSize: 1 << 16, Threads: 1}
	o2 := o1
	o2.Threads = 2
	a := writeArchive(t, files, &o1)
	b := writeArchive(t, files, &o2)
	if !bytes.Equal(a, b) {
		t.Fatal("output depends on the thread count")
	}
	ents, data := readBack(t, b, "")
	checkTree(t, files, ents, data)
}

func TestWriteEncryptedHeaderNeedsPassword(t *testing.T) {
	b := writeArchive(t, sampleTree(), &WriteOptions{Password: "secret", EncryptHeaders: true, KDFCycles: 4})
	if bytes.Contains(b, []byte("a\x00.\x00t\x00x\x00t")) {
		t.Fatal("names visible in an encrypted header")
	}
	_, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
	if !errors.Is(err, archive.ErrPasswordRequired) {
		t.Fatalf("open without password: %v", err)
	}
	_, err = NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{Password: func() (string, error) { return "wrong", nil }})
	if !errors.Is(err, archive.ErrWrongPassword) {
		t.Fatalf("open with a wrong password: %v", err)
	}
}

func TestWriteSolidGrouping(t *testing.T) {
	files := sampleTree()
	for _, c := range []struct {
		name    string
		opts    WriteOptions
		folders int
	}{
		// prog gets BCJ: two data groups; the symlink target rides along.
		{"default", WriteOptions{}, 2},
		{"off", WriteOptions{Solid: SolidOptions{Off: true}}, 7},
		{"filteroff", WriteOptions{Filter: "off"}, 1},
		{"1f", WriteOptions{Solid: SolidOptions{FilesPerBlock: 1}}, 7},
	} {
		b := writeArchive(t, files, &c.opts)
		rd, err := newReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(rd.hdr.main.folders); n != c.folders {
			t.Errorf("%s: %d folders, want %d", c.name, n, c.folders)
		}
	}
}

func TestDetectExecutable(t *testing.T) {
	pe := make([]byte, 256)
	pe[0], pe[1] = 'M', 'Z'
	pe[60] = 128
	copy(pe[128:], "PE\x00\x00\x64\xAA")
	elfARM := make([]byte, 64)
	copy(elfARM, "\x7fELF\x02\x01")
	elfARM[18] = 183
	macho := []byte{0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1}
	for _, c := range []struct {
		h    []byte
		want filterKind
	}{
		{pe, filterARM64}, {elfARM, filterARM64}, {fakeELF(100), filterX86}, {macho, filterX86},
		{[]byte("plain text file"), filterNone}, {nil, filterNone},
	} {
		if got := detectExecutable(c.h); got != c.want {
			t.Errorf("%q...: %v, want %v", c.h[:min(len(c.h), 8)], got, c.want)
		}
	}
}

// sevenZipTest runs `7zz t` on an archive file.
func sevenZipTest(t *testing.T, zz, path, password string) {
	t.Helper()
	args := []string{"t", "-p" + password, path}
	out, err := exec.Command(zz, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Everything is Ok") {
		t.Fatalf("7zz t %s: %v\n%s", path, err, out)
	}
}

// TestWriteInterop7zz checks every option combination with 7-Zip: the
// archive tests clean and extracts to the same tree.
func TestWriteInterop7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	files := sampleTree()
	for name, o := range optionMatrix() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			arc := filepath.Join(dir, "a.7z")
			if err := os.WriteFile(arc, writeArchive(t, files, &o), 0o644); err != nil {
				t.Fatal(err)
			}
			sevenZipTest(t, zz, arc, o.Password)
			outDir := filepath.Join(dir, "x")
			out, err := exec.Command(zz, "x", "-snl", "-p"+o.Password, "-o"+outDir, arc).CombinedOutput()
			if err != nil {
				t.Fatalf("7zz x: %v\n%s", err, out)
			}
			compareDisk(t, files, outDir)
		})
	}
}

// compareDisk compares an extracted tree with the files written.
func compareDisk(t *testing.T, files []testFile, root string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.name))
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		switch f.typ {
		case archive.TypeDir:
			if !fi.IsDir() {
				t.Errorf("%s: not a directory", f.name)
			}
		case archive.TypeSymlink:
			target, err := os.Readlink(p)
			if err != nil || target != f.target {
				t.Errorf("%s: link %q %v, want %q", f.name, target, err, f.target)
			}
		default:
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(b, f.data) {
				t.Errorf("%s: content differs (%v)", f.name, err)
			}
			if !f.noAttrs && uint32(fi.Mode().Perm()) != f.mode&0o777 {
				t.Errorf("%s: mode %v, want %o", f.name, fi.Mode(), f.mode&0o777)
			}
		}
		if f.typ != archive.TypeSymlink && !fi.ModTime().Equal(f.mtime) && f.typ != archive.TypeDir {
			t.Errorf("%s: mtime %v, want %v", f.name, fi.ModTime(), f.mtime)
		}
	}
}

// TestWriteReducesDictionary: the dictionary of a folder smaller than it
// is reduced as 7-Zip does (LzmaEncProps_Normalize: the smallest 2^n or
// 3·2^(n-1) at least the folder's size, at least 4 KiB), and the method
// reads as in 7zz's listing of 7zz's own archive of the same file.
func TestWriteReducesDictionary(t *testing.T) {
	cases := []struct {
		method string
		size   int
		want   string
	}{
		{"LZMA2", 100, "LZMA2:12"}, {"LZMA", 4096, "LZMA:12"}, {"LZMA", 4097, "LZMA:6k"}, {"LZMA", 5000, "LZMA:6k"},
		{"LZMA2", 5000, "LZMA2:6k"}, {"LZMA2", 6144, "LZMA2:6k"}, {"LZMA", 6145, "LZMA:13"}, {"LZMA2", 10000, "LZMA2:12k"},
		{"LZMA2", 13000, "LZMA2:14"}, {"LZMA", 13000, "LZMA:14"}, {"LZMA2", 100000, "LZMA2:16"},
	}
	for _, c := range cases {
		files := []testFile{{name: "f", data: pseudoText(1, c.size), mode: 0o100644}}
		b := writeArchive(t, files, &WriteOptions{Method: c.method, Level: 1, DictSize: 1 << 16})
		rd, err := newReader(bytes.NewReader(b), int64(len(b)), &archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := folderMethod(&rd.hdr.main.folders[0]); got != c.want {
			t.Errorf("%s of %d bytes: %s, want %s", c.method, c.size, got, c.want)
		}
		ents, data := readBack(t, b, "")
		checkTree(t, files, ents, data)
	}
	// The same files through 7zz (-mx1 -md=64k).
	zz := testenv.SevenZip(t)
	dir := t.TempDir()
	for _, c := range cases {
		name := fmt.Sprintf("f%d", c.size)
		if err := os.WriteFile(filepath.Join(dir, name), pseudoText(1, c.size), 0o644); err != nil {
			t.Fatal(err)
		}
		arc := filepath.Join(dir, fmt.Sprintf("%s-%d.7z", c.method, c.size))
		if out, err := exec.Command(zz, "a", "-bd", "-m0="+c.method, "-mx1", "-md=64k", arc, filepath.Join(dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("7zz a: %v\n%s", err, out)
		}
		out, err := exec.Command(zz, "l", "-slt", arc).CombinedOutput()
		if err != nil {
			t.Fatalf("7zz l: %v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("\nMethod = "+c.want+"\n")) {
			t.Errorf("7zz's %s archive of %d bytes does not list Method = %s:\n%s", c.method, c.size, c.want, out)
		}
	}
}

func TestWriteParallelFoldersDeterministic(t *testing.T) {
	var files []testFile
	for i := range 12 {
		files = append(files, testFile{name: fmt.Sprintf("f%02d.txt", i), data: pseudoText(uint64(i), 3000+i*5000), mode: 0o100644})
	}
	files = append(files, testFile{name: "big.txt", data: pseudoText(99, 300000), mode: 0o100644})
	base := WriteOptions{Level: 1, DictSize: 1 << 17, Solid: SolidOptions{Off: true}}
	var first []byte
	for _, threads := range []int{1, 2, 3} {
		o := base
		o.Threads = threads
		var mu sync.Mutex
		var last int64
		o.Progress = func(done int64, name string) {
			mu.Lock()
			if done < last {
				t.Errorf("progress went back from %d to %d", last, done)
			}
			last = done
			mu.Unlock()
		}
		b := writeArchive(t, files, &o)
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatalf("%d threads: output differs from 1 thread", threads)
		}
	}
	ents, data := readBack(t, first, "")
	checkTree(t, files, ents, data)
}

// TestWriteDuplicateNames: of several names given twice, Write reports
// the first item (in item order) whose name an earlier item has, with
// that earlier item (the sorted index that replaced a map).
func TestWriteDuplicateNames(t *testing.T) {
	names := []string{"c", "b", "a", "d", "a", "b", "c", "a"}
	items := make([]WriteItem, len(names))
	for i, n := range names {
		items[i] = WriteItem{Name: n, Type: archive.TypeDir}
	}
	var out memOutput
	_, err := Write(context.Background(), &out, items, &WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), `"a" added twice (items 2 and 4)`) {
		t.Fatalf("Write: %v, want a added twice (items 2 and 4)", err)
	}
	items[4].Name = "e"
	_, err = Write(context.Background(), &out, items, &WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), `"b" added twice (items 1 and 5)`) {
		t.Fatalf("Write: %v, want b added twice (items 1 and 5)", err)
	}
	items[5].Name, items[6].Name, items[7].Name = "f", "g", "h"
	if _, err := Write(context.Background(), &out, items, &WriteOptions{}); err != nil {
		t.Fatalf("Write of distinct names: %v", err)
	}
}
