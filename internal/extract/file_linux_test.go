package extract

import (
	"fmt"
	"github.com/garc-dev/garc/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// disableNoReplace makes x behave as on a file system without
// RENAME_NOREPLACE: every name is examined before its rename.
func disableNoReplace(x *Extractor) { x.at.noReplaceUnsupported = true }

// The directory descriptors kept open are bounded, however many
// directories the entries go round, and Finish closes them.
func TestDirectoryDescriptorsBounded(t *testing.T) {
	dest := t.TempDir()
	// open counts the descriptors of the process that refer to dest
	// or below (other tests' descriptors come and go meanwhile).
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			testenv.Missing(t, "/proc/self/fd ("+err.Error()+")")
		}
		n := 0
		for _, e := range ents {
			p, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
			if err == nil && (p == dest || strings.HasPrefix(p, dest+"/")) {
				n++
			}
		}
		return n
	}
	x, err := New(Options{Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if err := x.Write(&archive.Entry{Name: fmt.Sprintf("d%d/f%d", i%100, i), Type: archive.TypeFile}, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	if n := open(); n != dirCacheSize {
		t.Errorf("%d descriptors open while writing, want %d", n, dirCacheSize)
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Errorf("%d descriptors open after Finish", n)
	}
}
