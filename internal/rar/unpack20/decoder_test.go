package unpack20

import (
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// corpusFiles returns the unencrypted single-volume RAR 1.5-4.x corpus
// units that are expected to extract and hold version 20/26 members, with
// the listing's sha256 of each file.
func corpusFiles(t testing.TB) []rartest.Unit {
	return rartest.Units(t, func(format, path string) ([]rartest.File, error) {
		if format != "rar4" && format != "rar1.5-2" {
			return nil, nil
		}
		return rartest.WalkRAR4(path)
	}, func(f rartest.File) bool { return isV20(f) && !f.Encrypted })
}

// TestCorpus decodes every version 20/26 file of the unencrypted
// single-volume corpus archives and compares it with the listing, reading
// through Read, one byte at a time, and WriteTo.
func TestCorpus(t *testing.T) {
	rartest.CheckUnits(t, corpusFiles(t), []string{rartest.ViaRead, rartest.ViaOneByte, rartest.ViaWriteTo},
		func(f rartest.File) bool { return isV20(f) && !f.Split }, func() rartest.Resetter { return tester{NewDecoder()} }, 3)
}
