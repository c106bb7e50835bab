package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/testenv"
)

// listReader is an archive of prepared entries, all empty files, whose
// Extract allocates nothing per entry.
type listReader struct {
	entries []*archive.Entry
	empty   strings.Reader
}

func (r *listReader) Info() *archive.Info       { return &archive.Info{Format: "7z"} }
func (r *listReader) Close() error              { return nil }
func (r *listReader) Entries() []*archive.Entry { return r.entries }
func (r *listReader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	for _, e := range r.entries {
		if want != nil && !want(e) {
			continue
		}
		r.empty.Reset("")
		if err := fn(e, &r.empty); err != nil {
			return err
		}
	}
	return nil
}

func newListReader(n int) *listReader {
	r := &listReader{entries: make([]*archive.Entry, n)}
	for i := range r.entries {
		r.entries[i] = &archive.Entry{Name: fmt.Sprintf("d%03d/f%06d", i/1000, i), Type: archive.TypeFile, Block: -1}
	}
	return r
}

// mallocs returns the heap allocations of one in-process run of args on
// an archive of n entries.
func mallocs(t *testing.T, n int, args ...string) uint64 {
	r := newListReader(n)
	saved := openArchive
	openArchive = func(string, *archive.Options) (archive.Reader, error) { return r, nil }
	defer func() { openArchive = saved }()
	var stdout, stderr bytes.Buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	runtime.ReadMemStats(&after)
	if code != ExitOK {
		t.Fatalf("%q: exit %d\n%s", args, code, stderr.String())
	}
	return after.Mallocs - before.Mallocs
}

// TestPerEntryAllocations: what the command layer spends per entry does
// not grow with the archive (issue 11.5, 13): t without patterns
// allocates nothing per entry (no name splitting for a selection of
// everything, no interface conversion, no error-target escape), nor do
// the listings (table, -slt and JSON: an entry's text is appended to one
// reused buffer), so
// that millions of entries cost only what the reader holds.
func TestPerEntryAllocations(t *testing.T) {
	for _, args := range [][]string{{"t", "a.7z"}, {"x", "-so", "a.7z"}, {"l", "a.7z"}, {"l", "-ba", "a.7z"},
		{"l", "-slt", "a.7z"}, {"l", "--format=json", "a.7z"}} {
		small, large := mallocs(t, 2000, args...), mallocs(t, 10000, args...)
		perEntry := (float64(large) - float64(small)) / 8000
		t.Logf("%q: %.2f allocations per entry", args, perEntry)
		if perEntry > 0.1 {
			t.Errorf("%q: %.2f allocations per entry, want none", args, perEntry)
		}
	}
}

// manyFiles7z writes a 7z of 100,000 files of a few bytes in 1,000
// directories (issue 13's listing workload) with opts, and returns its
// path.
func manyFiles7z(t *testing.T, opts *sevenzip.WriteOptions) string {
	t.Helper()
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var items []sevenzip.WriteItem
	for d := 0; d < 1000; d++ {
		items = append(items, sevenzip.WriteItem{Name: fmt.Sprintf("d%03d", d), Type: archive.TypeDir, ModTime: mtime})
		for f := 0; f < 100; f++ {
			content := fmt.Sprintf("file %d\n", d*100+f)
			items = append(items, sevenzip.WriteItem{
				Name: fmt.Sprintf("d%03d/f%06d.txt", d, d*100+f), Type: archive.TypeFile, Size: int64(len(content)),
				ModTime: mtime, Attributes: archive.AttrArchive, HasAttributes: true,
				Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil },
			})
		}
	}
	path := filepath.Join(t.TempDir(), "many.7z")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := sevenzip.Write(context.Background(), f, items, opts); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEntryMemory bounds what an opened archive keeps per entry beside
// the entry's name (issue 11.5: at most 256 bytes): the heap an open 7z
// of 100,000 files in 1,000 directories holds, measured after a
// collection. Solid, an entry costs its archive.Entry (128 bytes), the
// pointer to it, the reader's 16-byte locator and its substream record
// (179 bytes measured). A non-solid archive adds a folder record per
// file, which 7z's format has and 7-Zip keeps too: 56 bytes, its coder
// graph shared with the folders alike, and its unpack size (251 bytes
// measured; 203 and 353 before the locator and folder were narrowed).
func TestEntryMemory(t *testing.T) {
	testenv.Short(t, "writes and opens two archives of 101,000 entries")
	for _, c := range []struct {
		name  string
		opts  sevenzip.WriteOptions
		bound float64
	}{
		{"solid", sevenzip.WriteOptions{Level: 1}, 184},
		{"non-solid", sevenzip.WriteOptions{Method: "Copy", Solid: sevenzip.SolidOptions{Off: true}}, 256},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := manyFiles7z(t, &c.opts)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := openArchive(path, &archive.Options{Name: path})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			runtime.GC()
			runtime.ReadMemStats(&after)
			names := 0
			for _, e := range r.Entries() {
				names += len(e.Name)
			}
			n := len(r.Entries())
			if n != 101_000 {
				t.Fatalf("%d entries, want 101,000", n)
			}
			perEntry := (float64(after.HeapAlloc) - float64(before.HeapAlloc) - float64(names)) / float64(n)
			t.Logf("%.0f bytes per entry beside its name", perEntry)
			if perEntry > c.bound {
				t.Errorf("%.0f bytes per entry beside its name, want at most %.0f", perEntry, c.bound)
			}
			runtime.KeepAlive(r)
		})
	}
}
