package cli

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
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
// everything, no interface conversion, no error-target escape), so that
// millions of entries cost only what the reader holds.
func TestPerEntryAllocations(t *testing.T) {
	for _, args := range [][]string{{"t", "a.7z"}, {"t", "-so", "a.7z"}} {
		if args[1] == "-so" {
			args = []string{"x", "-so", "a.7z"}
		}
		small, large := mallocs(t, 2000, args...), mallocs(t, 10000, args...)
		perEntry := (float64(large) - float64(small)) / 8000
		t.Logf("%q: %.2f allocations per entry", args, perEntry)
		if perEntry > 0.1 {
			t.Errorf("%q: %.2f allocations per entry, want none", args, perEntry)
		}
	}
}
