package lzcore

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func TestLocate(t *testing.T) {
	corrupt := errors.New("rar5 data: bad filter")
	corrupt = errors.Join(corrupt, archive.ErrFormat)
	tests := []struct {
		name    string
		err     error
		located bool
	}{
		{"nil", nil, false},
		{"corrupt", corrupt, true},
		{"unsupported", &archive.UnsupportedError{What: "x"}, false},
		{"limit", &archive.LimitError{What: "x"}, false},
		{"read error", io.ErrClosedPipe, false},
		{"already located", &CorruptInputError{Offset: 7, Err: corrupt}, true},
	}
	for _, tt := range tests {
		got := Locate(tt.err, 42)
		var ce *CorruptInputError
		if errors.As(got, &ce) != tt.located {
			t.Errorf("%s: located %v, want %v", tt.name, !tt.located, tt.located)
			continue
		}
		if !tt.located {
			if got != tt.err {
				t.Errorf("%s: changed to %v", tt.name, got)
			}
			continue
		}
		if !errors.Is(got, archive.ErrFormat) {
			t.Errorf("%s: %v no longer wraps ErrFormat", tt.name, got)
		}
		want := int64(42)
		if tt.name == "already located" {
			want = 7
		}
		if ce.Offset != want || !strings.Contains(got.Error(), "packed offset") {
			t.Errorf("%s: %v, offset %d, want %d", tt.name, got, ce.Offset, want)
		}
	}
}

// TestDataError: a DataError reads and wraps as fmt.Errorf's
// "<method> data: <what>: %w" of archive.ErrFormat would.
func TestDataError(t *testing.T) {
	err := error(&DataError{Method: "rar3", What: "bad thing"})
	if !errors.Is(err, archive.ErrFormat) {
		t.Errorf("%v does not wrap archive.ErrFormat", err)
	}
	want := fmt.Errorf("rar3 data: %s: %w", "bad thing", archive.ErrFormat).Error()
	if got := err.Error(); got != want {
		t.Errorf("DataError: %q, want %q", got, want)
	}
}
