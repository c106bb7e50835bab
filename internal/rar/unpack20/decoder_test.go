package unpack20

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// corpusFiles returns the version 20/26 members of the unencrypted
// single-volume RAR 1.5-4.x corpus units that are expected to extract,
// with the listing's sha256 of each.
func corpusFiles(t testing.TB) (units map[string][]rartest.File, want map[string]map[string]string) {
	root, ok := corpus.Root()
	if !ok {
		t.Skipf("corpus not found at %s", root)
	}
	all, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	units = map[string][]rartest.File{}
	want = map[string]map[string]string{}
	for _, u := range all {
		if (u.Format != "rar4" && u.Format != "rar1.5-2") || u.Kind != "single" || u.Expected == "" || u.Expect != "ok" {
			continue
		}
		files, err := rartest.WalkRAR4(u.Path(root))
		if err != nil || len(files) == 0 {
			continue
		}
		use := false
		for _, f := range files {
			if (f.Version == 20 || f.Version == 26) && f.Method != 0x30 && !f.Dir && !f.Encrypted {
				use = true
			}
		}
		if !use {
			continue
		}
		exp, err := corpus.Listing(root, u.Expected)
		if err != nil {
			t.Fatal(err)
		}
		w := map[string]string{}
		for _, e := range exp {
			if !e.IsDir && !e.IsSymlink {
				w[e.Path] = e.SHA256
			}
		}
		name := filepath.Base(u.Unit)
		units[name] = files
		want[name] = w
	}
	return units, want
}

// TestCorpus decodes every version 20/26 file of the unencrypted
// single-volume corpus archives and compares it with the listing, reading
// through Read, one byte at a time, and WriteTo.
func TestCorpus(t *testing.T) {
	units, want := corpusFiles(t)
	checked := 0
	for name, files := range units {
		for _, mode := range []string{"read", "onebyte", "writeto"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				d := NewDecoder()
				defer d.Close()
				for _, f := range files {
					if f.Dir || f.Method == 0x30 || f.Split || (f.Version != 20 && f.Version != 26) {
						continue
					}
					if f.Encrypted {
						return
					}
					if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
						t.Fatalf("%s: Reset: %v", f.Name, err)
					}
					h := sha256.New()
					var n int64
					var err error
					switch mode {
					case "read":
						n, err = io.Copy(h, struct{ io.Reader }{d})
					case "onebyte":
						n, err = io.Copy(h, iotest.OneByteReader(d))
					default:
						n, err = d.WriteTo(h)
					}
					if err != nil {
						t.Fatalf("%s: after %d bytes: %v", f.Name, n, err)
					}
					if n != f.Size {
						t.Fatalf("%s: %d bytes, want %d", f.Name, n, f.Size)
					}
					w, ok := want[name][f.Name]
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
	}
	t.Logf("%d files checked", checked)
	if checked < 3 {
		t.Errorf("only %d files checked", checked)
	}
}
