package unpack3

import (
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// TestCorpus decodes every version 2.9 file of the single-volume RAR4
// corpus archives without encrypted data and compares it with the listing.
func TestCorpus(t *testing.T) {
	keep := func(f rartest.File) bool { return !f.Dir && f.Method != 0x30 && !f.Split && f.Version == 29 }
	units := rartest.Units(t, func(format, path string) ([]rartest.File, error) {
		if format != "rar4" {
			return nil, nil
		}
		return rartest.WalkRAR4(path)
	}, keep)
	rartest.CheckUnits(t, units, []string{rartest.ViaWriteTo}, keep, func() rartest.Resetter { return tester{NewDecoder()} }, 15)
}
