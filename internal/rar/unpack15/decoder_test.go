package unpack15

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// isV15 reports whether a walked entry holds a version 1.5 (or 1.4)
// packed stream.
func isV15(f rartest.File) bool {
	return !f.Dir && f.Method != 0x30 && f.Version >= 10 && f.Version <= 15
}

// corpusFiles returns the unencrypted single-volume RAR 1.4-4.x corpus
// units that are expected to extract and hold version 1.5 members, with
// the listing's sha256 of each file.
func corpusFiles(t testing.TB) []rartest.Unit {
	return rartest.Units(t, func(format, path string) ([]rartest.File, error) {
		switch format {
		case "rar4", "rar1.5-2":
			return rartest.WalkRAR4(path)
		case "rar1.4":
			return rartest.WalkRAR14(path)
		}
		return nil, nil
	}, func(f rartest.File) bool { return isV15(f) && !f.Encrypted })
}

// TestCorpus decodes every version 1.5 file of the unencrypted
// single-volume corpus archives and compares it with the listing, reading
// through Read, one byte at a time, and WriteTo.
func TestCorpus(t *testing.T) {
	rartest.CheckUnits(t, corpusFiles(t), []string{rartest.ViaRead, rartest.ViaOneByte, rartest.ViaWriteTo},
		func(f rartest.File) bool { return isV15(f) && !f.Split }, func() rartest.Resetter { return tester{NewDecoder()} }, 3)
}

// TestSolidPartialRead reads only the start of each solid file but the
// last: Reset must decode and discard the rest, so that the last file
// still matches the listing.
func TestSolidPartialRead(t *testing.T) {
	checked := 0
	for _, u := range corpusFiles(t) {
		name := u.Name
		var solid []rartest.File
		for _, f := range u.Files {
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
			if hex.EncodeToString(h.Sum(nil)) != u.Want[f.Name] {
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
