package extract

import (
	"errors"
	"fmt"
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

// TestLinkToItselfLeavesNoTemporary (issue 23, point 4): a hard link or
// copy entry whose name already is the file it names ("tar cf t.tar f f",
// a hard link entry repeated, a RAR5 link to itself) left its temporary
// link beside the file, because rename(2) of a link onto the same file
// does nothing. The entry is satisfied as it stands: no temporary file,
// no "file exists", whatever the overwrite mode, and the name stays one
// file with its first entry's content.
func TestLinkToItselfLeavesNoTemporary(t *testing.T) {
	hard := func(name, target string) *archive.Entry {
		return &archive.Entry{Name: name, Type: archive.TypeHardlink, LinkTarget: target}
	}
	copyOf := func(name, target string) *archive.Entry {
		return &archive.Entry{Name: name, Type: archive.TypeCopy, LinkTarget: target}
	}
	cases := []struct {
		name    string
		entries []*archive.Entry // after the file "f" with content "hi"
		links   map[string]int   // name → link count wanted
	}{
		{"hard link to itself", []*archive.Entry{hard("f", "f")}, map[string]int{"f": 1}},
		{"hard link to itself twice", []*archive.Entry{hard("f", "f"), hard("./f", "f")}, map[string]int{"f": 1}},
		{"hard link repeated", []*archive.Entry{hard("g", "f"), hard("g", "f")}, map[string]int{"f": 2, "g": 2}},
		{"hard link repeated through itself", []*archive.Entry{hard("g", "f"), hard("g", "g")}, map[string]int{"f": 2, "g": 2}},
		{"copy of itself", []*archive.Entry{copyOf("f", "f")}, map[string]int{"f": 1}},
		{"flat names meet", []*archive.Entry{hard("d/f", "f")}, map[string]int{"f": 1}},
	}
	for _, c := range cases {
		for _, mode := range []OverwriteMode{OverwriteNever, OverwriteAll, OverwriteRename, OverwriteRenameExisting} {
			for _, flat := range []bool{false, true} {
				if c.name == "flat names meet" && !flat {
					continue
				}
				t.Run(fmt.Sprintf("%s/mode%d/flat=%v", c.name, mode, flat), func(t *testing.T) {
					f := newFixture(t, Options{Overwrite: mode, Flat: flat})
					if err := f.write(fileEntry("f"), "hi"); err != nil {
						t.Fatal(err)
					}
					for _, e := range c.entries {
						if err := f.x.Write(e, nil); err != nil {
							t.Fatalf("%s -> %s: %v", e.Name, e.LinkTarget, err)
						}
					}
					if err := f.x.Finish(); err != nil {
						t.Fatal(err)
					}
					if tmp := f.temps(); len(tmp) != 0 {
						t.Errorf("temporary files left: %v", tmp)
					}
					if len(f.warned) != 0 {
						t.Errorf("warnings: %v", f.warnErr)
					}
					ents, _ := os.ReadDir(f.dest)
					if len(ents) != len(c.links) {
						t.Errorf("%d names in the destination, want %d", len(ents), len(c.links))
					}
					for name, n := range c.links {
						if got := f.read(name); got != "hi" {
							t.Errorf("%s holds %q", name, got)
						}
						if got := linkCount(t, filepath.Join(f.dest, name)); got != n {
							t.Errorf("%s has %d links, want %d", name, got, n)
						}
					}
				})
			}
		}
	}
}

// TestPlaceLinkOntoSameFile: when the name a hard link is placed at has
// become a link to the same file since writeLink looked, the rename does
// nothing and placeLink removes the temporary link.
func TestPlaceLinkOntoSameFile(t *testing.T) {
	f := newFixture(t, Options{Overwrite: OverwriteAll})
	if err := f.write(fileEntry("f"), "hi"); err != nil {
		t.Fatal(err)
	}
	src, dst := filepath.Join(f.dest, "f"), filepath.Join(f.dest, "g")
	if err := os.Link(src, dst); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	tmp := filepath.Join(f.dest, ".garc-00000000.tmp")
	if err := f.x.createTemp(tmp, func() error { return os.Link(src, tmp) }, func() { os.Remove(tmp) }); err != nil {
		t.Fatal(err)
	}
	e := &archive.Entry{Name: "g", Type: archive.TypeHardlink, LinkTarget: "f"}
	if err := f.x.placeLink(e, "g", tmp, &placement{key: "g", path: dst, atTarget: true}); err != nil {
		t.Fatal(err)
	}
	if tmps := f.temps(); len(tmps) != 0 {
		t.Fatalf("temporary files left: %v", tmps)
	}
	if p, ok := f.x.writtenPath("g"); !ok || p != dst {
		t.Fatalf("g recorded at %q (%v)", p, ok)
	}
}

// linkCount counts the names in p's directory that are p's file (the
// link count, where the file has no names elsewhere), portably.
func linkCount(t *testing.T, p string) int {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if o, err := os.Lstat(filepath.Join(filepath.Dir(p), e.Name())); err == nil && os.SameFile(fi, o) {
			n++
		}
	}
	return n
}
