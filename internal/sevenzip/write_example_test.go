package sevenzip_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// memArchive is an in-memory Target; internal/archivefile.File is the
// one garc uses (a temporary file renamed over the archive on Commit).
type memArchive struct {
	b         []byte
	committed bool
}

func (m *memArchive) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memArchive) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m.b)) {
		return 0, errors.New("beyond the end")
	}
	return copy(m.b[off:], p), nil
}
func (m *memArchive) Commit() error { m.committed = true; return nil }
func (m *memArchive) Abort() error  { m.b = nil; return nil }

// file returns a WriteItem with the given content.
func file(name, content string, mtime time.Time) sevenzip.WriteItem {
	return sevenzip.WriteItem{Name: name, Type: archive.TypeFile, Size: int64(len(content)), ModTime: mtime,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil }}
}

// Update creates an archive when there is no base, and adds to or
// deletes from one when there is.
func ExampleUpdate() {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := &sevenzip.WriteOptions{Level: 5}

	// A new archive of two files.
	var v1 memArchive
	_, err := sevenzip.Update(context.Background(), &v1, nil, &sevenzip.Changes{Add: []sevenzip.WriteItem{
		file("docs/a.txt", "alpha", t0), file("docs/b.txt", "beta", t0),
	}}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Add c.txt and delete a.txt: b.txt is copied without recompression
	// when its whole solid block survives, recompressed otherwise.
	var v2 memArchive
	st, err := sevenzip.Update(context.Background(), &v2,
		&sevenzip.Existing{R: bytes.NewReader(v1.b), Size: int64(len(v1.b))},
		&sevenzip.Changes{
			Add:    []sevenzip.WriteItem{file("docs/c.txt", "gamma", t0)},
			Delete: func(e *archive.Entry) bool { return e.Name == "docs/a.txt" },
		}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("committed %v: %d files, %d added, %d kept, %d deleted\n", v2.committed, st.Files, st.Added, st.Kept, st.Deleted)

	rd, err := sevenzip.NewReader(bytes.NewReader(v2.b), int64(len(v2.b)), &archive.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range rd.Entries() {
		fmt.Println(e.Name, e.Size)
	}
	// Output:
	// committed true: 2 files, 1 added, 1 kept, 1 deleted
	// docs/b.txt 4
	// docs/c.txt 5
}
