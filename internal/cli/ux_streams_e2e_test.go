package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A single compressed stream has no size record: x counts the bytes it
// wrote ("12 bytes", not "0 bytes") and l leaves the size total blank
// instead of claiming 0.
func TestStreamSizesInSummaries(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Name = "h.txt"
	zw.Write([]byte("hello world\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "h.txt.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := garc(t, dir, "", "x", "h.txt.gz", "-oout")
	r.expect(t, ExitOK, "x h.txt.gz")
	if !strings.Contains(r.stderr, "Everything is Ok: 1 files, 0 folders, 12 bytes") {
		t.Errorf("x summary: %q", r.stderr)
	}
	r = garc(t, dir, "", "l", "h.txt.gz")
	r.expect(t, ExitOK, "l h.txt.gz")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if last := lines[len(lines)-1]; strings.Contains(last, " 0 ") || !strings.HasSuffix(last, "1 files") {
		t.Errorf("l totals: %q", last)
	}
}

// The help says which formats are read: garc --help names ZIP, tar and
// the single-stream formats, and l --help's schema their type names.
func TestHelpNamesFormats(t *testing.T) {
	dir := t.TempDir()
	r := garc(t, dir, "", "--help")
	r.expect(t, ExitOK, "--help")
	for _, want := range []string{"ZIP archives", ".tar.zst", ".lzma files", "writes 7z archives", "-xr!"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("garc --help does not say %q", want)
		}
	}
	r = garc(t, dir, "", "l", "--help")
	r.expect(t, ExitOK, "l --help")
	for _, want := range []string{`"zip"`, `"tar.gz"`, `"xz"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("garc l --help does not name the type %s", want)
		}
	}
}
