package unpack5

import (
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// TestCorpus decodes every compressed file of the single-volume,
// unencrypted RAR5 corpus archives and compares it with the listing.
func TestCorpus(t *testing.T) {
	keep := func(f rartest.File) bool { return !f.Dir && f.Method != 0 && !f.Split }
	units := rartest.Units(t, func(format, path string) ([]rartest.File, error) {
		if format != "rar5" {
			return nil, nil
		}
		return rartest.WalkRAR5(path)
	}, keep)
	rartest.CheckUnits(t, units, []string{rartest.ViaWriteTo}, keep, func() rartest.Resetter { return tester{NewDecoder()} }, 20)
}
