package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func TestTrailingDestinationArg(t *testing.T) {
	tests := []struct {
		arg  string
		want bool
	}{
		{"out/", true},
		{`out\`, true},
		{"a/b/", true},
		{"out", false},
		{"*.txt", false},
		{"/", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := trailingDestination(tc.arg); got != tc.want {
			t.Errorf("trailingDestination(%q) = %v, want %v", tc.arg, got, tc.want)
		}
	}
}

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

func TestSevenZipArchiveMethods(t *testing.T) {
	tests := []struct {
		methods []string
		want    string
	}{
		{[]string{"LZMA2:12"}, "LZMA2:12"},
		{[]string{"ARMT LZMA2:17", "ARMT LZMA2:17"}, "LZMA2:17 ARMT"},
		{[]string{"BCJ2 LZMA:16 LZMA:16:lc0:lp2", "LZMA2:16"}, "LZMA2:16 LZMA:16 BCJ2"},
		{[]string{"LZMA:16", "LZMA:24", "LZMA:1536k"}, "LZMA:24"},
		{[]string{"LZMA:3m", "LZMA:21"}, "LZMA:3m"},
		{[]string{"PPMD:o6:mem24 BCJ", "Delta:4 LZMA2:17"}, "Delta LZMA2:17 PPMD BCJ"}, // by ID: PPMD 030401 < BCJ 03030103,
		{[]string{"LZMA2:17 7zAES:19", "BCJ LZMA2:17 7zAES:19"}, "LZMA2:17 BCJ 7zAES"},
		{[]string{"Copy", "BZip2", "Deflate"}, "Copy Deflate BZip2"},
		{[]string{"Mystery", "Copy"}, "Copy Mystery"},
		{[]string{""}, ""},
	}
	for _, tc := range tests {
		var all []*archive.Entry
		for _, m := range tc.methods {
			all = append(all, &archive.Entry{Method: m})
		}
		if got := sevenZipArchiveMethods(all); got != tc.want {
			t.Errorf("methods %q: got %q, want %q", tc.methods, got, tc.want)
		}
	}
}

func TestSLTAttr(t *testing.T) {
	tests := []struct {
		e    archive.Entry
		want string
	}{
		{archive.Entry{HostOS: archive.HostWindows, Attributes: archive.AttrArchive}, "A"},
		{archive.Entry{HostOS: archive.HostWindows, Type: archive.TypeDir, Attributes: archive.AttrDirectory | archive.AttrHidden}, "HD"},
		{archive.Entry{HostOS: archive.HostWindows, Type: archive.TypeDir, Attributes: archive.AttrDirectory | archive.AttrReadOnly}, "RD"},
		{archive.Entry{HostOS: archive.HostWindows, Attributes: 0x80}, "N"},
		{archive.Entry{HostOS: archive.HostWindows, Attributes: archive.AttrArchive | 0x2000}, "AI"},
		{archive.Entry{HostOS: archive.HostUnix, Attributes: archive.AttrArchive | archive.AttrUnixExtension | 0o100644<<16, Mode: 0o644, HasUnixMode: true}, "A -rw-r--r--"},
		{archive.Entry{HostOS: archive.HostUnix, Type: archive.TypeDir, Attributes: archive.AttrDirectory | archive.AttrUnixExtension | 0o40755<<16, Mode: 0o755, HasUnixMode: true}, "D drwxr-xr-x"},
		{archive.Entry{HostOS: archive.HostUnix, Attributes: 0o100444, Mode: 0o444, HasUnixMode: true}, "R -r--r--r--"},
	}
	for _, tc := range tests {
		if got := sltAttr(&tc.e); got != tc.want {
			t.Errorf("sltAttr(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestSevenZipTypeName(t *testing.T) {
	for f, want := range map[archive.Format]string{
		archive.Format7z: "7z", archive.FormatRAR5: "Rar5", archive.FormatRAR4: "Rar", archive.FormatRAR14: "Rar",
	} {
		if got := sevenZipTypeName(f); got != want {
			t.Errorf("sevenZipTypeName(%s) = %q, want %q", f, got, want)
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
		{"out/*-files", "g.rar", "out/g-files"},
	}
	for _, tc := range tests {
		if got := outputDir(tc.dir, tc.archive); got != tc.want {
			t.Errorf("outputDir(%q, %q) = %q, want %q", tc.dir, tc.archive, got, tc.want)
		}
	}
}
