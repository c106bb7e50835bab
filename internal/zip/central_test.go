package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// Changes.AddFrom, items given one at a time, writes the same archive as
// Add with the same items, for every way of writing it; it is refused
// with a base, and its error aborts the archive.
func TestWriterAddFrom(t *testing.T) {
	items, _ := testItems()
	for _, o := range []WriteOptions{{}, {Method: "Store"}, {Streamed: true}, {ForceZip64: true}, {Password: "pw", rand: bytes.NewReader(make([]byte, 1<<12))}} {
		o.Location = time.UTC
		want := writeZip(t, items, o)
		if o.Password != "" {
			o.rand = bytes.NewReader(make([]byte, 1<<12))
		}
		var m memTarget
		_, err := Update(context.Background(), &m, nil, &Changes{AddFrom: func(add func(*WriteItem) error) error {
			for i := range items {
				it := items[i]
				if err := add(&it); err != nil {
					return err
				}
			}
			return nil
		}}, &o)
		if err != nil || !m.committed {
			t.Fatalf("%+v: %v", o, err)
		}
		if !bytes.Equal(m.b, want) {
			t.Errorf("%+v: AddFrom wrote %d bytes, Add %d, not the same", o, len(m.b), len(want))
		}
	}
	stop := errors.New("stop")
	var m memTarget
	if _, err := Update(context.Background(), &m, nil, &Changes{AddFrom: func(func(*WriteItem) error) error { return stop }}, &WriteOptions{}); !errors.Is(err, stop) || !m.aborted {
		t.Errorf("AddFrom's error: %v, aborted %v", err, m.aborted)
	}
	base := writeZip(t, items, WriteOptions{})
	m = memTarget{}
	if _, err := Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))},
		&Changes{AddFrom: func(func(*WriteItem) error) error { return nil }}, &WriteOptions{}); err == nil || !m.aborted {
		t.Errorf("AddFrom with a base: %v", err)
	}
}

// goldenArchives are archives whose bytes the writer must not change:
// every way of writing an entry (methods, encryptions, streamed, Zip64),
// an update keeping entries with comments and extra fields of another
// writer, and many entries of varied names, sizes, times and types.
func goldenArchives(t *testing.T) map[string][]byte {
	items, _ := testItems()
	out := map[string][]byte{}
	for n, o := range map[string]WriteOptions{"deflate": {}, "store": {Method: "Store"}, "streamed": {Streamed: true},
		"zip64": {ForceZip64: true}, "aes": {Password: "pw"}, "zipcrypto": {Password: "pw", Encryption: "ZipCrypto"},
		"aes streamed zip64": {Password: "pw", Streamed: true, ForceZip64: true}} {
		o.Level, o.rand = 1, bytes.NewReader(make([]byte, 1<<12))
		if n == "deflate" {
			o.Level = -1
		}
		out[n] = writeZip(t, items, o)
	}
	// A base of archive/zip with comments, another's extra fields and
	// a data descriptor, updated: entries kept, one deleted, one added.
	var zb bytes.Buffer
	zw := stdzip.NewWriter(&zb)
	t0 := time.Date(2023, 1, 2, 3, 4, 6, 0, time.UTC)
	for i, c := range []string{"first comment", "", "ünïcode comment", "x"} {
		h := &stdzip.FileHeader{Name: fmt.Sprintf("base/%d.txt", i), Comment: c, Method: stdzip.Deflate, Modified: t0.Add(time.Duration(i) * time.Hour)}
		f, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(f, strings.Repeat(c+"data", i+1))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	base := zb.Bytes()
	var m memTarget
	o := WriteOptions{Level: -1, Location: time.UTC}
	if _, err := Update(context.Background(), &m, &Existing{R: bytes.NewReader(base), Size: int64(len(base))},
		&Changes{Add: items[:3], Delete: func(e *archive.Entry) bool { return e.Name == "base/1.txt" }}, &o); err != nil {
		t.Fatal(err)
	}
	out["update"] = m.b
	r := rand.New(rand.NewPCG(3, 4))
	var many []WriteItem
	for i := range 3000 {
		c := strings.Repeat("z", r.IntN(300))
		it := WriteItem{Name: fmt.Sprintf("d%d/%s%d", r.IntN(4), strings.Repeat("n", r.IntN(20)), i), Type: archive.TypeFile, Size: int64(len(c)),
			ModTime: t0.Add(time.Duration(r.IntN(100)) * time.Second), Mode: uint32(0o100600 + r.IntN(0o100)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c)), nil }}
		switch i % 97 {
		case 5:
			it.Type, it.Mode = archive.TypeDir, 0
		case 7:
			it.Type, it.LinkTarget, it.ModTime = archive.TypeSymlink, "target", time.Time{}
		case 11:
			it.AccessTime = t0
		}
		many = append(many, it)
	}
	out["many"] = writeZip(t, many, WriteOptions{Level: 1})
	return out
}

// The archives are byte for byte those of the writer that kept each
// entry's central directory header as it is written (commit f4d2e71),
// the -mx1 entries since coded by the Deflate hash chains' 64K heads (3
// bytes smaller each), and the entries that do not compress (the empty
// file, the 4-byte one, of 3,000 small files the empty ones) since written
// Stored where the target can be cut back (all but the streamed ones), and
// the -mx5 Deflate entries since parsed once in their first chunk and with
// only the edges of long matches in the match finder.
func TestWriterGolden(t *testing.T) {
	want := map[string]string{
		"deflate":            "15524b563028b235bd064f793e79820652ed386387520ebf0ba46960087248e8",
		"store":              "d63f1e96b2f95107ba15aa6976270de7ea52cd19f934f8ee8514ce4bf5bffa2a",
		"streamed":           "18fad3541a3178e165899f9fca4359e43c1be6f4f7d100e45c40d800855ddd35",
		"zip64":              "d2ce41e8f29dc59495423288ff68b2f56d8f99dec4797ac7426ff7b4d12c5c41",
		"aes":                "e5b079c6d9046546362c4e6e1163fbbc92bff931802b517c3ed80c2dc632b69f",
		"zipcrypto":          "f53473ca91ad609bb91ca6969e3c7e00ee7e8e9cdec6cec7cb3196fb952747e1",
		"aes streamed zip64": "b3816270d1d85dd82ec9f200960263a254351d6b4b8d160dbe509e9facc40e36",
		"update":             "3895863fb7d6a8ca4e54bbe99358f5fa483271075630eb4717326e88d65728c3",
		"many":               "99177d42a6998f8ca2adf1813d53004c5265cdd6dd341528fd84ca19d95daa13",
	}
	for n, b := range goldenArchives(t) {
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want[n] {
			t.Errorf("%s: SHA-256 %s, want %s", n, got, want[n])
		}
	}
}

// packCentral and centralReader give back every header as it was: fixed
// parts of random bytes, names, extra fields and comments that share
// prefixes, suffixes, both or nothing with the header before, empty ones
// and long ones.
func TestCentralPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	part := func(prev []byte) string {
		switch r.IntN(5) {
		case 0:
			return string(prev)
		case 1:
			return ""
		case 2: // random, often long
			b := make([]byte, r.IntN(3000))
			for i := range b {
				b[i] = byte(r.IntN(4))
			}
			return string(b)
		}
		p := string(prev[:r.IntN(len(prev)+1)])
		s := string(prev[r.IntN(len(prev)+1):])
		return p + strings.Repeat("m", r.IntN(3)) + s
	}
	type hdr struct {
		fixed                [centralLen]byte
		name, extra, comment string
	}
	var hs []hdr
	var prev hdr
	for i := range 2000 {
		h := prev
		h.name, h.extra, h.comment = part([]byte(prev.name)), part([]byte(prev.extra)), part([]byte(prev.comment))
		// Fields changed at random, some to their predictions' values.
		for k := range r.IntN(8) {
			f := centralFields[r.IntN(len(centralFields))]
			v := r.Uint32()
			if k%2 == 0 {
				v = uint32(i)
			}
			setField(&h.fixed, f.off, f.size, v)
		}
		hs = append(hs, h)
		prev = h
	}
	var last centralHeader
	var enc []byte
	for i := range hs {
		enc = packCentral(enc, &last, &hs[i].fixed, hs[i].name, []byte(hs[i].extra), hs[i].comment)
	}
	var rd centralReader
	for i, h := range hs {
		if len(enc) == 0 {
			t.Fatalf("the encoding ends before header %d", i)
		}
		enc = rd.next(enc)
		if rd.h.fixed != h.fixed || string(rd.h.name) != h.name || string(rd.h.extra) != h.extra || string(rd.h.comment) != h.comment {
			t.Fatalf("header %d differs", i)
		}
	}
	if len(enc) != 0 {
		t.Errorf("%d bytes left", len(enc))
	}
}

// The central directory keeps a few bytes per entry of a tree of small
// files (the names differing from the previous ones by a digit or two,
// sizes of one byte, the same times), in blocks that are filled before
// the next is made, and nothing else.
func TestCentralDirPerEntry(t *testing.T) {
	var c centralDir
	const n = 50000
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	var off int64
	for i := range n {
		name := fmt.Sprintf("dir%02d/sub%02d/file%04d.txt", i/10000, i/500%20, i%500)
		r := record{name: name, extra: appendUT(nil, t0, time.Time{}, true), unpacked: int64(100 + i%20), offset: off,
			crc: uint32(i) * 2654435761, csize: int64(60 + i%30), usize: int64(100 + i%20), method: methodDeflate, version: versionDeflate}
		off += localLen + int64(len(name)) + 13 + r.csize
		c.add(&r, false)
	}
	used, held := 0, 0
	for _, b := range c.blocks {
		used += len(b)
		held += cap(b)
	}
	if per := float64(used) / n; per > 14 || held > used+centralBlock {
		t.Errorf("%d entries: %d bytes encoded (%.1f an entry, want at most 14), %d held", n, used, per, held)
	}
	if c.count != n || c.files != n {
		t.Errorf("counts: %d entries, %d files", c.count, c.files)
	}
}

// discardTarget is a Target that keeps nothing of what is written.
type discardTarget struct{}

func (discardTarget) Write(p []byte) (int, error)            { return len(p), nil }
func (discardTarget) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (discardTarget) Commit() error                          { return nil }
func (discardTarget) Abort() error                           { return nil }

// tinyFile is the content of every file of TestWriterPerEntryMemory, one
// reader reset for each.
type tinyFile struct{ strings.Reader }

func (*tinyFile) Close() error { return nil }

// Writing a new archive of many small files (Changes.AddFrom) keeps at
// most 24 bytes per entry of a tree of nested small files (about 10 of
// them encoded, the rest a quarter block unfilled), and allocates nothing
// per entry (at most one object per ten entries, the blocks), at the
// default method and level too, whatever the
// number of entries: bytes retained and objects allocated from the first
// quarter of the entries to the last, after a collection, as
// runtime.MemStats counts them.
func TestWriterPerEntryMemory(t *testing.T) {
	for _, c := range []struct {
		method      string
		n           int
		maxRetained float64
	}{{"Store", 40000, 24}, {"Deflate", 2000, 0}} {
		retained, allocs := writerPerEntry(t, c.method, c.n)
		if (c.maxRetained > 0 && retained > c.maxRetained) || allocs > 0.1 {
			t.Errorf("%s, %d entries: %.1f bytes retained per entry (at most %v), %.2f objects allocated (at most 0.1)", c.method, c.n, retained, c.maxRetained, allocs)
		}
		t.Logf("%s, %d entries: %.1f bytes retained per entry, %.2f objects allocated", c.method, c.n, retained, allocs)
	}
}

// writerPerEntry writes n small files with method and returns the bytes
// retained and objects allocated per entry over the last three quarters.
func writerPerEntry(t *testing.T, method string, n int) (retained, allocs float64) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("dir%02d/sub%02d/file%04d.txt", i/10000, i/500%20, i%500)
	}
	var f tinyFile
	content := strings.Repeat("small file content ", 20)
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	var i int
	// The content of file i: 100 bytes from i%19 on, all CRCs different.
	it := WriteItem{Type: archive.TypeFile, Size: 100, ModTime: t0, AccessTime: t0,
		Open: func() (io.ReadCloser, error) { f.Reset(content[i%19 : i%19+100]); return &f, nil }}
	var before, after runtime.MemStats
	_, err := Update(context.Background(), discardTarget{}, nil, &Changes{AddFrom: func(add func(*WriteItem) error) error {
		for j, name := range names {
			if i = j; i == n/4 {
				runtime.GC()
				runtime.ReadMemStats(&before)
			}
			it.Name = name
			if err := add(&it); err != nil {
				return err
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		return nil
	}}, &WriteOptions{Method: method, Level: -1, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(names)
	m := float64(n - n/4)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / m, float64(after.Mallocs-before.Mallocs) / m
}

// FuzzCentralPack: headers cut from the input (fixed parts, names, extra
// fields and comments of the lengths its bytes give) come back from
// centralReader as packCentral was given them.
func FuzzCentralPack(f *testing.F) {
	f.Add([]byte("PK\x01\x02 some name and extra fields, twice: PK\x01\x02 some name and extra fields, twice"))
	f.Fuzz(func(t *testing.T, in []byte) {
		type hdr struct {
			fixed                [centralLen]byte
			name, extra, comment []byte
		}
		var hs []hdr
		for len(in) >= centralLen+3 {
			var h hdr
			copy(h.fixed[:], in)
			n := [3]int{int(in[centralLen]) % 40, int(in[centralLen+1]) % 20, int(in[centralLen+2]) % 10}
			in = in[centralLen+3:]
			for i, p := range []*[]byte{&h.name, &h.extra, &h.comment} {
				k := min(n[i], len(in))
				*p, in = in[:k], in[k:]
			}
			hs = append(hs, h)
		}
		var last centralHeader
		var enc []byte
		for i := range hs {
			enc = packCentral(enc, &last, &hs[i].fixed, string(hs[i].name), hs[i].extra, string(hs[i].comment))
		}
		var rd centralReader
		for i, h := range hs {
			enc = rd.next(enc)
			if rd.h.fixed != h.fixed || !bytes.Equal(rd.h.name, h.name) || !bytes.Equal(rd.h.extra, h.extra) || !bytes.Equal(rd.h.comment, h.comment) {
				t.Fatalf("header %d differs", i)
			}
		}
		if len(enc) != 0 {
			t.Errorf("%d bytes left", len(enc))
		}
	})
}
