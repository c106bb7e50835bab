package tar

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/testenv"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func gzipTar(t *testing.T, names ...string) []byte {
	t.Helper()
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(testenv.RepeatTar(20000, names...))
	w.Close()
	return gz.Bytes()
}

// TestStreamingPass: a compressed tar is not read by Open; Extract builds
// the entry list as it decodes, so Entries afterwards reads nothing more;
// Entries alone reads it once and reports a broken stream through Err.
func TestStreamingPass(t *testing.T) {
	tgz := gzipTar(t, "a", "b", "c")
	src := &countingReaderAt{r: bytes.NewReader(tgz)}
	r, err := Open(src, int64(len(tgz)), stream.Gzip, &archive.Options{Name: "s.tgz"})
	if err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n != 0 || !r.Streaming() {
		t.Fatalf("Open read %d bytes, Streaming %v", n, r.Streaming())
	}
	var got []string
	err = r.Extract(context.Background(), func(e *archive.Entry) bool { return e.Name != "b" },
		func(e *archive.Entry, rd io.Reader) error {
			b, err := io.ReadAll(rd)
			if string(b) != strings.Repeat(e.Name, 20000) {
				t.Errorf("%s: %d bytes", e.Name, len(b))
			}
			got = append(got, e.Name)
			return err
		})
	if err != nil || strings.Join(got, " ") != "a c" {
		t.Fatalf("extracted %v, %v", got, err)
	}
	read := src.n.Load()
	if read < int64(len(tgz)) || r.Streaming() {
		t.Fatalf("Extract read %d of %d bytes, Streaming %v", read, len(tgz), r.Streaming())
	}
	es := r.Entries()
	if len(es) != 3 || es[1].Name != "b" || es[2].Index != 2 || src.n.Load() != read || r.Err() != nil {
		t.Fatalf("entries %v after Extract, %d more bytes read, err %v", es, src.n.Load()-read, r.Err())
	}

	// Entries first: one pass, then Extract reads again (the list is
	// known, so it can check the archive did not change).
	r, _ = Open(bytes.NewReader(tgz), int64(len(tgz)), stream.Gzip, nil)
	if es := r.Entries(); len(es) != 3 || r.Err() != nil || r.Streaming() {
		t.Fatalf("entries %v, err %v", es, r.Err())
	}

	// A broken stream: Open succeeds, Entries ends early, Err says why,
	// and a streaming Extract fails the same way.
	cut := tgz[:len(tgz)/2]
	r, err = Open(bytes.NewReader(cut), int64(len(cut)), stream.Gzip, &archive.Options{Name: "cut.tgz"})
	if err != nil {
		t.Fatal(err)
	}
	if es := r.Entries(); len(es) > 2 || !errors.Is(r.Err(), archive.ErrFormat) || !strings.Contains(r.Err().Error(), "cut.tgz") {
		t.Fatalf("entries %d, err %v", len(es), r.Err())
	}
	r, _ = Open(bytes.NewReader(cut), int64(len(cut)), stream.Gzip, nil)
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		_, err := io.Copy(io.Discard, rd)
		return err
	})
	if !errors.Is(err, archive.ErrFormat) || !errors.Is(r.Err(), archive.ErrFormat) {
		t.Fatalf("extract: %v, Err %v", err, r.Err())
	}
}

// TestPlainTarOnePass: Open reads nothing of a plain tar either; Extract
// of every entry reads the archive once, building the entry list as it
// goes, and Entries afterwards reads nothing more; Entries alone skips
// the data by seeking.
func TestPlainTarOnePass(t *testing.T) {
	tb := bytes.NewBuffer(testenv.RepeatTar(200000, "a", "b", "c"))
	src := &countingReaderAt{r: bytes.NewReader(tb.Bytes())}
	r, err := Open(src, int64(tb.Len()), 0, &archive.Options{Name: "p.tar"})
	if err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n != 0 || !r.Streaming() {
		t.Fatalf("Open read %d bytes, Streaming %v", n, r.Streaming())
	}
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		b, err := io.ReadAll(rd)
		if string(b) != strings.Repeat(e.Name, 200000) {
			t.Errorf("%s: %d bytes", e.Name, len(b))
		}
		return err
	})
	read := src.n.Load()
	if err != nil || read > int64(tb.Len()) || r.Streaming() {
		t.Fatalf("Extract: %v, read %d bytes of %d, Streaming %v", err, read, tb.Len(), r.Streaming())
	}
	if es := r.Entries(); len(es) != 3 || es[2].Name != "c" || src.n.Load() != read {
		t.Fatalf("Entries after Extract: %d entries, %d more bytes read", len(es), src.n.Load()-read)
	}

	src = &countingReaderAt{r: bytes.NewReader(tb.Bytes())}
	r, _ = Open(src, int64(tb.Len()), 0, nil)
	if es := r.Entries(); len(es) != 3 || r.Err() != nil || src.n.Load() >= 600000 {
		t.Fatalf("Entries: %d entries, %v, %d bytes read", len(es), r.Err(), src.n.Load())
	}
}
