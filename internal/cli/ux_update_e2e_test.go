package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// `a` on a 7z self-extractor says it cannot be updated (garc would write a
// plain 7z archive under the .exe's name) instead of "not an archive",
// and leaves the file as it was.
func TestUpdateSelfExtractorRefused(t *testing.T) {
	stub, err := os.ReadFile(testenv.Tool(t, "true"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "a", "b.txt": "b"})
	garc(t, dir, "", "a", "-q", "plain.7z", "a.txt").expect(t, ExitOK, "a plain.7z")
	arc, err := os.ReadFile(filepath.Join(dir, "plain.7z"))
	if err != nil {
		t.Fatal(err)
	}
	sfx := append(stub, arc...)
	if err := os.WriteFile(filepath.Join(dir, "sfx.exe"), sfx, 0o755); err != nil {
		t.Fatal(err)
	}
	garc(t, dir, "", "l", "sfx.exe").expect(t, ExitOK, "l sfx.exe")
	for _, args := range [][]string{{"a", "sfx.exe", "b.txt"}, {"d", "sfx.exe", "a.txt"}} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitFatal, strings.Join(args, " "))
		if !strings.Contains(r.stderr, "self-extracting archives cannot be updated") {
			t.Errorf("%q: %q", args, r.stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "sfx.exe")); !bytes.Equal(b, sfx) {
			t.Errorf("%q changed the self-extractor", args)
		}
	}
}
