package unpack15

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

// isV15 reports whether a walked entry holds a version 1.5 (or 1.4)
// packed stream.
func isV15(f rartest.File) bool {
	return !f.Dir && f.Method != 0x30 && f.Version >= 10 && f.Version <= 15
}

// corpusFiles returns the version 1.5 members of the unencrypted
// single-volume RAR 1.4-4.x corpus units that are expected to extract,
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
		if u.Kind != "single" || u.Expected == "" || u.Expect != "ok" {
			continue
		}
		var files []rartest.File
		switch u.Format {
		case "rar4", "rar1.5-2":
			files, err = rartest.WalkRAR4(u.Path(root))
		case "rar1.4":
			files, err = rartest.WalkRAR14(u.Path(root))
		default:
			continue
		}
		if err != nil || len(files) == 0 {
			continue
		}
		use := false
		for _, f := range files {
			if isV15(f) && !f.Encrypted {
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

// TestCorpus decodes every version 1.5 file of the unencrypted
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
					if !isV15(f) || f.Split {
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
						t.Logf("%s: not in the listing", f.Name)
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

// TestSolidPartialRead reads only the start of each solid file but the
// last: Reset must decode and discard the rest, so that the last file
// still matches the listing.
func TestSolidPartialRead(t *testing.T) {
	units, want := corpusFiles(t)
	checked := 0
	for name, files := range units {
		var solid []rartest.File
		for _, f := range files {
			if isV15(f) && !f.Encrypted && !f.Split {
				solid = append(solid, f)
			}
		}
		if len(solid) < 2 || !solid[len(solid)-1].Solid {
			continue
		}
		d := NewDecoder()
		for i, f := range solid {
			if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
				t.Fatalf("%s/%s: %v", name, f.Name, err)
			}
			if i < len(solid)-1 {
				if _, err := io.ReadFull(d, make([]byte, min(f.Size, 10))); err != nil {
					t.Fatalf("%s/%s: %v", name, f.Name, err)
				}
				continue
			}
			h := sha256.New()
			if _, err := io.Copy(h, d); err != nil {
				t.Fatalf("%s/%s: %v", name, f.Name, err)
			}
			if hex.EncodeToString(h.Sum(nil)) != want[name][f.Name] {
				t.Errorf("%s/%s: sha256 mismatch", name, f.Name)
			}
			checked++
		}
		d.Close()
	}
	if checked == 0 {
		t.Error("no solid samples")
	}
}
