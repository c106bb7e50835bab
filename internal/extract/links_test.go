package extract

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// A link target that passes through a symbolic link already present in
// the destination is resolved against the disk, not only lexically.
func TestSymlinkThroughExistingLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	cases := []struct {
		name     string
		existing map[string]string // link name → target, made before the run
		link     string
		target   string
		safe     bool
	}{
		{"absolute existing link", map[string]string{"ext": "/etc"}, "l", "ext/passwd", false},
		{"existing link to outside dir", map[string]string{"ext": "../outside"}, "l", "ext/secret", false},
		{"existing link climbing twice", map[string]string{"sub/up": "../.."}, "l", "sub/up/x", false},
		{"chain of existing links", map[string]string{"a": "b", "b": "c", "c": "../outside"}, "l", "a/x", false},
		{"existing link from a subdirectory", map[string]string{"ext": "../outside"}, "d/l", "../ext", false},
		{"existing link inside", map[string]string{"in": "sub"}, "l", "in/file", true},
		{"existing link to dot", map[string]string{"dot": "."}, "l", "dot/dot/file", true},
		{"link loop", map[string]string{"p": "q", "q": "p"}, "l", "p/x", false},
		{"missing component", map[string]string{}, "l", "nothing/here", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			os.MkdirAll(filepath.Join(f.dest, "sub"), 0o755)
			for name, target := range c.existing {
				if err := os.Symlink(target, filepath.Join(f.dest, name)); err != nil {
					t.Fatal(err)
				}
			}
			e := &archive.Entry{Name: c.link, Type: archive.TypeSymlink, LinkTarget: c.target}
			err := f.x.Write(e, strings.NewReader(""))
			if c.safe {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || f.exists(c.link) {
				t.Fatalf("accepted %s -> %s: %v", c.link, c.target, err)
			}
			// Nothing was created for it either.
			if f.exists("d") {
				t.Fatal("parent directory of the refused link left")
			}
		})
	}
}

// TestSymlinkClimbOverDirectory: a target with ".." after a normal
// component ("sub/..", as libarchive's test_symlink_dotdot.zip has) is
// created when the ".." climbs back over a real directory named by the
// target itself, which keeps that meaning forever; over a name that does
// not exist, a file or a link it is refused, because a later link at that
// name would change where it leads.
func TestSymlinkClimbOverDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	cases := []struct {
		name   string
		link   string
		target string
		safe   bool
	}{
		{"climb over a directory", "traildot", "sub/..", true},
		{"climb over a directory, trailing slash", "traildot", "sub/../", true},
		{"two directories", "l", "sub/deep/../../safe.txt", true},
		{"from a subdirectory", "sub/l", "../sub/../safe.txt", true},
		{"down again after climbing", "l", "sub/../sub/deep", true},
		{"climb over a missing name", "l", "nothing/..", false},
		{"climb over a missing name inside a directory", "l", "sub/nothing/../..", false},
		{"climb over a file", "l", "safe.txt/..", false},
		{"climb over a link", "l", "lnk/..", false},
		{"climb after a link", "l", "lnk/deep/../..", false},
		{"climb out", "l", "sub/../..", false},
		{"dotdot", "dotdot", "..", false},
		{"climb out from a directory", "sub/l", "deep/../../..", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			if err := f.x.Write(&archive.Entry{Name: "sub/deep", Type: archive.TypeDir}, nil); err != nil {
				t.Fatal(err)
			}
			if err := f.write(fileEntry("safe.txt"), "abc"); err != nil {
				t.Fatal(err)
			}
			if err := f.x.Write(&archive.Entry{Name: "lnk", Type: archive.TypeSymlink, LinkTarget: "sub"}, nil); err != nil {
				t.Fatal(err)
			}
			err := f.x.Write(&archive.Entry{Name: c.link, Type: archive.TypeSymlink, LinkTarget: c.target}, nil)
			if !c.safe {
				if !errors.Is(err, ErrRefused) || f.exists(c.link) {
					t.Fatalf("accepted %s -> %s: %v", c.link, c.target, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got, _ := os.Readlink(filepath.Join(f.dest, c.link)); got != c.target {
				t.Fatalf("link target %q, want %q", got, c.target)
			}
			if _, err := os.Stat(filepath.Join(f.dest, c.link)); err != nil {
				t.Fatalf("link does not resolve: %v", err)
			}
			f.outsideUntouched()
		})
	}
}

// TestSymlinkClimbOverMissingNameCannotEscape is why "name/.." is refused
// while name does not exist: a later entry could make name a link to "."
// (harmless alone), and "name/.." would then lead to the destination's
// parent.
func TestSymlinkClimbOverMissingNameCannotEscape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{})
	entries := []*archive.Entry{
		{Name: "traildot", Type: archive.TypeSymlink, LinkTarget: "sub/.."},
		{Name: "sub", Type: archive.TypeSymlink, LinkTarget: "."},
	}
	for _, e := range entries {
		f.x.Write(e, nil)
	}
	if p, err := filepath.EvalSymlinks(filepath.Join(f.dest, "traildot")); err == nil {
		if r, _ := filepath.Rel(f.dest, p); r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			t.Fatalf("traildot leads outside, to %s", p)
		}
	}
	if f.exists("traildot") {
		t.Fatal("traildot -> sub/.. created while sub did not exist")
	}
}
