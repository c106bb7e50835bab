package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestRARIncompleteVolumeSet: a RAR volume set with a middle or the last
// volume missing is a fatal error (exit 2) for l, t and x alike, and the
// message names the missing file; nothing is extracted.
func TestRARIncompleteVolumeSet(t *testing.T) {
	root := testenv.CorpusRoot(t)
	rels := []string{
		"files/rarfile/files__rar5-vols.part1.rar",
		"files/rarfile/files__rar5-vols.part2.rar",
		"files/rarfile/files__rar5-vols.part3.rar",
	}
	for _, missing := range []int{1, 2} {
		dir := t.TempDir()
		for i, rel := range rels {
			if i == missing {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				testenv.Missing(t, rel)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(rel)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want := filepath.Base(rels[missing])
		first := filepath.Base(rels[0])
		for _, args := range [][]string{{"l", first}, {"t", first}, {"x", first, "-o", "out"}} {
			r := runGarc(t, dir, args...)
			if r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Errorf("garc %q with %s missing: exit %d, want 2 and a message naming it\n%s", args, want, r.code, r.stderr)
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "out")); len(entries) > 0 {
			t.Errorf("with %s missing, x created %d entries", want, len(entries))
		}
	}
}

// TestRARLaterVolume: given a later volume of a complete set, l and t read
// the set from its first volume (as 7-Zip does for name.7z.002); with the
// first volume missing they exit 2 naming it.
func TestRARLaterVolume(t *testing.T) {
	root := testenv.CorpusRoot(t)
	rels := []string{
		"files/rarfile/files__rar3-vols.part1.rar",
		"files/rarfile/files__rar3-vols.part2.rar",
		"files/rarfile/files__rar3-vols.part3.rar",
	}
	dir := t.TempDir()
	for _, rel := range rels {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			testenv.Missing(t, rel)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	later := filepath.Base(rels[2])
	for _, cmd := range []string{"l", "t"} {
		if r := runGarc(t, dir, cmd, later); r.code != 0 {
			t.Errorf("garc %s %s: exit %d, want 0\n%s", cmd, later, r.code, r.stderr)
		}
	}
	first := filepath.Base(rels[0])
	if err := os.Remove(filepath.Join(dir, first)); err != nil {
		t.Fatal(err)
	}
	if r := runGarc(t, dir, "t", later); r.code != 2 || !strings.Contains(r.stderr, first) {
		t.Errorf("garc t %s without %s: exit %d, want 2 and a message naming it\n%s", later, first, r.code, r.stderr)
	}
}
