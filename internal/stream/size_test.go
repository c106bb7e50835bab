package stream

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestListedSizes: a single .xz lists the size its indexes give, a .gz
// the ISIZE of its trailer, as 7zz l shows them; a .gz of two members
// lists the last one's (as 7zz does) and extracts both, and its entry
// then has the size decoded.
func TestListedSizes(t *testing.T) {
	a := bytes.Repeat([]byte("garc lists sizes; "), 5000)
	b := bytes.Repeat([]byte("second member "), 3000)
	gzA, gzB := tool(t, a, "gzip", "-c", "-n"), tool(t, b, "gzip", "-c", "-n")
	xzA, xzB := tool(t, a, "xz", "-c"), tool(t, b, "xz", "-c", "--block-size=4096")
	cat := func(p ...[]byte) []byte { return bytes.Join(p, nil) }
	for _, c := range []struct {
		name         string
		file         []byte
		listed, full int64
	}{
		{"a.xz", xzA, int64(len(a)), int64(len(a))},
		{"ab.xz", cat(xzA, make([]byte, 4), xzB), int64(len(a) + len(b)), int64(len(a) + len(b))},
		{"bad-index.xz", cat(xzA[:len(xzA)-13], []byte{0}, xzA[len(xzA)-12:]), -1, -1},
		{"a.gz", gzA, int64(len(a)), int64(len(a))},
		{"ab.gz", cat(gzA, gzB), int64(len(b)), int64(len(a) + len(b))},
		{"a.lzma", tool(t, a, "xz", "-c", "--format=lzma"), -1, int64(len(a))},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, ok := Identify(c.file[:HeadSize])
			if !ok {
				t.Fatal("not identified")
			}
			f, err := OpenFile(bytes.NewReader(c.file), int64(len(c.file)), k, &archive.Options{Name: c.name})
			if err != nil {
				t.Fatal(err)
			}
			e := f.Entries()[0]
			if e.Size != c.listed {
				t.Errorf("listed size %d, want %d", e.Size, c.listed)
			}
			var n int64
			err = f.Extract(context.Background(), nil, func(_ *archive.Entry, r io.Reader) error {
				n, err = io.Copy(io.Discard, r)
				return err
			})
			if c.name == "bad-index.xz" {
				if err == nil {
					t.Error("a corrupt index extracted without error")
				}
				return
			}
			if err != nil || n != c.full {
				t.Errorf("extracted %d bytes, %v; want %d", n, err, c.full)
			}
			if e.Size != c.full && c.listed >= 0 {
				t.Errorf("size after Extract %d, want %d", e.Size, c.full)
			}
		})
	}
}
