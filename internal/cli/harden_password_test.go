package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestPasswordFailureLeavesNothing extracts data-encrypted archives (a 7z
// with directories and an empty file, the corpus's RAR4 and RAR5
// encrypted_filesOnly units) without the password and with a wrong one:
// exit 11, and the destination holds nothing this run created — neither
// when garc made the destination nor when it existed already.
func TestPasswordFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	arcs := []string{makeArchive(t, dir, "enc.7z", "-psecret")}
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if strings.Contains(u.Unit, "encrypted_filesOnly") {
			arcs = append(arcs, u.Path(root))
		}
	}
	if len(arcs) < 3 {
		t.Fatalf("the corpus lacks the encrypted_filesOnly units: %q", arcs)
	}
	for _, arc := range arcs {
		for _, pw := range [][]string{nil, {"-pwrong"}} {
			for _, existing := range []bool{false, true} {
				out := filepath.Join(t.TempDir(), "out")
				if existing {
					os.Mkdir(out, 0o755)
				}
				args := append([]string{"x", arc, "-o", out}, pw...)
				garc(t, dir, "", args...).expect(t, ExitPassword, filepath.Base(arc)+" "+pw2s(pw))
				ents, err := os.ReadDir(out)
				switch {
				case existing && err != nil:
					t.Errorf("%s %s: the existing destination was removed", filepath.Base(arc), pw2s(pw))
				case len(ents) > 0:
					t.Errorf("%s %s: left in the destination: %s", filepath.Base(arc), pw2s(pw), keys(readTree(t, out)))
				case !existing && err == nil:
					t.Errorf("%s %s: the destination this run created is left", filepath.Base(arc), pw2s(pw))
				}
			}
		}
	}
}

func pw2s(pw []string) string {
	if pw == nil {
		return "without password"
	}
	return pw[0]
}
