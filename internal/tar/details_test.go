package tar

import (
	stdtar "archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/stream"
)

// TestDetailsAs7Zip checks what Details tells the listing of 7-Zip's tar
// keys: the ustar prefix (PrefixUsed), the fraction digits of pax times
// (PAXTimeDigits), the pax header's comment (Entry.Comment), the global
// header's (Info.Comment), PAX_GLOBAL_ERROR and the global header's
// bytes, for a plain and a gzipped tar.
func TestDetailsAs7Zip(t *testing.T) {
	var buf bytes.Buffer
	w := stdtar.NewWriter(&buf)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 120e6, time.UTC)
	for _, h := range []*stdtar.Header{
		{Typeflag: stdtar.TypeXGlobalHeader, Name: "global", PAXRecords: map[string]string{"comment": "v1"}},
		{Name: "plain", Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime.Truncate(time.Second), Format: stdtar.FormatUSTAR},
		{Name: "p/" + string(bytes.Repeat([]byte("n"), 99)), Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime.Truncate(time.Second), Format: stdtar.FormatUSTAR},
		{Name: "pax", Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime, AccessTime: mtime.Add(time.Second), Format: stdtar.FormatPAX,
			PAXRecords: map[string]string{"comment": "c"}},
	} {
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	plain := buf.Bytes()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	for _, c := range []struct {
		name string
		data []byte
		kind stream.Kind
	}{{"plain", plain, 0}, {"gzip", gz.Bytes(), stream.Gzip}} {
		r, err := Open(bytes.NewReader(c.data), int64(len(c.data)), c.kind, nil)
		if err != nil {
			t.Fatal(err)
		}
		all := r.Entries()
		d := r.Info().Details.(*Details)
		if len(all) != 3 {
			t.Fatalf("%s: %d entries", c.name, len(all))
		}
		type want struct {
			prefix       bool
			mtime, atime int
			comment      string
		}
		for i, w := range []want{{false, -1, -1, ""}, {true, -1, -1, ""}, {false, 2, 2, "PaxHeaders.0/pax\ncomment=c\n"}} {
			ed := d.Entry(all[i])
			m, a, ct := ed.PAXTimeDigits()
			if ed.PrefixUsed() != w.prefix || m != w.mtime || a != w.atime || ct != -1 || all[i].Comment() != w.comment {
				t.Errorf("%s %s: prefix %v, digits %d %d %d, comment %q; want %v, %d %d -1, %q",
					c.name, all[i].Name, ed.PrefixUsed(), m, a, ct, all[i].Comment(), w.prefix, w.mtime, w.atime, w.comment)
			}
		}
		if got := r.Info().Comment; got != "global\ncomment=v1\n" {
			t.Errorf("%s: archive comment %q", c.name, got)
		}
		if d.PAXGlobalError() || d.GlobalHeaderBytes() != 1024 {
			t.Errorf("%s: PAXGlobalError %v, GlobalHeaderBytes %d; want false, 1024", c.name, d.PAXGlobalError(), d.GlobalHeaderBytes())
		}
	}
}

// TestSparseFlag: sparse files (pax 1.0 map here) are flagged
// Entry.IsSparse, other entries are not.
func TestSparseFlag(t *testing.T) {
	sparseMap := "#!gnu-sparse-format\n#format:1.0\n1\n4\n3\n"
	data := tarOf(
		rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") + paxRecord("GNU.sparse.name", "sp") + paxRecord("GNU.sparse.realsize", "9")}.bytes(),
		rawHeader{name: "GNUSparseFile/sp", typeflag: '0', size: fmt.Sprintf("%011o\x00", blockSize+3),
			data: sparseMap + strings.Repeat("\x00", blockSize-len(sparseMap)) + "abc"}.bytes(),
		rawHeader{name: "f", typeflag: '0', data: "hello"}.bytes())
	r, err := Open(bytes.NewReader(data), int64(len(data)), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := r.Entries()
	if len(all) != 2 || !all[0].IsSparse() || all[1].IsSparse() {
		for _, e := range all {
			t.Errorf("%s: sparse %v", e.Name, e.IsSparse())
		}
	}
}
