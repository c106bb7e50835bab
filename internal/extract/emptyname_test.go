package extract

import (
	"errors"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestEmptyDirectoryNameIsDestination: a directory entry whose name is
// empty ("", or "/" once its root is removed) names the destination
// itself, as GNU tar reads it ("."): nothing to create and nothing to
// refuse (garc refused it, exit 1). A file of that name is still refused.
func TestEmptyDirectoryNameIsDestination(t *testing.T) {
	for _, c := range []struct {
		name    string
		typ     archive.EntryType
		refused bool
	}{
		{"", archive.TypeDir, false},
		{"/", archive.TypeDir, false},
		{"./", archive.TypeDir, false},
		{"", archive.TypeFile, true},
		{"/", archive.TypeFile, true},
	} {
		f := newFixture(t, Options{})
		err := f.x.Write(&archive.Entry{Name: c.name, Type: c.typ, Size: -1}, nil)
		if refused := errors.Is(err, ErrRefused); refused != c.refused || !c.refused && err != nil {
			t.Errorf("%q (%v): %v; want refused %v", c.name, c.typ, err, c.refused)
		}
		if err := f.x.Finish(); err != nil && !c.refused {
			t.Errorf("%q (%v): Finish: %v", c.name, c.typ, err)
		}
	}
}
