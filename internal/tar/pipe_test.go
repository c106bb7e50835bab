package tar

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// forwardOnly is an io.ReaderAt that serves reads front to back only, as
// a pipe can: a read behind the last one fails.
type forwardOnly struct {
	r   *bytes.Reader
	pos int64
}

var errBehind = errors.New("read behind the stream")

func (f *forwardOnly) ReadAt(p []byte, off int64) (int, error) {
	if off < f.pos {
		return 0, errBehind
	}
	n, err := f.r.ReadAt(p, off)
	f.pos = off + int64(n)
	return n, err
}

// TestPlainTarOfUnknownSize opens a plain tar with size -1 (a pipe): Open
// reads nothing, Extract reads it once front to back (data it is not
// asked for skipped by reading, never by seeking back) and builds the
// entry list, and Entries afterwards costs no reading.
func TestPlainTarOfUnknownSize(t *testing.T) {
	var b bytes.Buffer
	tw := stdtar.NewWriter(&b)
	names := []string{"a", "b", "c"}
	for _, n := range names {
		data := strings.Repeat(n, 3000)
		tw.WriteHeader(&stdtar.Header{Name: n, Typeflag: stdtar.TypeReg, Mode: 0o644, Size: int64(len(data))})
		io.WriteString(tw, data)
	}
	tw.Close()
	src := &forwardOnly{r: bytes.NewReader(b.Bytes())}
	r, err := Open(src, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.pos != 0 || !r.Streaming() {
		t.Fatalf("Open read %d bytes, Streaming %v", src.pos, r.Streaming())
	}
	var got []string
	err = r.Extract(context.Background(), func(e *archive.Entry) bool { return e.Name != "b" }, func(e *archive.Entry, rd io.Reader) error {
		data, err := io.ReadAll(rd)
		if err != nil || string(data) != strings.Repeat(e.Name, 3000) {
			t.Errorf("%s: %d bytes, %v", e.Name, len(data), err)
		}
		got = append(got, e.Name)
		return nil
	})
	if err != nil || strings.Join(got, ",") != "a,c" {
		t.Fatalf("extracted %v: %v", got, err)
	}
	if n := len(r.Entries()); n != 3 || r.Err() != nil {
		t.Errorf("%d entries, %v", n, r.Err())
	}
}
