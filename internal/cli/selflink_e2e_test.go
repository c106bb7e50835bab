package cli

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardLinkToItself (issue 23, point 4): "echo hi > f; tar cf t.tar f
// f" stores f, then f as a hard link to f. garc x and e left a
// .garc-XXXXXXXX.tmp beside f (a link renamed onto its own file stays),
// and without -y called f an existing file. The second entry is f as it
// stands: exit 0, f alone in the destination with its content, with -y
// and without, and with a hard link entry repeated.
func TestHardLinkToItself(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "f", Mode: 0o644, Size: 3, Typeflag: tar.TypeReg})
	tw.Write([]byte("hi\n"))
	tw.WriteHeader(&tar.Header{Name: "f", Linkname: "f", Mode: 0o644, Typeflag: tar.TypeLink})
	tw.WriteHeader(&tar.Header{Name: "g", Linkname: "f", Mode: 0o644, Typeflag: tar.TypeLink})
	tw.WriteHeader(&tar.Header{Name: "g", Linkname: "f", Mode: 0o644, Typeflag: tar.TypeLink})
	tw.Close()
	writeTree(t, dir, map[string]string{"t.tar": buf.String()})
	for i, args := range [][]string{
		{"x", "t.tar", "-y"},
		{"x", "t.tar"},
		{"e", "t.tar", "-y"},
		{"e", "t.tar"},
	} {
		out := filepath.Join(dir, "out"+string(rune('0'+i)))
		what := strings.Join(args, " ")
		r := garc(t, dir, "", append(args, "-o", out, "-bd")...)
		r.expect(t, ExitOK, what)
		if r.stderr != "Everything is Ok: 4 files, 0 folders, 3 bytes\n" {
			t.Errorf("%s: stderr %q", what, r.stderr)
		}
		ents, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "f g" {
			t.Errorf("%s: the destination holds %q, want f and g", what, names)
		}
		for _, n := range []string{"f", "g"} {
			if b, err := os.ReadFile(filepath.Join(out, n)); err != nil || string(b) != "hi\n" {
				t.Errorf("%s: %s holds %q (%v)", what, n, b, err)
			}
		}
	}
}
