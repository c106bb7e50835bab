package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// smallEntries returns n Deflate entries of a few KiB of source-like text
// each, as a tree of source files holds.
func smallEntries(n int) []testFile {
	files := make([]testFile, n)
	for i := range files {
		var b bytes.Buffer
		for j := 0; j < 40+i%60; j++ {
			fmt.Fprintf(&b, "func f%d_%d(x int) int { return x*%d + %d } // line %d\n", i, j, i+j, j*j, j)
		}
		files[i] = testFile{name: fmt.Sprintf("src/pkg%d/file%d.go", i/10, i), data: b.Bytes(), method: stdzip.Deflate}
	}
	return files
}

// countingReaderAt counts the ReadAt calls that reach the archive.
type countingReaderAt struct {
	r     io.ReaderAt
	reads atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.r.ReadAt(p, off)
}

// TestSmallEntriesReads checks that opening and extracting an archive of
// many small entries reads the archive in large blocks, not with a
// read per local header, name and entry data (three per entry before).
func TestSmallEntriesReads(t *testing.T) {
	files := smallEntries(400)
	data := buildZip(t, files, "")
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	r, err := NewReader(cr, int64(len(data)), &archive.Options{Name: "a.zip"})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		got, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		if e.Name != files[i].name || !bytes.Equal(got, files[i].data) {
			t.Errorf("entry %d: %q, %d bytes; want %q, %d bytes", i, e.Name, len(got), files[i].name, len(files[i].data))
		}
		i++
		return nil
	})
	if err != nil || i != len(files) {
		t.Fatalf("%d entries, %v", i, err)
	}
	// The archive is about 350 KB: a few 64 KiB blocks per pass.
	if n := cr.reads.Load(); n > 40 {
		t.Errorf("%d reads of the archive for %d entries (%d bytes)", n, len(files), len(data))
	}
}

// BenchmarkExtractSmallEntries opens and extracts (decodes, CRC-checks,
// discards) an archive file of 2000 small Deflate entries.
func BenchmarkExtractSmallEntries(b *testing.B) {
	files := smallEntries(2000)
	data := buildZip(b, files, "")
	path := filepath.Join(b.TempDir(), "small.zip")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var size int64
	for _, tf := range files {
		size += int64(len(tf.data))
	}
	benchExtract(b, f, int64(len(data)), size)
}

// TestOpenAllocsPerEntry checks that opening an archive allocates about
// one object per entry (its name): the entries come from one slab, the
// slices are sized from the end record, and the local headers and data
// descriptors are read into reused buffers.
func TestOpenAllocsPerEntry(t *testing.T) {
	files := smallEntries(400)
	data := buildZip(t, files, "")
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Name: "a.zip"}); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / float64(len(files)); per > 1.5 {
		t.Errorf("%.0f allocations to open %d entries: %.2f per entry", allocs, len(files), per)
	}
}
