//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOverwriteQuestionShowsBothFiles checks the overwrite question on a
// terminal (issue 24, point 13): it shows the size and modification time
// of the file on disk and of the one in the archive, as 7zz does, and
// offers to rename the new file ("r": this one, "R" or 7-Zip's "u":
// every one), which keeps the old file and writes the new one as
// NAME_1.EXT.
func TestOverwriteQuestionShowsBothFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": "archived a", "src/b.txt": "archived b"})
	stamp := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, n := range []string{"src/a.txt", "src/b.txt"} {
		os.Chtimes(filepath.Join(dir, n), stamp, stamp)
	}
	garc(t, dir, "", "a", "s.7z", "src").expect(t, ExitOK, "a")
	local := func() {
		writeTree(t, dir, map[string]string{"out/src/a.txt": strings.Repeat("L", 2000), "out/src/b.txt": "local b"})
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		os.Chtimes(filepath.Join(dir, "out/src/a.txt"), old, old)
	}
	read := func(n string) string {
		b, err := os.ReadFile(filepath.Join(dir, "out", n))
		if err != nil {
			return "(none)"
		}
		return string(b)
	}

	local()
	r := startPTY(t, dir, false, "x", "s.7z", "-o", "out", "src/a.txt")
	r.waitFor(t, "[q]uit: ")
	out := r.output()
	for _, want := range []string{
		"/out/src/a.txt exists\r\n",
		"  on disk:         2000 bytes (2.0 KiB), modified 2020-01-02 03:04:05\r\n",
		"  in the archive:  10 bytes, modified 2021-03-04 05:06:07 (src/a.txt)\r\n",
		"[r]ename the new file, [R]ename all",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the question lacks %q:\n%q", want, out)
		}
	}
	r.master.Write([]byte("r\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf(`"r": exit %d\n%q`, code, r.output())
	}
	if read("src/a.txt") != strings.Repeat("L", 2000) || read("src/a_1.txt") != "archived a" {
		t.Errorf(`"r": a.txt %q, a_1.txt %q`, read("src/a.txt"), read("src/a_1.txt"))
	}

	// "R" at the first question renames every new file, asking once.
	os.RemoveAll(filepath.Join(dir, "out"))
	local()
	r = startPTY(t, dir, false, "x", "s.7z", "-o", "out")
	r.waitFor(t, "[q]uit: ")
	r.master.Write([]byte("R\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf(`"R": exit %d\n%q`, code, r.output())
	}
	if n := strings.Count(r.output(), "[q]uit: "); n != 1 {
		t.Errorf(`"R" asked %d times`, n)
	}
	if read("src/a.txt") != strings.Repeat("L", 2000) || read("src/a_1.txt") != "archived a" ||
		read("src/b.txt") != "local b" || read("src/b_1.txt") != "archived b" {
		t.Errorf(`"R": a %q a_1 %q b %q b_1 %q`, read("src/a.txt"), read("src/a_1.txt"), read("src/b.txt"), read("src/b_1.txt"))
	}
}
