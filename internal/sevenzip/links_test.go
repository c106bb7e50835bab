package sevenzip

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// linkTargets returns the LinkTarget of every symlink Entries lists.
func linkTargets(rd archive.Reader) map[string]string {
	got := map[string]string{}
	for _, e := range rd.Entries() {
		if e.Type == archive.TypeSymlink {
			got[e.Name] = e.LinkTarget
		}
	}
	return got
}

// TestEntriesListLinkTargets7zz: Entries shows the targets of the links
// 7zz -snl stores as data, in a solid block behind files and alone.
func TestEntriesListLinkTargets7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), bytes.Repeat([]byte("alpha "), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"link": "a.txt", "d/up": "../a.txt", "d/abs": "/etc/hostname"}
	for name, target := range want {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"-snl"}, {"-snl", "-ms=off"}, {"-snl", "-mx0"}} {
		arc := filepath.Join(t.TempDir(), "l.7z")
		run7zz(t, zz, src, arc, args...)
		rd := openFile(t, arc, "")
		got := linkTargets(rd)
		if len(got) != len(want) {
			t.Errorf("%v: links %v, want %v", args, got, want)
		}
		for name, target := range want {
			if got[name] != target {
				t.Errorf("%v: %s -> %q, want %q", args, name, got[name], target)
			}
		}
		rd.Close()
	}
}

// TestEntriesLeaveLinkTargets: links that are too large, encrypted, or
// behind more than maxLinkListWork of a solid block keep an empty target
// (Extract fills it), and deciding so decodes and allocates nothing.
func TestEntriesLeaveLinkTargets(t *testing.T) {
	link := func(name, target string) testFile {
		return testFile{name: name, typ: archive.TypeSymlink, target: target, data: []byte(target), mode: 0o120777}
	}
	huge := strings.Repeat("x/", maxListedLinkTarget/2+1)
	cases := []struct {
		name  string
		files []testFile
		opts  WriteOptions
	}{
		{"huge", []testFile{link("big", huge)}, WriteOptions{}},
		{"encrypted", []testFile{link("secret", "target")}, WriteOptions{Password: "pw"}},
		{"deep in a solid block", []testFile{
			{name: "a.bin", typ: archive.TypeFile, data: randomBytes(1, maxLinkListWork+1), mode: 0o100644},
			link("z", "a.bin"),
		}, WriteOptions{Level: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := writeArchive(t, c.files, &c.opts)
			opts := &archive.Options{Password: func() (string, error) {
				t.Error("a password was asked for")
				return "pw", nil
			}}
			if c.opts.Password == "" {
				opts.Password = nil
			}
			rd, err := newReader(bytes.NewReader(b), int64(len(b)), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			allocs := testing.AllocsPerRun(3, func() {
				rd.linksListed = false
				rd.Entries()
			})
			if allocs != 0 {
				t.Errorf("Entries allocated %v times", allocs)
			}
			for name, target := range linkTargets(rd) {
				if target != "" {
					t.Errorf("%s -> %q listed", name, target)
				}
			}
			// Extract still gives the target.
			if c.opts.Password != "" {
				rd.opts.Password = func() (string, error) { return "pw", nil }
			}
			got, err := extractToMap(rd)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.files {
				if f.typ == archive.TypeSymlink && !strings.Contains(got[f.name], f.target) {
					t.Errorf("extracted %s: %.40q, want the target %.40q", f.name, got[f.name], f.target)
				}
			}
		})
	}
}
