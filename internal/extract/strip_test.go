package extract

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestStripComponents checks the name rule of GNU tar's
// --strip-components (stripped_prefix_len): leading slashes passed over,
// runs of slashes separating once, "." and ".." counted.
func TestStripComponents(t *testing.T) {
	cases := []struct {
		name string
		n    int
		rest string
		ok   bool
	}{
		{"project-1.2.3/src/a.c", 1, "src/a.c", true},
		{"project-1.2.3/src/a.c", 2, "a.c", true},
		{"project-1.2.3/src/a.c", 3, "", false},
		{"project-1.2.3", 1, "", false},
		{"project-1.2.3/", 1, "", false},
		{"./project/a", 1, "project/a", true},
		{"./project/a", 2, "a", true},
		{"/abs/x", 1, "x", true},
		{"//abs//x//y", 1, "x//y", true},
		{"../up/x", 1, "up/x", true},
		{"a", 0, "a", true},
		{"", 1, "", false},
		{"a/b/", 1, "b/", true},
	}
	for _, c := range cases {
		rest, ok := StripComponents(c.name, c.n)
		if rest != c.rest || ok != c.ok {
			t.Errorf("StripComponents(%q, %d) = %q, %v; want %q, %v", c.name, c.n, rest, ok, c.rest, c.ok)
		}
	}
}

// TestExtractStripComponents writes entries with StripComponents 1: short
// names are skipped silently, a hard link's target name is stripped too,
// a symbolic link's target text is kept (and judged where the link now
// is), and a hard link whose target is stripped away is refused.
func TestExtractStripComponents(t *testing.T) {
	f := newFixture(t, Options{StripComponents: 1})
	entries := []struct {
		e       *archive.Entry
		content string
		refused bool
	}{
		{&archive.Entry{Name: "top", Type: archive.TypeFile, Size: 3}, "top", false},
		{&archive.Entry{Name: "p", Type: archive.TypeDir}, "", false},
		{&archive.Entry{Name: "p/a", Type: archive.TypeFile, Size: 1}, "A", false},
		{&archive.Entry{Name: "p/d/h", Type: archive.TypeHardlink, LinkTarget: "p/a"}, "", false},
		{&archive.Entry{Name: "p/d/s", Type: archive.TypeSymlink, LinkTarget: "../a"}, "", false},
		{&archive.Entry{Name: "p/d/out", Type: archive.TypeSymlink, LinkTarget: "../../x"}, "", true},
		{&archive.Entry{Name: "p/d/h2", Type: archive.TypeHardlink, LinkTarget: "top"}, "", true},
	}
	for _, c := range entries {
		err := f.write(c.e, c.content)
		if refused := errors.Is(err, ErrRefused); refused != c.refused || (err != nil && !refused) {
			t.Errorf("%s: %v", c.e.Name, err)
		}
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	filepath.Walk(f.dest, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(f.dest, p)
		switch {
		case err != nil || rel == ".":
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			got[filepath.ToSlash(rel)] = "-> " + target
		case fi.IsDir():
			got[filepath.ToSlash(rel)] = "/"
		default:
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	want := map[string]string{"a": "A", "d": "/", "d/h": "A", "d/s": "-> ../a"}
	if len(got) != len(want) {
		t.Fatalf("extracted %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	a, _ := os.Stat(filepath.Join(f.dest, "a"))
	h, _ := os.Stat(filepath.Join(f.dest, "d/h"))
	if !os.SameFile(a, h) {
		t.Error("d/h is not a hard link of a")
	}
}
