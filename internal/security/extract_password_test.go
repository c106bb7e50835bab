package security

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// A run that ends with a wrong or missing password (exit 11) leaves
// nothing it created in the destination: no directories, no empty files
// of the unencrypted entries (issue 11, item 7).
func TestWrongPasswordLeavesNothing(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, u := range units {
		if u.Password == "" || u.Kind != "single" || u.Expect != "ok" {
			continue
		}
		for _, pw := range []string{"-pwrong-password", ""} {
			name := u.Unit + " " + pw
			t.Run(name, func(t *testing.T) {
				work := t.TempDir()
				// A destination that exists, with a file of the user's,
				// and one that garc creates.
				pre := filepath.Join(work, "pre")
				if err := os.MkdirAll(filepath.Join(pre, "mine"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(pre, "mine", "keep.txt"), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
				fresh := filepath.Join(work, "fresh", "dest")
				for _, dest := range []string{pre, fresh} {
					args := []string{"x", u.Path(root), "-o", dest}
					if pw != "" {
						args = append(args, pw)
					}
					r := runGarc(t, work, args...)
					if r.code != 11 {
						if pw != "" {
							t.Logf("exit %d, not a password failure: not checked", r.code)
						}
						return
					}
					checked++
					if dest == fresh {
						if _, err := os.Lstat(filepath.Join(work, "fresh")); !errors.Is(err, fs.ErrNotExist) {
							t.Errorf("exit 11 left the destination it created (%v)\n%s", err, r.stderr)
						}
						continue
					}
					var left []string
					filepath.WalkDir(pre, func(p string, d fs.DirEntry, err error) error {
						if err == nil && p != pre {
							rel, _ := filepath.Rel(pre, p)
							left = append(left, filepath.ToSlash(rel))
						}
						return nil
					})
					slices.Sort(left)
					if !slices.Equal(left, []string{"mine", "mine/keep.txt"}) {
						t.Errorf("exit 11 left %q in the destination\n%s", left, r.stderr)
					}
				}
			})
		}
	}
	if checked == 0 {
		t.Error("no unit failed with a password error")
	}
	t.Logf("%d runs ended with exit 11 and were checked", checked)
}
