package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestListedSizes: a single .xz lists the size its indexes give, a .gz
// the ISIZE of its trailer, as 7zz l shows them; a .gz of two members
// lists the last one's (as 7zz does) and extracts both, and its entry
// then has the size decoded; the same through Read and through ReadChunk
// (an extractor's way).
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
		for _, chunks := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/chunks=%v", c.name, chunks), func(t *testing.T) {
				listedSize(t, c.name, c.file, c.listed, c.full, chunks)
			})
		}
	}
}

// listedSize opens file, checks its listed size and extracts it, by
// ReadChunk when chunks is set, checking the size extracted (full) and
// the entry's size after it.
func listedSize(t *testing.T, name string, file []byte, listed, full int64, chunks bool) {
	k, ok := Identify(file[:HeadSize])
	if !ok {
		t.Fatal("not identified")
	}
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), k, &archive.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	e := f.Entries()[0]
	if e.Size != listed {
		t.Errorf("listed size %d, want %d", e.Size, listed)
	}
	var n int64
	err = f.Extract(context.Background(), nil, func(_ *archive.Entry, r io.Reader) error {
		if !chunks {
			n, err = io.Copy(io.Discard, r)
			return err
		}
		for {
			b, err := r.(archive.ChunkReader).ReadChunk()
			n += int64(len(b))
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	if name == "bad-index.xz" {
		if err == nil {
			t.Error("a corrupt index extracted without error")
		}
		return
	}
	if err != nil || n != full {
		t.Errorf("extracted %d bytes, %v; want %d", n, err, full)
	}
	if e.Size != full && listed >= 0 {
		t.Errorf("size after Extract %d, want %d", e.Size, full)
	}
}
