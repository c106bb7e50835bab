package zip

import (
	"bytes"
	"os"
	"os/exec"
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

// linkTree makes a directory with a file and links to it.
func linkTree(t *testing.T) (string, map[string]string) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), bytes.Repeat([]byte("alpha "), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(src, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"link": "a.txt", "d/up": "../a.txt", "d/abs": strings.Repeat("/long", 100)}
	for name, target := range want {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	return src, want
}

// TestEntriesListLinkTargets: Entries shows the targets of the links zip
// -y, 7zz -snl and Go's writer store as data.
func TestEntriesListLinkTargets(t *testing.T) {
	makers := map[string]func(t *testing.T) ([]byte, map[string]string){
		"go": func(t *testing.T) ([]byte, map[string]string) {
			want := map[string]string{"link": "a.txt", "deflated": strings.Repeat("ab/", 300)}
			return buildZip(t, []testFile{
				{name: "a.txt", data: []byte("alpha"), method: 8},
				{name: "link", data: []byte(want["link"]), mode: os.ModeSymlink | 0o777},
				{name: "deflated", data: []byte(want["deflated"]), method: 8, mode: os.ModeSymlink | 0o777},
			}, ""), want
		},
		"zip -y": func(t *testing.T) ([]byte, map[string]string) {
			zip := testenv.Tool(t, "zip")
			src, want := linkTree(t)
			arc := filepath.Join(t.TempDir(), "l.zip")
			cmd := exec.Command(zip, "-qry", arc, ".")
			cmd.Dir = src
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("zip: %v\n%s", err, out)
			}
			b, err := os.ReadFile(arc)
			if err != nil {
				t.Fatal(err)
			}
			return b, want
		},
		"7zz -snl": func(t *testing.T) ([]byte, map[string]string) {
			zz := testenv.SevenZip(t)
			src, want := linkTree(t)
			arc := filepath.Join(t.TempDir(), "l.zip")
			cmd := exec.Command(zz, "a", "-tzip", "-snl", "-bd", "-bso0", arc, ".")
			cmd.Dir = src
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz: %v\n%s", err, out)
			}
			b, err := os.ReadFile(arc)
			if err != nil {
				t.Fatal(err)
			}
			return b, want
		},
	}
	for name, mk := range makers {
		t.Run(name, func(t *testing.T) {
			b, want := mk(t)
			rd, err := openBytes(t, b, "")
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			got := linkTargets(rd)
			if len(got) != len(want) {
				t.Errorf("links %v, want %v", got, want)
			}
			for name, target := range want {
				if got[name] != target {
					t.Errorf("%s -> %q, want %q", name, got[name], target)
				}
			}
		})
	}
}

// TestEntriesLeaveLinkTargets: links too large or encrypted keep an empty
// target (Extract fills it), and deciding so reads and allocates nothing.
func TestEntriesLeaveLinkTargets(t *testing.T) {
	huge := strings.Repeat("x/", maxListedLinkTarget/2+1)
	cases := map[string]struct {
		zip      func(t *testing.T) []byte
		password string
		target   string
	}{
		"huge": {zip: func(t *testing.T) []byte {
			return buildZip(t, []testFile{{name: "big", data: []byte(huge), method: 8, mode: os.ModeSymlink | 0o777}}, "")
		}, target: huge},
		"encrypted": {zip: func(t *testing.T) []byte {
			zz := testenv.SevenZip(t)
			src := t.TempDir()
			if err := os.Symlink("target", filepath.Join(src, "secret")); err != nil {
				t.Fatal(err)
			}
			arc := filepath.Join(t.TempDir(), "e.zip")
			cmd := exec.Command(zz, "a", "-tzip", "-snl", "-ppw", "-bd", "-bso0", arc, "secret")
			cmd.Dir = src
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz: %v\n%s", err, out)
			}
			b, err := os.ReadFile(arc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, password: "pw", target: "target"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := c.zip(t)
			asked := false
			rd, err := newReader(bytes.NewReader(b), int64(len(b)), nil, &archive.Options{Password: func() (string, error) {
				asked = true
				return c.password, nil
			}})
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
			if asked {
				t.Error("a password was asked for")
			}
			for name, target := range linkTargets(rd) {
				if target != "" {
					t.Errorf("%s -> %.40q listed", name, target)
				}
			}
			got, err := readAll(rd)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("extracted %d entries", len(got))
			}
			for name, target := range got {
				if string(target) != c.target {
					t.Errorf("extracted %s -> %.40q, want %.40q", name, target, c.target)
				}
			}
		})
	}
}
