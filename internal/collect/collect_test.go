package collect

import (
	"github.com/garc-dev/garc/internal/wildcard"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func mkTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"w/dir/sub/deep", "w/dir/empty"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for name, c := range map[string]string{"w/dir/sub/f.txt": "f", "w/dir/sub/deep/g.txt": "gg", "w/top.txt": "top",
		"w/dir/h.log": "hhh", "w/dir/x.bin": "x"} {
		os.WriteFile(filepath.Join(root, name), []byte(c), 0o640)
	}
	os.Symlink("sub/f.txt", filepath.Join(root, "w/dir/link"))
	os.Symlink("../dir", filepath.Join(root, "w/dir/sub/loop"))
	return root
}

func names(items []Item) string {
	var n []string
	for _, it := range items {
		s := it.Name
		switch it.Type {
		case archive.TypeDir:
			s += "/"
		case archive.TypeSymlink:
			s += "->" + it.LinkTarget
		}
		n = append(n, s)
	}
	sort.Strings(n)
	return strings.Join(n, " ")
}

func TestCollect(t *testing.T) {
	root := mkTree(t)
	w := filepath.Join(root, "w")
	t.Chdir(w)
	var warned []string
	warn := func(p string, err error) { warned = append(warned, p) }
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"relative dir, links stored", Options{Inputs: []string{"dir/sub"}, StoreSymlinks: true},
			"dir/sub/ dir/sub/deep/ dir/sub/deep/g.txt dir/sub/f.txt dir/sub/loop->../dir"},
		{"absolute input keeps the last component", Options{Inputs: []string{filepath.Join(w, "dir/sub/deep")}},
			"deep/ deep/g.txt"},
		{"dot-dot input", Options{Inputs: []string{"../w/top.txt"}}, "top.txt"},
		{"wildcard", Options{Inputs: []string{"*.txt"}}, "top.txt"},
		{"recursive wildcard", Options{Inputs: []string{"*.txt"}, Recursive: true},
			"dir/sub/deep/g.txt dir/sub/f.txt top.txt"},
		{"want filter keeps parents", Options{Inputs: []string{"dir"}, StoreSymlinks: true,
			Want: func(n string) bool { return strings.HasSuffix(n, ".log") }}, "dir/ dir/h.log"},
		{"dot", Options{Inputs: []string{"."}, StoreSymlinks: true, Want: func(n string) bool { return !strings.HasPrefix(n, "dir") }},
			"top.txt"},
		{"stdin", Options{Stdin: true, StdinName: "s.dat", Input: strings.NewReader("in")}, "s.dat"},
	} {
		items, err := Collect(c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := names(items); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// Following links: the loop is detected and reported, the file link
	// becomes a file.
	warned = nil
	items, err := Collect(Options{Inputs: []string{"dir"}, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	got := names(items)
	if !strings.Contains(got, "dir/link ") || strings.Contains(got, "dir/sub/loop/sub") || len(warned) != 1 {
		t.Errorf("following links: %s (warnings %v)", got, warned)
	}
	for _, it := range items {
		if it.Name == "dir/link" {
			rc, err := it.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if string(b) != "f" || it.Type != archive.TypeFile {
				t.Errorf("followed link: %q %v", b, it.Type)
			}
		}
		if it.Name == "dir/sub/f.txt" {
			if it.Attributes != archive.AttrUnixExtension|archive.AttrArchive|0o100640<<16 || it.ModTime.IsZero() ||
				it.AccessTime.IsZero() || it.Size != 1 {
				t.Errorf("f.txt metadata: %x %v %v %d", it.Attributes, it.ModTime, it.AccessTime, it.Size)
			}
		}
	}
	if _, err := Collect(Options{Inputs: []string{"missing"}, Warn: warn}); err != nil || warned[len(warned)-1] != "missing" {
		t.Errorf("missing input: %v %v", err, warned)
	}
}

func TestAttributes(t *testing.T) {
	for _, c := range []struct {
		m    fs.FileMode
		want uint32
	}{
		{0o644, 0x8000 | 0x20 | 0o100644<<16},
		{0o444, 0x8000 | 0x21 | 0o100444<<16},
		{fs.ModeDir | 0o755, 0x8000 | 0x10 | 0o040755<<16},
		{fs.ModeSymlink | 0o777, 0x8000 | 0x20 | 0o120777<<16},
		{0o4755, 0x8000 | 0x20 | 0o104755<<16},
	} {
		m := c.m
		if m&0o4000 != 0 {
			m = m&^0o4000 | fs.ModeSetuid
		}
		if got := Attributes(m); got != c.want {
			t.Errorf("%v: %x, want %x", c.m, got, c.want)
		}
	}
}

func TestStoredPrefix(t *testing.T) {
	for in, want := range map[string]string{"a/b": "a/b", "./a/": "a", "/x/y": "y", "../q/r": "r", ".": "", "/": "", "a/../b": "b"} {
		if got := StoredPrefix(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestWildMatch(t *testing.T) {
	for _, c := range []struct {
		p, n string
		ok   bool
	}{{"*.txt", "a.txt", true}, {"*.txt", "a.txt.gz", false}, {"?", "é", true}, {"a*b*c", "axxbyyc", true}, {"*.*", "noext", false}} {
		if wildcard.Match(c.p, c.n) != c.ok {
			t.Errorf("%q %q", c.p, c.n)
		}
	}
}

// TestTemporariesNotCollected: garc's own temporary files (an archive or
// an extracted file being written, or one left by an interrupted run) in
// a directory being archived are skipped with a warning; a file that only
// looks similar is archived.
func TestTemporariesNotCollected(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	os.Mkdir(dir, 0o755)
	for _, n := range []string{"a.txt", ".garc-1f2e3d4c.tmp", ".garc-notes.tmp"} {
		os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644)
	}
	var warned []string
	items, err := Collect(Options{Inputs: []string{dir}, Warn: func(p string, err error) {
		warned = append(warned, filepath.Base(p))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(items), "d/ d/.garc-notes.tmp d/a.txt"; got != want {
		t.Errorf("collected %q, want %q", got, want)
	}
	if len(warned) != 1 || warned[0] != ".garc-1f2e3d4c.tmp" {
		t.Errorf("warnings for %v", warned)
	}
}

// TestItemPaths: every item's Path names its file, whatever the form of
// the input (a clean relative path, whose items share their name as
// path, ".", one with "./", an absolute one), and a relative item's
// Path is the clean path filepath.Join gives.
func TestItemPaths(t *testing.T) {
	root := mkTree(t)
	w := filepath.Join(root, "w")
	t.Chdir(w)
	for _, in := range []string{"dir", ".", "./dir", "dir/", filepath.Join(w, "dir")} {
		items, err := Collect(Options{Inputs: []string{in}, StoreSymlinks: true})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		files := 0
		for _, it := range items {
			if it.Type != archive.TypeFile {
				continue
			}
			files++
			if filepath.IsAbs(in) != filepath.IsAbs(it.Path) {
				t.Errorf("%s: %s: path %q", in, it.Name, it.Path)
			}
			if filepath.Clean(it.Path) != it.Path {
				t.Errorf("%s: %s: path %q not clean", in, it.Name, it.Path)
			}
			b, err := os.ReadFile(it.Path)
			if err != nil {
				t.Errorf("%s: %s: %v", in, it.Name, err)
				continue
			}
			want, _ := os.ReadFile(filepath.Join(w, strings.TrimPrefix(it.Name, filepath.Base(w)+"/")))
			if in == filepath.Join(w, "dir") {
				want, _ = os.ReadFile(filepath.Join(w, it.Name))
			}
			if string(b) != string(want) {
				t.Errorf("%s: %s: path %q holds %q, want %q", in, it.Name, it.Path, b, want)
			}
		}
		if files < 4 {
			t.Errorf("%s: %d files", in, files)
		}
	}
}
