package extract

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestDiskFullNamesTheFile (issue 23, point 19): a write that fails for a
// full disk reports the file being extracted ("dest/big.bin"), not its
// temporary name (".garc-5188413f.tmp"), and leaves no temporary file.
func TestDiskFullNamesTheFile(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "small")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		testenv.Missing(t, "a small tmpfs (mount needs root): "+err.Error())
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	for _, flat := range []bool{false, true} {
		dest := filepath.Join(mnt, "out")
		x, err := New(Options{Dest: dest, Flat: flat})
		if err != nil {
			t.Fatal(err)
		}
		err = x.Write(fileEntry("d/big.bin"), strings.NewReader(strings.Repeat("x", 256<<10)))
		x.Finish()
		want := filepath.Join(dest, "d", "big.bin")
		if flat {
			want = filepath.Join(dest, "big.bin")
		}
		if !errors.Is(err, ErrCreate) || !strings.Contains(err.Error(), want+": no space left on device") ||
			strings.Contains(err.Error(), ".garc-") {
			t.Errorf("flat %v: %v; want ErrCreate naming %s", flat, err, want)
		}
		filepath.WalkDir(mnt, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".garc-") {
				t.Errorf("flat %v: temporary file left: %s", flat, p)
			}
			return nil
		})
		os.RemoveAll(dest)
	}
}

// TestAtFinal: errors about a temporary name name the final file; others
// pass unchanged.
func TestAtFinal(t *testing.T) {
	tmp := "/d/.garc-5188413f.tmp"
	for _, c := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: tmp, Err: errors.New("disk full")}, "write /d/f: disk full"},
		{&os.LinkError{Op: "rename", Old: tmp, New: "/d/f", Err: errors.New("EXDEV")}, "rename /d/f: EXDEV"},
		{&os.LinkError{Op: "symlink", Old: "target", New: tmp, Err: errors.New("EPERM")}, "symlink /d/f: EPERM"},
		{&os.PathError{Op: "open", Path: "/d/src", Err: errors.New("gone")}, "open /d/src: gone"},
		{errors.New("other"), "other"},
	} {
		if got := atFinal(c.err, "/d/f").Error(); got != c.want {
			t.Errorf("atFinal(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
