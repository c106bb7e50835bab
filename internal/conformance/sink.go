package conformance

import (
	"github.com/garc-dev/garc/internal/extract"
)

var errRefused = extract.ErrRefused

// newSink returns the safe extractor writing into dest; existing files
// (archives that store a name twice) are replaced, as 7-Zip -y does.
func newSink(dest string, warn func(entry string, err error)) (*extract.Extractor, error) {
	return extract.New(extract.Options{Dest: dest, Overwrite: extract.OverwriteAll, Links: extract.LinksSafe, Warn: warn})
}
