package unpack5

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

type corpusCase struct {
	unit  string
	files []rartest.File
	want  map[string]string // path -> sha256
}

func rar5Cases(t testing.TB) []corpusCase {
	root, ok := corpus.Root()
	if !ok {
		t.Skipf("corpus not found at %s", root)
	}
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, u := range units {
		if u.Format != "rar5" || u.Kind != "single" || u.Expected == "" || u.Expect != "ok" {
			continue
		}
		files, err := rartest.WalkRAR5(u.Path(root))
		if err != nil {
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
		cases = append(cases, corpusCase{unit: u.Unit, files: files, want: want})
	}
	return cases
}

// TestCorpus decodes every compressed file of the single-volume,
// unencrypted RAR5 corpus archives and compares it with the listing.
func TestCorpus(t *testing.T) {
	cases := rar5Cases(t)
	checked := 0
	for _, c := range cases {
		t.Run(c.unit[strings.LastIndex(c.unit, "/")+1:], func(t *testing.T) {
			d := NewDecoder()
			defer d.Close()
			for _, f := range c.files {
				if f.Dir || f.Method == 0 || f.Split {
					continue
				}
				if f.Encrypted {
					return // later solid files cannot be decoded either
				}
				if testing.Short() && f.Size > 256<<20 {
					t.Skipf("%s: %d bytes; skipped in -short mode", f.Name, f.Size)
				}
				err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version})
				if err != nil {
					t.Fatalf("%s: Reset: %v", f.Name, err)
				}
				h := sha256.New()
				n, err := io.Copy(h, d)
				if err != nil {
					t.Fatalf("%s: after %d bytes: %v", f.Name, n, err)
				}
				if f.Size >= 0 && n != f.Size {
					t.Fatalf("%s: got %d bytes, want %d", f.Name, n, f.Size)
				}
				want, ok := c.want[f.Name]
				if !ok {
					continue
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != want {
					t.Errorf("%s: sha256 %s, want %s", f.Name, got, want)
				}
				checked++
			}
		})
	}
	t.Logf("%d compressed files checked", checked)
	if checked < 20 {
		t.Errorf("only %d compressed files checked", checked)
	}
}
