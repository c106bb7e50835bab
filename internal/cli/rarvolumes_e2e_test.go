package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestIncompleteRarSet (issue 23): x of a RAR volume set whose last
// volume is missing extracts every file whole in the volumes present, as
// unrar does, leaves nothing of the file that continues into the missing
// volume (not even a temporary file; an older copy of it on disk stays as
// it was) and exits 2 naming the missing volume; t tests what is present
// and fails the same way, and l lists the entries present and exits 2.
// With --keep-broken the cut file is kept (what the decoder gave of it),
// as for a checksum failure.
// Before, all three exited 2 having read nothing.
func TestIncompleteRarSet(t *testing.T) {
	root := testenv.CorpusRoot(t)
	const stem = "files/junrar/com__github__junrar__volumes__new-part__test-documents"
	dir := t.TempDir()
	for _, n := range []string{"1", "2"} {
		copyFile(t, filepath.Join(root, stem+".part"+n+".rar"), filepath.Join(dir, "docs.part"+n+".rar"))
	}
	list, err := corpus.Listing(root, "expected/junrar/com__github__junrar__volumes__new-part__test-documents.part1.rar.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range list {
		want[e.Path] = e.SHA256
	}
	// The volumes present hold five files whole and the start of
	// testPPT.ppt; the other three are in the missing docs.part3.rar.
	whole := []string{"testXML.xml", "testEXCEL.xls", "testHTML.html", "testOpenOffice2.odt", "testPDF.pdf"}
	const cut = "testPPT.ppt"
	missing := func(what string, r result) {
		t.Helper()
		r.expect(t, ExitFatal, what)
		if !strings.Contains(r.stderr, "docs.part3.rar is missing") {
			t.Errorf("%s: the error does not name docs.part3.rar: %q", what, r.stderr)
		}
	}

	out := filepath.Join(dir, "out")
	writeTree(t, out, map[string]string{cut: "an older copy"})
	r := garc(t, dir, "", "x", "-y", "-oout", "docs.part1.rar")
	missing("x", r)
	if !strings.Contains(r.stderr, cut+": continues in volume docs.part3.rar") {
		t.Errorf("x: the cut file is not named: %q", r.stderr)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(whole)+1 {
		t.Errorf("x left %d files, want the %d whole ones and the older %s", len(ents), len(whole), cut)
	}
	for _, name := range whole {
		b, err := os.ReadFile(filepath.Join(out, name))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != want[name] {
			t.Errorf("x: %s not extracted whole (%v)", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, cut)); string(b) != "an older copy" {
		t.Errorf("x changed the older %s on disk (%d bytes)", cut, len(b))
	}
	noTemps(t, out)

	r = garc(t, dir, "", "x", "-okb", "--keep-broken", "docs.part1.rar")
	missing("x --keep-broken", r)
	if _, err := os.Stat(filepath.Join(dir, "kb", cut)); err != nil {
		t.Errorf("x --keep-broken: the cut %s was not kept: %v", cut, err)
	}

	r = garc(t, dir, "", "t", "docs.part1.rar")
	missing("t", r)
	if !strings.Contains(r.stderr, "Sub items Errors: 1") || !strings.Contains(r.stderr, "Files: 6") {
		t.Errorf("t: %q", r.stderr)
	}

	r = garc(t, dir, "", "l", "docs.part1.rar")
	missing("l", r)
	for _, name := range append(whole, cut) {
		if !strings.Contains(r.stdout, name) {
			t.Errorf("l does not list %s:\n%s", name, r.stdout)
		}
	}
}
