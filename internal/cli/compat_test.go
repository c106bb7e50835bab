package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandArchives(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.7z", "a.7z", "a.rar", "c.7z.001", "star*.rar", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "d.7z"), 0o755)
	p := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		arg     string
		want    []string
		wantErr error
	}{
		{p("a.7z"), []string{p("a.7z")}, nil},
		{p("missing.7z"), []string{p("missing.7z")}, nil},                          // no wildcard: opening reports it
		{p("*.7z"), []string{p("a.7z"), p("b.7z")}, nil},                           // sorted, directories left out
		{p("?.*"), []string{p("a.7z"), p("a.rar"), p("b.7z"), p("c.7z.001")}, nil}, // * spans dots
		{p("*.7z.*"), []string{p("c.7z.001")}, nil},
		{p("star*.rar"), []string{p("star*.rar")}, nil}, // exists literally
		{p("*.zip"), nil, fs.ErrNotExist},
		{filepath.Join(dir, "*", "a.7z"), nil, &usageError{}},
	}
	for _, tc := range tests {
		got, err := expandArchives(tc.arg)
		switch {
		case tc.wantErr == nil && err != nil:
			t.Errorf("expandArchives(%q): %v", tc.arg, err)
		case tc.wantErr != nil:
			var ue *usageError
			if _, isUsage := tc.wantErr.(*usageError); isUsage && !errors.As(err, &ue) || !isUsage && !errors.Is(err, tc.wantErr) {
				t.Errorf("expandArchives(%q): error %v, want %v", tc.arg, err, tc.wantErr)
			}
		case strings.Join(got, "|") != strings.Join(tc.want, "|"):
			t.Errorf("expandArchives(%q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}

func TestOutputDir(t *testing.T) {
	tests := []struct{ dir, archive, want string }{
		{"out", "a.7z", "out"},
		{"*", "a.7z", "a"},
		{"*", "dir/b.part1.rar", "b"},
		{"*", "c.part01.rar", "c"},
		{"*", "d.7z.001", "d"},
		{"*", "e.tar.7z", "e.tar"},
		{"*", "f.rar", "f"},
		{"*", ".7z", ".7z"},
		{"*", "noext", "noext"},
		{"*", "x.part.rar", "x.part"},
		{"*", "h.tar.rar", "h.tar"},
		{"*", "i.r00", "i"},
		{"*", "j.part2.RAR", "j"},
		{"*", "k.7z.002", "k"},
		{"out/*-files", "g.rar", "out/g-files"},
	}
	for _, tc := range tests {
		if got := outputDir(tc.dir, tc.archive); got != tc.want {
			t.Errorf("outputDir(%q, %q) = %q, want %q", tc.dir, tc.archive, got, tc.want)
		}
	}
}
