//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// smallFS mounts a 64 KiB tmpfs under dir (root only).
func smallFS(t *testing.T, dir string) string {
	t.Helper()
	mnt := filepath.Join(dir, "small")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		testenv.Missing(t, "a small tmpfs (mount needs root): "+err.Error())
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return mnt
}

// TestDiskFullExitCode fills the file system during garc a and garc d:
// exit 9, a message naming the archive and not its temporary file, the
// archive unchanged, no temporary file left.
func TestDiskFullExitCode(t *testing.T) {
	dir := t.TempDir()
	mnt := smallFS(t, dir)
	random := make([]byte, 36<<10)
	rand.Read(random)
	os.WriteFile(filepath.Join(dir, "r1.bin"), random, 0o644)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("small"), 0o644)
	garc(t, dir, "", "a", "-mx0", "small/out.7z", "r1.bin", "f.txt").expect(t, ExitOK, "garc a small")
	before, err := os.ReadFile(filepath.Join(mnt, "out.7z"))
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 256<<10)
	rand.Read(big)
	os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644)
	for _, args := range [][]string{
		{"a", "-mx1", "small/out.7z", "big.bin"}, // the update does not fit
		{"d", "small/out.7z", "f.txt"},           // nor does a second copy of r1.bin
	} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitCreate, strings.Join(args, " "))
		if strings.Count(r.stderr, "small/out.7z") != 1 || strings.Contains(r.stderr, ".garc-") {
			t.Errorf("%q: the message should name the archive once, and not the temporary file:\n%s", args, r.stderr)
		}
		after, err := os.ReadFile(filepath.Join(mnt, "out.7z"))
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("%q: the archive changed (%v)", args, err)
		}
		noTemps(t, mnt)
	}
}

// TestEmptyPasswordExitCode gives an empty password through
// --password-file and --password-stdin: exit 11, as a wrong password.
func TestEmptyPasswordExitCode(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "enc.7z", "-psecret")
	os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "newline.txt"), []byte("\n"), 0o600)
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"t", "--password-file", "empty.txt", arc}},
		{"", []string{"t", "--password-file", "newline.txt", arc}},
		{"", []string{"x", "--password-stdin", arc, "-o", "out"}},
		{"\r\n", []string{"t", "--password-stdin", arc}},
	} {
		garc(t, dir, tc.stdin, tc.args...).expect(t, ExitPassword, strings.Join(tc.args[:2], " ")+" with an empty password")
	}
}
