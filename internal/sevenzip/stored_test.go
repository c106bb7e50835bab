package sevenzip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// countingReaderAt counts the ReadAt calls on an archive and can pretend
// the archive shrank to size bytes after it was opened.
type countingReaderAt struct {
	b     []byte
	reads atomic.Int64
	bytes atomic.Int64 // asked for
	size  atomic.Int64
}

func newCountingReaderAt(b []byte) *countingReaderAt {
	c := &countingReaderAt{b: b}
	c.size.Store(int64(len(b)))
	return c
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	c.bytes.Add(int64(len(p)))
	size := c.size.Load()
	if off >= size {
		return 0, io.EOF
	}
	n := copy(p, c.b[off:size])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// smallFiles returns n files of a few bytes each in directories of 100.
func smallFiles(n int) []testFile {
	files := make([]testFile, n)
	for i := range files {
		files[i] = testFile{name: fmt.Sprintf("d%03d/f%05d.txt", i/100, i), data: fmt.Appendf(nil, "file %d\n", i), mode: 0o100644}
	}
	return files
}

// extractAllStored extracts every entry of a 7z archive, returning the
// contents by name and the per-entry errors.
func extractAllStored(t *testing.T, ra io.ReaderAt, size int64, opts *archive.Options) (map[string][]byte, map[string]error) {
	t.Helper()
	rd, err := NewReader(ra, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got := map[string][]byte{}
	errs := map[string]error{}
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			errs[e.Name] = err
			return nil
		}
		if e.Type == archive.TypeSymlink {
			b = []byte("-> " + e.LinkTarget)
		}
		got[e.Name] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, errs
}

// TestStoredEntries extracts stored (Copy) archives, solid and not, with
// and without background decoding: every entry's content comes back,
// large entries (beyond the read window) and links included, and a run
// of small entries is read with a few large reads instead of one per
// entry.
func TestStoredEntries(t *testing.T) {
	files := smallFiles(1000)
	files = append(files,
		testFile{name: "big.bin", data: randomBytes(7, 3*storedWindow+123), mode: 0o100644},
		testFile{name: "empty", mode: 0o100644},
		testFile{name: "link", typ: archive.TypeSymlink, target: "d000/f00000.txt", mode: 0o120777},
		testFile{name: "tail.txt", data: []byte("the end\n"), mode: 0o100644})
	for _, tc := range []struct {
		name    string
		opts    WriteOptions
		threads int
	}{
		{"solid", WriteOptions{Method: "Copy"}, 1},
		{"nonsolid", WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}}, 1},
		{"nonsolid-threads", WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}}, 2},
		{"two-per-folder", WriteOptions{Method: "Copy", Solid: SolidOptions{FilesPerBlock: 2}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeArchive(t, files, &tc.opts)
			ra := newCountingReaderAt(b)
			got, errs := extractAllStored(t, ra, int64(len(b)), &archive.Options{Threads: tc.threads})
			for name, err := range errs {
				t.Errorf("%s: %v", name, err)
			}
			for _, f := range files {
				want := f.data
				if f.typ == archive.TypeSymlink {
					want = []byte("-> " + f.target)
				}
				if !bytes.Equal(got[f.name], want) {
					t.Errorf("%s: %d bytes, want %d", f.name, len(got[f.name]), len(want))
				}
			}
			// The header takes a few reads, the big file about one per
			// 32 KiB of io.ReadAll's buffer, the 1,000 small files one
			// or two.
			if n := ra.reads.Load(); n > 60 {
				t.Errorf("%d reads of the archive for %d entries", n, len(files))
			}
		})
	}
}

// TestStoredChecksum corrupts the data of one stored entry: that entry
// fails with a checksum error, its neighbours extract.
func TestStoredChecksum(t *testing.T) {
	files := smallFiles(300)
	b := writeArchive(t, files, &WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}})
	i := bytes.Index(b, []byte("file 150\n"))
	if i < 0 {
		t.Fatal("content not found")
	}
	b[i] ^= 1
	got, errs := extractAllStored(t, bytes.NewReader(b), int64(len(b)), nil)
	bad := files[150].name
	if err := errs[bad]; !errors.Is(err, archive.ErrChecksum) {
		t.Errorf("%s: %v, want a checksum error", bad, err)
	}
	var ae *archive.Error
	if err := errs[bad]; !errors.As(err, &ae) || ae.Entry != bad {
		t.Errorf("%s: %v does not name the entry", bad, err)
	}
	if len(errs) != 1 || len(got) != len(files)-1 {
		t.Errorf("%d errors, %d entries extracted, want 1 and %d", len(errs), len(got), len(files)-1)
	}
}

// TestStoredTruncated reads a stored archive that shrinks after it was
// opened: the entries beyond the new end fail as corrupt, located in
// the archive, and nothing panics.
func TestStoredTruncated(t *testing.T) {
	files := smallFiles(300)
	files = append(files, testFile{name: "big.bin", data: randomBytes(8, storedWindow+5), mode: 0o100644})
	b := writeArchive(t, files, &WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}, NoHeaderCompression: true})
	ra := newCountingReaderAt(b)
	rd, err := NewReader(ra, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cut := int64(bytes.Index(b, []byte("file 200\n")))
	ra.size.Store(cut)
	failed := 0
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		_, err := io.ReadAll(r)
		if err != nil {
			failed++
			var ae *archive.Error
			if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset < cut {
				t.Errorf("%s: %v, want a format error at or after %d", e.Name, err, cut)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if failed != 101 {
		t.Errorf("%d entries failed, want 101", failed)
	}
}

// TestStoredExtractAllocs: extracting a run of small stored entries
// allocates per Extract call, not per entry (a folder stream, decode
// context and packed reader each were about 15 allocations per entry).
func TestStoredExtractAllocs(t *testing.T) {
	const n = 2000
	b := writeArchive(t, smallFiles(n), &WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}})
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	buf := make([]byte, 64)
	fn := func(e *archive.Entry, r io.Reader) error {
		for {
			_, err := r.Read(buf)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		if err := rd.Extract(context.Background(), nil, fn); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations for %d entries", allocs, n)
	if allocs > 20 {
		t.Errorf("%.0f allocations extracting %d stored entries, want at most 20", allocs, n)
	}
}

// TestStoredSparseReads picks a few entries out of a stored archive: the
// reads stay near the size of what was picked, instead of a full window
// for each entry.
func TestStoredSparseReads(t *testing.T) {
	files := make([]testFile, 1000)
	for i := range files {
		files[i] = testFile{name: fmt.Sprintf("f%04d", i), data: randomBytes(uint64(i), 1000), mode: 0o100644}
	}
	b := writeArchive(t, files, &WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}})
	ra := newCountingReaderAt(b)
	rd, err := NewReader(ra, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	opened := ra.bytes.Load()
	picked := 0
	err = rd.Extract(context.Background(), func(e *archive.Entry) bool { return e.Index%100 == 7 }, func(e *archive.Entry, r io.Reader) error {
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, files[e.Index].data) {
			t.Errorf("%s: %d bytes, %v", e.Name, len(got), err)
		}
		picked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read := ra.bytes.Load() - opened
	t.Logf("%d bytes read for %d entries of 1,000 bytes", read, picked)
	if picked != 10 || read > 10*minStoredRead {
		t.Errorf("%d bytes read for %d entries of 1,000 bytes, want at most %d", read, picked, 10*minStoredRead)
	}
}

// TestStoredAfterDecodedFolder: when the entries reach stored folders,
// the folder decoded before them is closed, its decoder memory given
// back, instead of staying charged through all the stored entries.
func TestStoredAfterDecodedFolder(t *testing.T) {
	old := writeArchive(t, []testFile{{name: "text.txt", data: pseudoText(3, 200_000), mode: 0o100644}},
		&WriteOptions{Method: "LZMA2"})
	b, _ := updateArchive(t, old, smallFiles(20), nil, WriteOptions{Method: "Copy", Solid: SolidOptions{Off: true}})
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rd := r.(*Reader)
	stored := 0
	err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
		if e.Name == "text.txt" {
			return nil
		}
		stored++
		rd.pool.mu.Lock()
		active := rd.pool.active
		rd.pool.mu.Unlock()
		if active != 0 {
			t.Errorf("%s: %d bytes of decoder memory charged while reading stored entries", e.Name, active)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stored != 20 {
		t.Errorf("%d stored entries, want 20", stored)
	}
}
