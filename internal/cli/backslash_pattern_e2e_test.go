package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestBackslashPattern checks that a pattern names a tar entry whose name
// holds a '\' (systemd's unit names do) on systems where '\' is a
// character of a file name.
func TestBackslashPattern(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows a '\\' in a pattern separates")
	}
	tar := testenv.Tool(t, "tar")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeTree(t, src, map[string]string{`unit\x2dname.slice`: "unit\n", "other.txt": "other\n"})
	cmd := exec.Command(tar, "cf", filepath.Join(dir, "t.tar"), "-C", src, `unit\x2dname.slice`, "other.txt")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	r := garc(t, dir, "", "x", "t.tar", `unit\x2dname.slice`, "-o", "out")
	r.expect(t, ExitOK, "x with a backslash pattern")
	if b, err := os.ReadFile(filepath.Join(dir, "out", `unit\x2dname.slice`)); err != nil || string(b) != "unit\n" {
		t.Errorf("the entry named with a backslash: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "other.txt")); err == nil {
		t.Errorf("other.txt was extracted too")
	}
	r = garc(t, dir, "", "l", "t.tar", `*\x2d*`)
	r.expect(t, ExitOK, "l with a backslash wildcard")
	// "unit" is no directory of the archive: the '\' does not separate.
	r = garc(t, dir, "", "x", "t.tar", "unit", "-o", "out2")
	r.expect(t, ExitNoMatch, "x unit")
}
