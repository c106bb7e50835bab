package unpack3

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// TestCorpus decodes every version 2.9 file of the single-volume RAR4
// corpus archives without encrypted data and compares it with the listing.
func TestCorpus(t *testing.T) {
	root, ok := corpus.Root()
	if !ok {
		t.Skipf("corpus not found at %s", root)
	}
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, u := range units {
		if u.Format != "rar4" || u.Kind != "single" || u.Expected == "" || u.Expect != "ok" {
			continue
		}
		files, err := rartest.WalkRAR4(u.Path(root))
		if err != nil || len(files) == 0 {
			continue
		}
		exp, err := corpus.Listing(root, u.Expected)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range exp {
			if !e.IsDir && !e.IsSymlink {
				want[e.Path] = e.SHA256
			}
		}
		t.Run(filepath.Base(u.Unit), func(t *testing.T) {
			d := NewDecoder()
			defer d.Close()
			for _, f := range files {
				if f.Dir || f.Method == 0x30 || f.Split || f.Version != 29 {
					continue
				}
				if f.Encrypted {
					return
				}
				if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
					t.Fatalf("%s: Reset: %v", f.Name, err)
				}
				h := sha256.New()
				n, err := io.Copy(h, d)
				if err != nil {
					t.Fatalf("%s: after %d bytes: %v", f.Name, n, err)
				}
				w, ok := want[f.Name]
				if !ok {
					continue
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != w {
					t.Errorf("%s: sha256 mismatch", f.Name)
				}
				checked++
			}
		})
	}
	t.Logf("%d files checked", checked)
	if checked < 15 {
		t.Errorf("only %d files checked", checked)
	}
}
