package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestPlainTarCutShort: a plain tar cut inside its last file's data is
// read once, as a compressed one is: x writes the files before the cut
// and leaves nothing of the one it cuts, t tests those before it, and
// both report the cut entry (exit 2). Before, opening such a tar read
// all its headers first and failed, and nothing was extracted.
func TestPlainTarCutShort(t *testing.T) {
	tar := testenv.RepeatTar(100000, "a", "b", "c")
	dir := t.TempDir()
	arc := filepath.Join(dir, "cut.tar")
	if err := os.WriteFile(arc, tar[:len(tar)-60000], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{{"x", "-o" + out, arc}, {"t", arc}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(args, "-q"), strings.NewReader(""), &stdout, &stderr)
		if code != ExitFatal || !strings.Contains(stderr.String(), "c: ") || !strings.Contains(stderr.String(), "unexpected end of data") {
			t.Errorf("%q: exit %d, %q; want %d naming c", args, code, stderr.String(), ExitFatal)
		}
	}
	for _, name := range []string{"a", "b"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != strings.Repeat(name, 100000) {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	if _, err := os.Lstat(filepath.Join(out, "c")); !os.IsNotExist(err) {
		t.Errorf("the cut entry c was left: %v", err)
	}
}
