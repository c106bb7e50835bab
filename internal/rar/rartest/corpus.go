package rartest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/corpus"
)

// Unit is a single-volume corpus unit expected to extract: its walked
// files and the listing's sha256 of each regular file by path.
type Unit struct {
	Name  string // base name of the unit
	Files []File
	Want  map[string]string
}

// Units returns the single-volume corpus units expected to extract that
// walk understands (it gets the unit's format and path and returns no
// files for other formats) and that hold a file keep accepts.
func Units(tb testing.TB, walk func(format, path string) ([]File, error), keep func(File) bool) []Unit {
	tb.Helper()
	root := CorpusRoot(tb)
	all, err := corpus.Units(root)
	if err != nil {
		tb.Fatal(err)
	}
	var units []Unit
	for _, u := range all {
		if u.Kind != "single" || u.Expected == "" || u.Expect != "ok" {
			continue
		}
		files, err := walk(u.Format, u.Path(root))
		if err != nil || len(files) == 0 {
			continue
		}
		use := false
		for _, f := range files {
			use = use || keep(f)
		}
		if !use {
			continue
		}
		exp, err := corpus.Listing(root, u.Expected)
		if err != nil {
			tb.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range exp {
			if !e.IsDir && !e.IsSymlink {
				want[e.Path] = e.SHA256
			}
		}
		units = append(units, Unit{Name: filepath.Base(u.Unit), Files: files, Want: want})
	}
	return units
}

// Ways to read a decoder's output in CheckUnits.
const (
	ViaRead    = "read"    // Read calls of any size (io.Copy without WriteTo)
	ViaOneByte = "onebyte" // one-byte Read calls
	ViaWriteTo = "writeto" // WriteTo
)

// CheckUnits decodes the files that keep accepts of each unit, in order
// with a new decoder per unit, reading them in each of the ways given,
// and compares them with the listing: a decoding error or a wrong known
// size is fatal for the unit, and an encrypted file ends it (the solid
// files after it could not be decoded either). Files over 256 MiB skip the
// unit in -short mode. It fails when fewer than atLeast files matched the
// listing.
func CheckUnits(t *testing.T, units []Unit, ways []string, keep func(File) bool, newDecoder func() Resetter, atLeast int) {
	checked := 0
	for _, u := range units {
		for _, way := range ways {
			t.Run(u.Name+"/"+way, func(t *testing.T) {
				d := newDecoder()
				defer d.Close()
				for _, f := range u.Files {
					if !keep(f) {
						continue
					}
					if f.Encrypted {
						return
					}
					if testing.Short() && f.Size > 256<<20 {
						t.Skipf("%s: %d bytes; skipped in -short mode", f.Name, f.Size)
					}
					if err := d.ResetFile(bytes.NewReader(f.Data), f); err != nil {
						t.Fatalf("%s: Reset: %v", f.Name, err)
					}
					h := sha256.New()
					var n int64
					var err error
					switch way {
					case ViaRead:
						n, err = io.Copy(h, struct{ io.Reader }{d})
					case ViaOneByte:
						n, err = io.Copy(h, iotest.OneByteReader(d))
					default:
						n, err = d.(io.WriterTo).WriteTo(h)
					}
					if err != nil {
						t.Fatalf("%s: after %d bytes: %v", f.Name, n, err)
					}
					if f.Size >= 0 && n != f.Size {
						t.Fatalf("%s: %d bytes, want %d", f.Name, n, f.Size)
					}
					w, ok := u.Want[f.Name]
					if !ok {
						t.Logf("%s: not in the listing", f.Name)
						continue
					}
					if got := hex.EncodeToString(h.Sum(nil)); got != w {
						t.Errorf("%s: sha256 %s, want %s", f.Name, got, w)
					}
					checked++
				}
			})
		}
	}
	t.Logf("%d files checked", checked)
	if checked < atLeast {
		t.Errorf("only %d files checked", checked)
	}
}

// Samples walks the corpus files rels (paths relative to the corpus root)
// and returns their files that keep accepts; the test is skipped when the
// corpus is absent and fails when a file does not walk.
func Samples(tb testing.TB, walk func(path string) ([]File, error), rels []string, keep func(File) bool) []File {
	tb.Helper()
	root := CorpusRoot(tb)
	var out []File
	for _, rel := range rels {
		files, err := walk(filepath.Join(root, rel))
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range files {
			if keep(f) {
				out = append(out, f)
			}
		}
	}
	return out
}
