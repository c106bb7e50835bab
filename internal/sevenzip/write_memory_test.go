package sevenzip

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestUpdateMemoryPerEntry bounds what the writer allocates per entry of
// the archive it updates, beyond what reading the base archive takes: a
// base with many entries (issue 11.5: 4,000,000 empty entries in a few
// KB) must not be copied over and over.
func TestUpdateMemoryPerEntry(t *testing.T) {
	testenv.Short(t, "writes and updates an archive of 200,000 entries")
	const n = 200000
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	base := make([]WriteItem, n)
	for i := range base {
		base[i] = WriteItem{Name: fmt.Sprintf("d/e%07d", i), Type: archive.TypeFile, ModTime: t0}
	}
	var old memOutput
	if _, err := Write(context.Background(), &old, base, &WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	add := []WriteItem{{Name: "new.txt", Size: 3, ModTime: t0, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader([]byte("new"))), nil
	}}}
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	reading := allocated(func() {
		if _, err := newReader(bytes.NewReader(old.b), int64(len(old.b)), &archive.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	var out memTarget
	updating := allocated(func() {
		if _, err := Update(context.Background(), &out, &Existing{bytes.NewReader(old.b), int64(len(old.b))},
			&Changes{Add: add}, &WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	perEntry := (float64(updating) - float64(reading)) / n
	t.Logf("reading %d bytes, updating %d bytes: %.0f bytes per entry beyond reading", reading, updating, perEntry)
	if perEntry > 400 {
		t.Errorf("the writer allocates %.0f bytes per base entry beyond reading it, want at most 400", perEntry)
	}
}
