package rar

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// manyEntriesRAR5 returns a RAR5 archive of n stored files of a few bytes
// in directories of 1,000 (issue 13's listing workload), each with a
// BLAKE2sp hash record when hashes is set, and the total length of the
// entry names.
func manyEntriesRAR5(n int, hashes bool) ([]byte, int) {
	var extra []byte
	if hashes {
		rec := appendVint(nil, 2) // hash record
		rec = appendVint(rec, 0)  // BLAKE2sp
		rec = append(rec, bytes.Repeat([]byte{0xAB}, 32)...)
		extra = append(appendVint(nil, uint64(len(rec))), rec...)
	}
	w := newRAR5Builder().main(0)
	names := 0
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d%03d/f%06d.txt", i/1000, i)
		names += len(name)
		w.file(name, []byte(fmt.Sprintf("%d\n", i)), extra)
	}
	return w.end(false).bytes(), names
}

// TestEntryMemory bounds what an open RAR5 archive keeps per entry beside
// the entry's name (issue 11.5: at most 256 bytes): the heap held after
// opening 100,000 stored files, measured after a collection. An entry
// costs its fileInfo (archive.Entry and the reader's fields), its part
// and two pointers; a hash adds an archive.EntryExtra.
func TestEntryMemory(t *testing.T) {
	const n = 100_000
	for _, c := range []struct {
		name   string
		hashes bool
		bound  float64
	}{
		{"plain", false, 240},
		{"blake2sp", true, 240 + 160 + 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, names := manyEntriesRAR5(n, c.hashes)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			runtime.GC()
			runtime.ReadMemStats(&after)
			if got := len(r.Entries()); got != n {
				t.Fatalf("%d entries, want %d", got, n)
			}
			perEntry := (float64(after.HeapAlloc) - float64(before.HeapAlloc) - float64(names)) / n
			t.Logf("%.0f bytes per entry beside its name", perEntry)
			if perEntry > c.bound {
				t.Errorf("%.0f bytes per entry beside its name, want at most %.0f", perEntry, c.bound)
			}
			runtime.KeepAlive(r)
		})
	}
}

// TestEntryMemoryCharged: the memory a RAR archive's entries take,
// EntryExtra included, is charged to the budget, so that the entry count
// is bounded by the limit, and the charge is given back on Close.
func TestEntryMemoryCharged(t *testing.T) {
	const n = 100_000
	for _, hashes := range []bool{false, true} {
		t.Run(fmt.Sprint("hashes=", hashes), func(t *testing.T) {
			data, _ := manyEntriesRAR5(n, hashes)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			budget := archive.NewMemoryBudget(1 << 30)
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{Memory: budget})
			runtime.GC()
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			charged := budget.InUse()
			t.Logf("%d entries: %d bytes held (%d per entry), %d charged", n, held, held/n, charged)
			// The reader itself, its Info and its header window are not
			// charged: allow 1 MiB more.
			if held > charged+1<<20 {
				t.Errorf("held %d bytes, charged only %d", held, charged)
			}
			r.Close()
			if budget.InUse() != 0 {
				t.Errorf("%d bytes charged after Close", budget.InUse())
			}
			// Under a limit the entries do not fit in, opening is refused.
			_, err = NewReader(bytes.NewReader(data), int64(len(data)), &archive.Options{MaxDict: int64(n) * 100})
			if !errors.Is(err, archive.ErrLimit) {
				t.Errorf("%d entries under a %d-byte limit: %v", n, n*100, err)
			}
		})
	}
}
