package unpack3

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
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
		files, err := walkRAR4(u.Path(root))
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
				if f.dir || f.method == 0x30 || f.split || f.unpVer != 29 {
					continue
				}
				if f.encrypted {
					return
				}
				if err := d.Reset(bytes.NewReader(f.data), Params{DictSize: f.dict, UnpackedSize: f.size, Solid: f.solid, Version: f.unpVer}); err != nil {
					t.Fatalf("%s: Reset: %v", f.name, err)
				}
				h := sha256.New()
				n, err := io.Copy(h, d)
				if err != nil {
					t.Fatalf("%s: after %d bytes: %v", f.name, n, err)
				}
				w, ok := want[f.name]
				if !ok {
					continue
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != w {
					t.Errorf("%s: sha256 mismatch", f.name)
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
