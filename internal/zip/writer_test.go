package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/deflate"
	"github.com/garc-dev/garc/internal/testenv"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// memTarget is an in-memory Target.
type memTarget struct {
	b                  []byte
	committed, aborted bool
}

func (m *memTarget) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memTarget) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m.b)) {
		return 0, errors.New("WriteAt beyond the end")
	}
	return copy(m.b[off:], p), nil
}
func (m *memTarget) CutBack(size int64) (bool, error) {
	if size > int64(len(m.b)) {
		return false, nil
	}
	m.b = m.b[:size]
	return true, nil
}
func (m *memTarget) Commit() error { m.committed = true; return nil }
func (m *memTarget) Abort() error  { m.aborted = true; return nil }

// testItems are a directory, files (one empty, one not ASCII-named, one
// of 300 KB of mixed data) and a symbolic link.
func testItems() ([]WriteItem, map[string]string) {
	r := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 300<<10)
	for i := range big {
		if i%7 == 0 {
			big[i] = byte(r.Uint32())
		} else {
			big[i] = "zip writer "[i%11]
		}
	}
	files := map[string]string{"dir/a.txt": strings.Repeat("hello zip\n", 100), "dir/empty": "", "ünï-名.txt": "utf8", "big.bin": string(big)}
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	items := []WriteItem{{Name: "dir", Type: archive.TypeDir, ModTime: t0, Mode: 0o40755}}
	for _, n := range []string{"dir/a.txt", "dir/empty", "ünï-名.txt", "big.bin"} {
		items = append(items, WriteItem{Name: n, Type: archive.TypeFile, Size: int64(len(files[n])), ModTime: t0, AccessTime: t0.Add(time.Hour), Mode: 0o100640,
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(files[n])), nil }})
	}
	items = append(items, WriteItem{Name: "link", Type: archive.TypeSymlink, LinkTarget: "dir/a.txt", ModTime: t0, Mode: 0o120777})
	return items, files
}

func writeZip(t testing.TB, items []WriteItem, o WriteOptions) []byte {
	t.Helper()
	var m memTarget
	o.Location = time.UTC
	if _, err := Update(context.Background(), &m, nil, &Changes{Add: items}, &o); err != nil {
		t.Fatal(err)
	}
	if !m.committed {
		t.Fatal("not committed")
	}
	return m.b
}

// readZip extracts every entry with this package's reader.
func readZip(t testing.TB, b []byte, password string) (map[string]string, []*archive.Entry) {
	t.Helper()
	opts := &archive.Options{Password: func() (string, error) { return password, nil }}
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got := map[string]string{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		d, err := io.ReadAll(r)
		got[e.Name] = string(d)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, rd.Entries()
}

var testMethods = []string{"Store", "Deflate", "BZip2", "LZMA", "ZSTD", "XZ"}

// Every method, plain and with both encryptions, reads back with this
// package's reader: content, names, modes, times and the link.
func TestWriterRoundTrip(t *testing.T) {
	items, files := testItems()
	for _, m := range testMethods {
		for _, enc := range []string{"", "AES256", "ZipCrypto"} {
			t.Run(m+"/"+enc, func(t *testing.T) {
				o := WriteOptions{Method: m, Level: 1, Threads: 2}
				if enc != "" {
					o.Password, o.Encryption = "secret", enc
				}
				b := writeZip(t, items, o)
				got, ents := readZip(t, b, "secret")
				for n, c := range files {
					if got[n] != c {
						t.Errorf("%s: %d bytes, want %d", n, len(got[n]), len(c))
					}
				}
				byName := map[string]*archive.Entry{}
				for _, e := range ents {
					byName[e.Name] = e
				}
				if e := byName["link"]; e == nil || e.Type != archive.TypeSymlink || e.LinkTarget != "dir/a.txt" {
					t.Errorf("link: %+v", e)
				}
				if e := byName["dir"]; e == nil || e.Type != archive.TypeDir || e.Mode.Perm() != 0o755 {
					t.Errorf("dir: %+v", e)
				}
				if e := byName["dir/a.txt"]; e == nil || e.Mode.Perm() != 0o640 || !e.ModTime.Equal(items[1].ModTime) || e.Encrypted != (enc != "") {
					t.Errorf("dir/a.txt: %+v", e)
				}
			})
		}
	}
}

// Go's archive/zip reads Store and Deflate archives, Zip64 ones too.
func TestWriterArchiveZip(t *testing.T) {
	items, files := testItems()
	for _, force := range []bool{false, true} {
		for _, m := range []string{"Store", "Deflate"} {
			b := writeZip(t, items, WriteOptions{Method: m, Level: 9, ForceZip64: force})
			zr, err := stdzip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				d, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				if c, ok := files[f.Name]; ok && string(d) != c {
					t.Errorf("%s/%v: %s differs", m, force, f.Name)
				}
				if f.Name == "link" && (f.Mode()&fs.ModeSymlink == 0 || string(d) != "dir/a.txt") {
					t.Errorf("link: mode %v, %q", f.Mode(), d)
				}
				if f.Name == "ünï-名.txt" && f.NonUTF8 {
					t.Error("the UTF-8 name is not flagged")
				}
			}
		}
	}
}

// needsZip64 gives a Zip64 local header from zip64Threshold and for an
// unknown size.
func TestNeedsZip64(t *testing.T) {
	for _, c := range []struct {
		size int64
		want bool
	}{{0, false}, {zip64Threshold - 1, false}, {zip64Threshold, true}, {1 << 32, true}, {-1, true}} {
		if got := needsZip64(c.size); got != c.want {
			t.Errorf("needsZip64(%d) = %v", c.size, got)
		}
	}
}

// More than 65535 entries take the Zip64 end records, which archive/zip
// and this package's reader follow.
func TestWriterManyEntries(t *testing.T) {
	const n = 70000
	items := make([]WriteItem, n)
	for i := range items {
		items[i] = WriteItem{Name: fmt.Sprintf("d/%05d", i), Type: archive.TypeFile,
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }}
	}
	b := writeZip(t, items, WriteOptions{Method: "Store"})
	zr, err := stdzip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(zr.File) != n {
		t.Fatalf("archive/zip: %v", err)
	}
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil || len(rd.Entries()) != n || rd.Entries()[n-1].Name != "d/69999" {
		t.Fatalf("reader: %v", err)
	}
	if !bytes.Contains(b[len(b)-200:], []byte{0x50, 0x4b, 0x06, 0x06}) {
		t.Error("no Zip64 end record")
	}
}

// Update adds, replaces, keeps and deletes entries; kept ones are copied
// byte for byte, encrypted ones without the password.
func TestWriterUpdate(t *testing.T) {
	items, files := testItems()
	base := writeZip(t, items, WriteOptions{Method: "Deflate", Password: "pw"})
	t1 := items[1].ModTime.Add(time.Hour)
	changed := "changed"
	add := []WriteItem{
		{Name: "dir/a.txt", Type: archive.TypeFile, Size: int64(len(changed)), ModTime: t1, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(changed)), nil }},
		items[4], // big.bin unchanged: skipped
		{Name: "new.txt", Type: archive.TypeFile, Size: 3, ModTime: t1, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("new")), nil }},
	}
	var m memTarget
	o := WriteOptions{Method: "Store", Location: time.UTC}
	st, err := Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))},
		&Changes{Add: add, Delete: func(e *archive.Entry) bool { return e.Name == "dir/empty" }}, &o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 2 || st.Skipped != 1 || st.Deleted != 1 || st.Kept != 4 {
		t.Errorf("stats %+v", st)
	}
	got, ents := readZip(t, m.b, "pw")
	want := map[string]string{"dir": "", "dir/a.txt": changed, "ünï-名.txt": files["ünï-名.txt"], "big.bin": files["big.bin"], "link": "", "new.txt": "new"}
	for _, e := range ents {
		if e.Name == "link" && e.LinkTarget != "dir/a.txt" {
			t.Errorf("link to %q", e.LinkTarget)
		}
	}
	for n, c := range want {
		if g, ok := got[n]; !ok || g != c {
			t.Errorf("%s: %d bytes, present %v", n, len(g), ok)
		}
	}
	if _, ok := got["dir/empty"]; ok || len(got) != len(want) {
		t.Errorf("entries %d, want %d", len(got), len(want))
	}
	// Deleting nothing is ErrNoMatch, and aborts.
	m = memTarget{}
	_, err = Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))},
		&Changes{Delete: func(e *archive.Entry) bool { return false }}, &o)
	if !errors.Is(err, ErrNoMatch) || !m.aborted {
		t.Errorf("delete nothing: %v, aborted %v", err, m.aborted)
	}
}

// An unknown method or encryption is refused before anything is written.
func TestWriterCheckOptions(t *testing.T) {
	for _, o := range []WriteOptions{{Method: "PPMd"}, {Encryption: "AES128"}} {
		if err := CheckOptions(&o); !errors.Is(err, ErrMethod) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// The archives of every method and encryption are tested without a
// warning by 7zz (with the password), Info-ZIP's unzip (the methods and
// encryption it has) and Python's zipfile (the methods it has,
// unencrypted); Zip64 ones too.
func TestWriterInterop(t *testing.T) {
	items, _ := testItems()
	dir := t.TempDir()
	type arc struct {
		name              string
		method, enc       string
		zip64             bool
		unzip, pythonRead bool
	}
	var arcs []arc
	for _, m := range testMethods {
		for _, enc := range []string{"", "AES256", "ZipCrypto"} {
			for _, z := range []bool{false, true} {
				if z && (enc != "" || m != "Store" && m != "Deflate") {
					continue
				}
				a := arc{name: fmt.Sprintf("%s-%s-%v.zip", m, enc, z), method: m, enc: enc, zip64: z}
				a.unzip = (m == "Store" || m == "Deflate" || m == "BZip2") && enc != "AES256"
				a.pythonRead = (m == "Store" || m == "Deflate" || m == "BZip2" || m == "LZMA") && enc == ""
				o := WriteOptions{Method: m, Level: 5, ForceZip64: z}
				if enc != "" {
					o.Password, o.Encryption = "secret", enc
				}
				if err := os.WriteFile(filepath.Join(dir, a.name), writeZip(t, items, o), 0o644); err != nil {
					t.Fatal(err)
				}
				arcs = append(arcs, a)
			}
		}
	}
	run := func(a arc, tool string, args ...string) {
		cmd := exec.Command(testenv.Tool(t, tool), args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(bytes.ToLower(out), []byte("warning")) {
			t.Errorf("%s %s: %v\n%s", tool, a.name, err, out)
		}
	}
	py := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		py = "/usr/bin/python3"
	}
	var pyArcs []string
	run(arc{name: "*.zip"}, "7zz", "t", "-psecret", "-an", "-ai!*.zip")
	for _, a := range arcs {
		if a.unzip {
			run(a, "unzip", "-t", "-P", "secret", a.name)
		}
		if a.pythonRead {
			pyArcs = append(pyArcs, a.name)
		}
	}
	run(arc{name: "(python)"}, py, append([]string{"-c", "import sys, zipfile\nfor n in sys.argv[1:]:\n  z = zipfile.ZipFile(n)\n  bad = z.testzip()\n  assert bad is None, (n, bad)"}, pyArcs...)...)
}

// Deflate entries come from garc's own encoder (internal/deflate) at every
// level: the entry's data is that encoder's output, from -mx5 on smaller
// than klauspost/compress's best level, and Go's archive/zip reads it
// back.
func TestWriterDeflateLevels(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 200_000; i++ {
		fmt.Fprintf(&text, "entry %d: the quick brown fox %x jumps over %d lazy dogs\n", i, i*i, i%97)
	}
	data := text.String()
	items := []WriteItem{{Name: "t.txt", Type: archive.TypeFile, Size: int64(len(data)), ModTime: time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC), Mode: 0o100644,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}}
	var kz bytes.Buffer
	kw, err := kflate.NewWriter(&kz, 9)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kw.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := kw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, level := range []int{1, 5, 9} {
		arc := writeZip(t, items, WriteOptions{Level: level})
		var own bytes.Buffer
		dw, err := deflate.NewWriter(&own, level)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		if err := dw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(arc, own.Bytes()) {
			t.Errorf("-mx%d: the entry is not internal/deflate's output", level)
		}
		if level >= 5 && own.Len() >= kz.Len() {
			t.Errorf("-mx%d: %d bytes, klauspost level 9 %d", level, own.Len(), kz.Len())
		}
		zr, err := stdzip.NewReader(bytes.NewReader(arc), int64(len(arc)))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := zr.File[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		if err != nil || string(got) != data {
			t.Errorf("-mx%d: archive/zip reads %d bytes, %v", level, len(got), err)
		}
	}
}

// An update reads the kept entries through a window, not with three
// reads each (local header, extra field, data), and copies them through
// one buffer: adding one file to 200,000 spent most of its CPU time in
// the collections of a 32 KiB buffer per entry. The kept entries, small
// ones and one larger than the window, are copied byte for byte.
func TestWriterUpdateWindow(t *testing.T) {
	items, _ := testItems()
	const n = 3000
	for i := range n {
		c := strings.Repeat(fmt.Sprint(i), i%50)
		items = append(items, WriteItem{Name: fmt.Sprintf("many/%04d", i), Type: archive.TypeFile, Size: int64(len(c)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c)), nil }})
	}
	base := writeZip(t, items, WriteOptions{Method: "Store"})
	rd, err := newReader(bytes.NewReader(base), int64(len(base)), nil, &archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cdStart := rd.files[len(rd.files)-1].dataEnd
	src := &countingReaderAt{r: bytes.NewReader(base)}
	var m memTarget
	add := []WriteItem{{Name: "new.txt", Type: archive.TypeFile, Size: 3, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("new")), nil }}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	o := WriteOptions{Method: "Store", Location: time.UTC}
	st, err := Update(context.Background(), &m, &Existing{R: src, Size: int64(len(base))}, &Changes{Add: add}, &o)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if st.Kept != len(items) || st.Added != 1 {
		t.Errorf("stats %+v", st)
	}
	if !bytes.Equal(m.b[:cdStart], base[:cdStart]) {
		t.Error("the kept entries differ from the base's")
	}
	if src.reads.Load() > int64(len(items)/10) {
		t.Errorf("%d reads of the base for %d kept entries", src.reads.Load(), len(items))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(items))*4<<10 {
		t.Errorf("%d KiB allocated to copy %d entries", alloc>>10, len(items))
	}
	got, _ := readZip(t, m.b, "")
	if got["many/0049"] != strings.Repeat("49", 49) || got["new.txt"] != "new" || len(got) != len(items)+1 {
		t.Errorf("%d entries read back", len(got))
	}
}

// An update whose items the base has unchanged (a of the same tree
// again) allocates at most 3 objects per entry, the reading of the base
// included: the items are found by name through a sorted index, not a
// map, none is copied to a list of those to add, and a kept entry's
// extra fields and data go through the writer's buffers (5 objects an
// entry before, 2 after).
func TestWriterUpdatePerEntry(t *testing.T) {
	const n = 20000
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	items := make([]WriteItem, n)
	for i := range items {
		items[i] = WriteItem{Name: fmt.Sprintf("d%02d/f%05d", i/1000, (i*7919)%n), Type: archive.TypeFile, Size: 1, ModTime: t0,
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }}
	}
	base := writeZip(t, items, WriteOptions{Method: "Store"})
	changed := slices.Clone(items)
	changed[5].ModTime = t0.Add(time.Hour)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var m memTarget
	st, err := Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))}, &Changes{Add: changed}, &WriteOptions{Method: "Store", Location: time.UTC})
	runtime.ReadMemStats(&after)
	if err != nil || st.Skipped != n-1 || st.Kept != n-1 || st.Added != 1 {
		t.Fatalf("%v, %+v", err, st)
	}
	if objs := float64(after.Mallocs-before.Mallocs) / n; objs > 3 {
		t.Errorf("%.1f objects allocated per entry (%.0f bytes), want at most 3", objs, float64(after.TotalAlloc-before.TotalAlloc)/n)
	}
	_, ents := readZip(t, m.b, "")
	if len(ents) != n || ents[n-1].Name != items[5].Name || !ents[n-1].ModTime.Equal(t0.Add(time.Hour)) {
		t.Errorf("%d entries, the last %s", len(ents), ents[n-1].Name)
	}
}

// Zstandard entries (method 93) at the default levels -mx3…-mx5 are
// garc's own encoder's frames (internal/zstd), one encoder serving every
// entry of the archive; the other levels keep klauspost/compress's. Each
// archive reads back, entry by entry.
func TestWriterZstdEncoders(t *testing.T) {
	items, files := testItems()
	for _, level := range []int{1, 3, 5, 9} {
		t.Run(fmt.Sprint(level), func(t *testing.T) {
			b := writeZip(t, items, WriteOptions{Method: "ZSTD", Level: level})
			got, _ := readZip(t, b, "")
			for n, want := range files {
				if got[n] != want {
					t.Errorf("%s: %d bytes back, want %d", n, len(got[n]), len(want))
				}
			}
			zr, err := stdzip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				if f.Method != methodZstd || f.UncompressedSize64 < 1024 {
					continue
				}
				r, err := f.OpenRaw()
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(r)
				var own bytes.Buffer
				enc := ownzstd.NewEncoder(zstdWindow)
				enc.Reset(&own)
				if _, err := enc.Write([]byte(files[f.Name])); err != nil {
					t.Fatal(err)
				}
				if err := enc.Close(); err != nil {
					t.Fatal(err)
				}
				if isOwn := bytes.Equal(raw, own.Bytes()); isOwn != (level >= 3 && level <= 5) {
					t.Errorf("%s at -mx%d: garc's own encoder's frame %v", f.Name, level, isOwn)
				}
			}
		})
	}
}
