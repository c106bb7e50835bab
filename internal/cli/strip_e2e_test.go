package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// gnuTar runs GNU tar in dir.
func gnuTar(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, "tar"), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar %q: %v\n%s", args, err, out)
	}
}

// TestStripComponentsAsGNUTar extracts a tar of a release directory with
// --strip-components 0, 1 and 2 and compares the trees with GNU tar's of
// the same tar: files, directories, a symbolic link (its target text
// kept) and a hard link (its target's name stripped too). The same tree
// comes out of a 7z, a ZIP and a .tar.gz read from standard input, and
// extracting into "." as CI does.
func TestStripComponentsAsGNUTar(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"project-1.2.3/README":         "read me\n",
		"project-1.2.3/src/a.c":        "int a;\n",
		"project-1.2.3/src/lib/b.c":    "int b;\n",
		"project-1.2.3/docs/empty/.k":  "",
		"project-1.2.3/src/lib/deep.h": "#define DEEP\n",
	})
	os.Remove(filepath.Join(dir, "project-1.2.3/docs/empty/.k"))
	if err := os.Symlink("a.c", filepath.Join(dir, "project-1.2.3/src/cur")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "project-1.2.3/src/a.c"), filepath.Join(dir, "project-1.2.3/src/hl")); err != nil {
		t.Fatal(err)
	}
	gnuTar(t, dir, "cf", "rel.tar", "project-1.2.3")
	for _, n := range []int{0, 1, 2} {
		ns := strconv.Itoa(n)
		gt := filepath.Join(dir, "gnu"+ns)
		os.Mkdir(gt, 0o755)
		gnuTar(t, dir, "xf", "rel.tar", "-C", gt, "--strip-components="+ns)
		gx := filepath.Join(dir, "garc"+ns)
		garc(t, dir, "", "x", "rel.tar", "-o", gx, "--strip-components", ns).expect(t, ExitOK, "--strip-components "+ns)
		want, got := readTree(t, gt), readTree(t, gx)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--strip-components %d: garc %s\nGNU tar %s", n, keys(got), keys(want))
		}
		if n > 0 {
			a, _ := os.Stat(filepath.Join(gx, "src/a.c"[len("src/")*(n-1):]))
			h, _ := os.Stat(filepath.Join(gx, "src/hl"[len("src/")*(n-1):]))
			if a == nil || h == nil || !os.SameFile(a, h) {
				t.Errorf("--strip-components %d: the hard link is not one", n)
			}
		}
	}

	// Without links, every format gives GNU tar's tree.
	os.Remove(filepath.Join(dir, "project-1.2.3/src/cur"))
	os.Remove(filepath.Join(dir, "project-1.2.3/src/hl"))
	gnuTar(t, dir, "czf", "plain.tar.gz", "project-1.2.3")
	gt := filepath.Join(dir, "gnu-plain")
	os.Mkdir(gt, 0o755)
	gnuTar(t, dir, "xzf", "plain.tar.gz", "-C", gt, "--strip-components=1")
	want := readTree(t, gt)
	sevenZip(t, dir, "a", "-bd", "plain.7z", "project-1.2.3")
	sevenZip(t, dir, "a", "-bd", "-tzip", "plain.zip", "project-1.2.3")
	for _, name := range []string{"plain.7z", "plain.zip"} {
		out := filepath.Join(dir, "x-"+name)
		garc(t, dir, "", "x", name, "-o", out, "--strip-components=1").expect(t, ExitOK, name)
		if got := readTree(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s, want %s", name, keys(got), keys(want))
		}
	}
	tgz, _ := os.ReadFile(filepath.Join(dir, "plain.tar.gz"))
	ci := filepath.Join(dir, "ci")
	os.Mkdir(ci, 0o755)
	garc(t, ci, string(tgz), "x", "-", "--strip-components", "1").expect(t, ExitOK, "x - into .")
	if got := readTree(t, ci); !reflect.DeepEqual(got, want) {
		t.Errorf("x - --strip-components 1 into .: %s, want %s", keys(got), keys(want))
	}
}

// TestStripComponentsRefusals: a hard link whose target's name is
// stripped away is refused with a warning (exit 1; GNU tar fails it,
// bsdtar skips it), and a negative count or -so is a usage error.
func TestStripComponentsRefusals(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"top": "top", "p/a": "A"})
	os.Link(filepath.Join(dir, "top"), filepath.Join(dir, "p/h"))
	gnuTar(t, dir, "cf", "t.tar", "top", "p")
	r := garc(t, dir, "", "x", "t.tar", "-o", "out", "--strip-components", "1")
	r.expect(t, ExitWarning, "hard link to a stripped name")
	if got := readTree(t, filepath.Join(dir, "out")); !reflect.DeepEqual(got, map[string]string{"a": "A"}) {
		t.Errorf("extracted %s", keys(got))
	}
	garc(t, dir, "", "x", "t.tar", "--strip-components", "-1").expect(t, ExitUsage, "negative")
	garc(t, dir, "", "x", "-so", "t.tar", "--strip-components", "1").expect(t, ExitUsage, "with -so")
}
