package extract

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// lendingReader lends its content in chunks of its own buffer, which it
// overwrites at each call (a compressed tar's entry); Read fails, so a
// writer that copies instead of writing the chunks fails.
type lendingReader struct {
	rest  string
	chunk int
	buf   []byte
	err   error // after the content
}

func (l *lendingReader) ReadChunk() ([]byte, error) {
	if l.rest == "" {
		return nil, l.err
	}
	clear(l.buf)
	n := copy(l.buf[:min(l.chunk, len(l.buf))], l.rest)
	l.rest = l.rest[n:]
	return l.buf[:n], nil
}

func (l *lendingReader) Read([]byte) (int, error) { return 0, errors.New("Read called") }

// TestWriteFromLentChunks: a content reader that lends its buffer
// (ReadChunk) is written from the chunks it lends, each before the next
// is asked for, whatever their sizes; its error after the content fails
// the entry as a Read error does and leaves no file.
func TestWriteFromLentChunks(t *testing.T) {
	f := newFixture(t, Options{})
	content := strings.Repeat("lent chunks ", 50000)
	for i, chunk := range []int{1, 4096, 100000, 1 << 20} {
		name := strings.Repeat("c", i+1)
		e := &archive.Entry{Name: name, Type: archive.TypeFile, Size: int64(len(content))}
		if err := f.x.Write(e, &lendingReader{rest: content, chunk: chunk, buf: make([]byte, 300000), err: io.EOF}); err != nil {
			t.Fatalf("chunks of %d: %v", chunk, err)
		}
		if got := f.read(name); got != content {
			t.Errorf("chunks of %d: %d bytes written, want %d", chunk, len(got), len(content))
		}
	}
	e := &archive.Entry{Name: "broken", Type: archive.TypeFile, Size: int64(len(content))}
	err := f.x.Write(e, &lendingReader{rest: content, chunk: 4096, buf: make([]byte, 4096), err: archive.ErrChecksum})
	if !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("broken: %v", err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	if f.exists("broken") {
		t.Error("the broken entry's file was left")
	}
}
