package cli

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// Issue 23, point 13: data.xz holding a tar without its end blocks and
// then other bytes is a valid .xz: t, l and x read it as one file with a
// warning (exit 1) that says where the tar broke off, as 7zz reads it
// (exit 0), and x writes nothing of the tar; named data.tar.xz it is a
// damaged tar (exit 2), and so it is from a pipe, read once.
func TestTarInsideCompressedFileE2E(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": strings.Repeat("alpha\n", 2000), "src/b.txt": "beta\n"})
	tarCmd := exec.Command(testenv.Tool(t, "tar"), "cf", "-", "src")
	tarCmd.Dir = dir
	tarData, err := tarCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.TrimRight(tarData, "\x00")
	content = content[:(len(content)+511)&^511] // the last member's padding, no end blocks
	other := make([]byte, 100<<10)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range other {
		other[i] = byte(r.Uint32())
	}
	content = append(content, other...)
	xzCmd := exec.Command(testenv.Tool(t, "xz"), "-c", "-T1")
	xzCmd.Stdin = bytes.NewReader(content)
	comp, err := xzCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "data.xz"), comp, 0o644)
	os.WriteFile(filepath.Join(dir, "data.tar.xz"), comp, 0o644)
	const warning = "data.xz: its content begins like a tar but is not one (at offset "
	for _, args := range [][]string{{"t", "data.xz"}, {"l", "data.xz"}, {"x", "data.xz", "-oout"}} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitWarning, strings.Join(args, " "))
		if !strings.Contains(r.stderr, warning) || !strings.Contains(r.stderr, "header checksum mismatch): read as one xz file") {
			t.Errorf("%s: stderr %q", strings.Join(args, " "), r.stderr)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	got, err := os.ReadFile(filepath.Join(dir, "out", "data"))
	if len(entries) != 1 || err != nil || !bytes.Equal(got, content) {
		t.Fatalf("x wrote %d entries, data of %d bytes (%v), want only data of %d bytes", len(entries), len(got), err, len(content))
	}
	sevenZip(t, dir, "t", "data.xz")
	for _, args := range [][]string{{"t", "data.tar.xz"}, {"t", "-"}} {
		stdin := ""
		if args[1] == "-" {
			stdin = string(comp)
		}
		r := garc(t, dir, stdin, args...)
		r.expect(t, ExitFatal, strings.Join(args, " "))
		if !strings.Contains(r.stderr, "of the decompressed tar: tar: header checksum mismatch") {
			t.Errorf("%s: stderr %q", strings.Join(args, " "), r.stderr)
		}
	}
}
