package rar

import (
	"bytes"
	"testing"
)

// TestOpenAllocs checks that opening an archive of many stored entries
// allocates about one object per entry (its name): headers are read
// through the reader's window (and decrypted in one buffer with one
// cipher), entry and part records come from chunks, and entries share
// their method string. Reading each header into a
// buffer of its own made 5 to 7 allocations per entry.
func TestOpenAllocs(t *testing.T) {
	const n = 1000
	archives, _ := manyEntryArchives(n)
	for _, format := range manyEntryFormats {
		data := archives[format]
		allocs := testing.AllocsPerRun(5, func() {
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), manyEntryOptions)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
		})
		per := allocs / n
		t.Logf("%s: %.2f allocations per entry opening %d entries", format, per, n)
		if per > 1.2 {
			t.Errorf("%s: %.2f allocations per entry opening %d entries, want at most 1.2", format, per, n)
		}
	}
}
