package rar

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// storedArchive returns a RAR5 archive of n stored entries of size bytes.
func storedArchive(n, size int) []byte {
	w := newRAR5Builder().main(0)
	data := bytes.Repeat([]byte("x"), size)
	for i := range n {
		w.file(fmt.Sprintf("f%d", i), data, nil)
	}
	return w.end(false).bytes()
}

// extractedBytes returns the bytes allocated by opening and extracting
// archive data with io.Copy to io.Discard, as garc's t does.
func extractedBytes(t *testing.T, data []byte) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		_, err := io.Copy(io.Discard, rd)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStoredEntryAllocation checks that extracting a stored entry
// allocates no copy buffer of its own (the contentReader keeps one for
// all the entries of an archive) and that a tiny entry costs no 32 KiB
// buffer.
func TestStoredEntryAllocation(t *testing.T) {
	const n = 64
	one := extractedBytes(t, storedArchive(1, 100))
	many := extractedBytes(t, storedArchive(1+n, 100))
	per := (many - one) / n
	if per > 4<<10 {
		t.Errorf("%d bytes allocated per stored entry of 100 bytes (1 entry: %d bytes, %d entries: %d bytes)", per, one, 1+n, many)
	}
	if one > 16<<10 {
		t.Errorf("%d bytes allocated to open and extract an archive of one stored entry of 100 bytes", one)
	} else {
		t.Logf("%d bytes per stored entry; %d bytes for an archive of one", per, one)
	}
}
