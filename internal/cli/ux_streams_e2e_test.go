package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
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
	if !strings.Contains(r.stderr, "Everything is Ok: 1 file, 0 folders, 12 bytes") {
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

// garc l's table, from the column titles to the totals, is 7zz l's for
// 7z and ZIP archives: directories and empty files pack to 0, files in a
// solid block beyond the first are blank, the totals line carries the
// newest time.
func TestTableMatches7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": strings.Repeat("a", 3000), "src/b.txt": "b", "src/empty": "", "src/sub/c.txt": "c"})
	old := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "src/b.txt"), old, old)
	for _, name := range []string{"t.7z", "t.zip"} {
		sevenZip(t, dir, "a", "-bd", name, "src")
		cmd := exec.Command(sz, "l", name)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("7zz l %s: %v", name, err)
		}
		want := string(out[strings.Index(string(out), "   Date"):])
		r := garc(t, dir, "", "l", name)
		r.expect(t, ExitOK, "l "+name)
		got := r.stdout[strings.Index(r.stdout, "   Date"):]
		if strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("%s:\ngarc:\n%s\n7zz:\n%s", name, got, want)
		}
	}
}
