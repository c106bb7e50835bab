package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// tree lists every path below root, slash-separated and sorted.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			r, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(r))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestRollbackRemovesOnlyWhatTheRunCreated(t *testing.T) {
	base := t.TempDir()
	dest := filepath.Join(base, "out", "sub")
	// A destination that already exists with some content.
	pre := filepath.Join(base, "pre")
	for _, d := range []string{"keep/inner"} {
		if err := os.MkdirAll(filepath.Join(pre, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(pre, "keep", "old.txt"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(pre, "replaced.txt"), []byte("old"), 0o644)

	cases := []struct {
		name string
		dest string
		opts Options
		want []string // what remains below base
	}{
		{"new destination", dest, Options{}, []string{"pre", "pre/keep", "pre/keep/inner", "pre/keep/old.txt", "pre/replaced.txt"}},
		{"existing destination", pre, Options{Overwrite: OverwriteAll}, []string{"pre", "pre/keep", "pre/keep/inner", "pre/keep/old.txt", "pre/replaced.txt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Dest = c.dest
			x, err := New(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			entries := []struct {
				e       *archive.Entry
				content string
			}{
				{&archive.Entry{Name: "d1/d2", Type: archive.TypeDir}, ""},
				{fileEntry("d1/d2/empty"), ""},
				{fileEntry("keep/inner/new/empty"), ""},
				{fileEntry("keep/new.txt"), "x"},
				{fileEntry("replaced.txt"), "new"},
				{&archive.Entry{Name: "keep/link", Type: archive.TypeSymlink, LinkTarget: "old.txt"}, ""},
				{&archive.Entry{Name: "hard", Type: archive.TypeHardlink, LinkTarget: "keep/new.txt"}, ""},
			}
			for _, en := range entries {
				if err := x.Write(en.e, strings.NewReader(en.content)); err != nil {
					t.Fatalf("%s: %v", en.e.Name, err)
				}
			}
			if err := x.Rollback(); err != nil {
				t.Fatal(err)
			}
			got := tree(t, base)
			if !slices.Equal(got, c.want) {
				t.Fatalf("after Rollback:\n got %q\nwant %q", got, c.want)
			}
			if b, _ := os.ReadFile(filepath.Join(pre, "keep", "old.txt")); string(b) != "old" {
				t.Fatal("pre-existing file changed")
			}
		})
	}
}

func TestRollbackKeepsDirectoryFilledMeanwhile(t *testing.T) {
	dest := t.TempDir()
	x, err := New(Options{Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Write(fileEntry("a/b/f"), strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dest, "a", "other"), nil, 0o644) // not from this run
	if err := x.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dest); !slices.Equal(got, []string{"a", "a/other"}) {
		t.Fatalf("got %q", got)
	}
}

// An entry that fails leaves no directory created only for it.
func TestFailedEntryLeavesNoDirectories(t *testing.T) {
	long := strings.Repeat("n", 10<<10) // ENAMETOOLONG
	cases := []struct {
		name string
		e    *archive.Entry
		opts Options
	}{
		{"long last component", fileEntry("a/b/c/" + long), Options{}},
		{"long path", fileEntry("a/b/" + strings.Repeat(strings.Repeat("d", 200)+"/", 30) + "f"), Options{}},
		{"long directory entry", &archive.Entry{Name: "a/b/" + long, Type: archive.TypeDir}, Options{}},
		{"skipped link", &archive.Entry{Name: "a/b/l", Type: archive.TypeSymlink, LinkTarget: "x"}, Options{Links: LinksSkip}},
		{"refused link", &archive.Entry{Name: "a/b/l", Type: archive.TypeSymlink, LinkTarget: "../../../x"}, Options{}},
		{"unknown hard link", &archive.Entry{Name: "a/b/h", Type: archive.TypeHardlink, LinkTarget: "nothing"}, Options{}},
		{"checksum failure", fileEntry("a/b/f"), Options{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.opts)
			os.Mkdir(filepath.Join(f.dest, "a"), 0o755) // pre-existing: stays
			var err error
			if c.name == "checksum failure" {
				err = f.x.Write(c.e, &failingReader{data: "partial"})
			} else {
				err = f.write(c.e, "")
			}
			if err == nil {
				t.Fatal("entry accepted")
			}
			if got := tree(t, f.dest); !slices.Equal(got, []string{"a"}) {
				t.Fatalf("left behind: %d paths, e.g. %.80q", len(got), got[len(got)-1])
			}
			// The extractor still works in the same place afterwards.
			if err := f.write(fileEntry("a/b/ok"), "ok"); err != nil || f.read("a/b/ok") != "ok" {
				t.Fatalf("later entry: %v", err)
			}
			if err := f.x.Finish(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestFailedEntryKeepsSharedDirectories(t *testing.T) {
	f := newFixture(t, Options{})
	if err := f.write(fileEntry("a/b/first"), "1"); err != nil {
		t.Fatal(err)
	}
	err := f.write(fileEntry("a/b/c/"+strings.Repeat("n", 10<<10)), "")
	if !errors.Is(err, ErrCreate) {
		t.Fatalf("got %v", err)
	}
	if got := tree(t, f.dest); !slices.Equal(got, []string{"a", "a/b", "a/b/first"}) {
		t.Fatalf("got %q", got)
	}
	// Rollback still removes what the first entry created, and the
	// destination New created.
	if err := f.x.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.dest); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination left after Rollback: %v", err)
	}
}
