package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestRepeatedDiagnostics (issue 23, point 18): a .tar.gz cut short
// printed its error twice (for the entry, then as the archive's), and t
// --max-dict of a solid 7z block printed one identical line per file.
// Each cause is printed once, then counted.
func TestRepeatedDiagnostics(t *testing.T) {
	dir := t.TempDir()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for i := range 3 {
		data := make([]byte, 60<<10)
		rand.Read(data)
		content := hex.EncodeToString(data)
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%d.txt", i), Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg})
		tw.Write([]byte(content))
	}
	tw.Close()
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(tb.Bytes())
	gw.Close()
	files := map[string]string{"cut.tar.gz": gz.String()[:gz.Len()/2]}
	for i := range 8 {
		files[fmt.Sprintf("src/f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d of a solid block\n", i), 20000)
	}
	writeTree(t, dir, files)
	sevenZip(t, dir, "a", "-bd", "-mx5", "-md=16m", "-ms=on", "solid.7z", "src")

	for _, c := range []struct {
		args  []string
		code  int
		lines []string // the lines of stderr, each with its prefix
	}{
		{[]string{"x", "cut.tar.gz", "-oout1"}, ExitFatal, []string{"garc: cut.tar.gz: f"}},
		{[]string{"t", "cut.tar.gz"}, ExitFatal, []string{"garc: cut.tar.gz: f"}},
		{[]string{"x", "-so", "cut.tar.gz"}, ExitFatal, []string{"garc: cut.tar.gz: f"}},
		{[]string{"t", "--max-dict", "64k", "solid.7z"}, ExitLimit, []string{
			"garc: solid.7z: src/f0.txt: 7z block decoder memory",
			"garc: solid.7z: and 7 more files with the same error as src/f0.txt"}},
		{[]string{"x", "--max-dict", "64k", "solid.7z", "-oout2"}, ExitLimit, []string{
			"garc: solid.7z: src/f0.txt: 7z block decoder memory",
			"garc: solid.7z: and 7 more files with the same error as src/f0.txt"}},
	} {
		what := strings.Join(c.args, " ")
		r := garc(t, dir, "", append(c.args, "-bd", "-q")...)
		r.expect(t, c.code, what)
		got := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if len(got) != len(c.lines) {
			t.Errorf("%s: stderr has %d lines, want %d:\n%s", what, len(got), len(c.lines), r.stderr)
			continue
		}
		for i, prefix := range c.lines {
			if !strings.HasPrefix(got[i], prefix) {
				t.Errorf("%s: line %d is %q, want it to start with %q", what, i+1, got[i], prefix)
			}
		}
	}
}
