package archive

import (
	"testing"
	"time"
)

func TestUpdateReplaces(t *testing.T) {
	at := time.Date(2026, 12, 6, 12, 0, 0, 500, time.UTC)
	file := &Entry{Type: TypeFile, Size: 10, ModTime: at}
	dir := &Entry{Type: TypeDir, ModTime: at}
	tests := []struct {
		name  string
		typ   EntryType
		size  int64
		mtime time.Time
		e     *Entry
		prec  time.Duration
		want  bool
	}{
		{"same size and time", TypeFile, 10, at, file, time.Second, false},
		{"older", TypeFile, 10, at.Add(-time.Hour), file, time.Second, false},
		{"newer", TypeFile, 10, at.Add(time.Second), file, time.Second, true},
		{"newer within the precision", TypeFile, 10, at.Add(300), file, time.Second, false},
		{"newer at 100 ns", TypeFile, 10, at.Add(300), file, 100, true},
		{"other size", TypeFile, 11, at, file, time.Second, true},
		{"entry without a time", TypeFile, 10, at, &Entry{Type: TypeFile, Size: 10}, time.Second, true},
		{"two directories", TypeDir, 0, at.Add(time.Hour), dir, time.Second, false},
		{"a directory for a file", TypeDir, 10, at, file, time.Second, true},
		{"a file for a directory", TypeFile, 0, at, dir, time.Second, true},
	}
	for _, tt := range tests {
		if got := UpdateReplaces(tt.typ, tt.size, tt.mtime, tt.e, tt.prec); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
