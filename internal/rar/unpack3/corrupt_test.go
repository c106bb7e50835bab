package unpack3

import (
	"errors"
	"fmt"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestCorruptError checks that the errors corrupt makes without fmt read
// and wrap as fmt.Errorf's did: "rar3 data: what: " and archive.ErrFormat.
func TestCorruptError(t *testing.T) {
	for _, err := range []error{corrupt("bad thing"), errTruncated} {
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%v does not wrap archive.ErrFormat", err)
		}
	}
	want := fmt.Errorf("rar3 data: %s: %w", "bad thing", archive.ErrFormat).Error()
	if got := corrupt("bad thing").Error(); got != want {
		t.Errorf("corrupt: %q, want %q", got, want)
	}
}
