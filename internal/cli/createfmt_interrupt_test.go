//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Interrupting `a` of a ZIP update and of a compressed tar exits 255
// saying "interrupted", leaves no temporary file, the previous ZIP
// archive byte-identical and no tar behind.
func TestInterruptCreateFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 30 MB")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "small"})
	garc(t, dir, "", "a", "-q", "out.zip", "f.txt").expect(t, ExitOK, "garc a out.zip")
	before, err := os.ReadFile(filepath.Join(dir, "out.zip"))
	if err != nil {
		t.Fatal(err)
	}
	writeMixedData(t, filepath.Join(dir, "big.bin"), 30<<20)
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"a", "-mx9", "-mm=XZ", "out.zip", "big.bin"}},
		{syscall.SIGTERM, []string{"a", "-mx9", "out.tar.xz", "big.bin"}},
	} {
		code, stderr, _ := interruptRun(t, dir, dir, c.sig, 300*time.Millisecond, c.args...)
		if code != ExitInterrupted || stderr != "garc: interrupted\n" {
			t.Errorf("%q, %v: exit %d, stderr %q; want %d and one \"interrupted\"", c.args, c.sig, code, stderr, ExitInterrupted)
		}
		if tmp := temporaries(dir); len(tmp) > 0 {
			t.Errorf("%q: temporary files left: %q", c.args, tmp)
		}
	}
	if after, err := os.ReadFile(filepath.Join(dir, "out.zip")); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the previous ZIP archive changed (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.tar.xz")); err == nil {
		t.Error("an interrupted tar was left behind")
	}
}
