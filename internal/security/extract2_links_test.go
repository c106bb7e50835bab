package security

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkLinksResolveInside fails t if a symbolic link under the
// destination resolves, through what is on disk now, to a place outside
// it (a dangling link counts as inside: it leads nowhere).
func (s *sandbox) checkLinksResolveInside(t *testing.T) {
	t.Helper()
	root, err := filepath.EvalSymlinks(s.Dest)
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(s.Dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		res, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil
		}
		if res != root && !strings.HasPrefix(res, root+string(filepath.Separator)) {
			tgt, _ := os.Readlink(p)
			t.Errorf("link %s -> %s resolves outside the destination, to %s", p, tgt, res)
		}
		return nil
	})
}

// A link target with ".." after a normal component (libarchive's
// test_symlink_dotdot.zip has traildot -> sub/..) is created under
// --links=safe when the ".." climbs back over a directory that exists.
func TestLinkClimbingOverDirectoryCreated(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	s := newSandbox(t)
	arc := make7z(t, []entrySpec{
		{name: "sub/x.txt", content: "x"},
		{name: "traildot", content: "sub/..", symlink: true},
		{name: "deep/a/l", content: "../../sub/../sub/x.txt", symlink: true},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest)
	s.checkUnchanged(t, before, r)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	if tgt, err := os.Readlink(filepath.Join(s.Dest, "traildot")); err != nil || tgt != "sub/.." {
		t.Errorf("traildot -> %q (%v), want sub/..", tgt, err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dest, "deep", "a", "l")); err != nil || string(b) != "x" {
		t.Errorf("deep/a/l reads %q (%v), want x", b, err)
	}
	s.checkLinksResolveInside(t)
}

// Over a name that does not exist, "name/.." is refused: a later link
// "name -> ." (in the same archive, or in a later run into the same
// directory) would make it lead to the destination's parent. A directory
// a link climbs over can never become a link afterwards.
func TestLinkClimbingOverMissingNameRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	s := newSandbox(t)
	arc := make7z(t, []entrySpec{
		{name: "traildot", content: "sub/..", symlink: true},
		{name: "sub", content: ".", symlink: true},
		{name: "traildot/victim.txt", content: "pwned"},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest, "-y")
	s.checkUnchanged(t, before, r)
	s.checkLinksResolveInside(t)
	if r.code != 1 || !strings.Contains(r.stderr, "traildot") {
		t.Errorf("exit %d, want 1 naming traildot\n%s", r.code, r.stderr)
	}
	if _, err := os.Readlink(filepath.Join(s.Dest, "traildot")); err == nil {
		t.Error("traildot -> sub/.. was created while sub did not exist")
	}

	// Two runs into one directory: the first makes sub a directory and
	// traildot -> sub/..; the second cannot turn sub into a link.
	s2 := newSandbox(t)
	first := make7z(t, []entrySpec{
		{name: "sub/x.txt", content: "x"},
		{name: "traildot", content: "sub/..", symlink: true},
	})
	second := make7z(t, []entrySpec{
		{name: "sub", content: ".", symlink: true},
	})
	before = s2.outsideState(t)
	if r := runGarc(t, s2.Work, "x", first, "-o", s2.Dest); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	r = runGarc(t, s2.Work, "x", second, "-o", s2.Dest, "-y")
	s2.checkUnchanged(t, before, r)
	s2.checkLinksResolveInside(t)
	if r.code == 0 {
		t.Errorf("the second run replaced the directory sub with a link:\n%s", r.stderr)
	}
	if fi, err := os.Lstat(filepath.Join(s2.Dest, "sub")); err != nil || !fi.IsDir() {
		t.Errorf("sub is no longer a directory (%v)", err)
	}
}
