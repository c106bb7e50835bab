package extract

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
	"golang.org/x/sys/unix"
)

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

// zeros reads n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// TestSparseEntryHoles: the zero runs of a sparse entry (tar's sparse
// files) become holes, the file ending in one included, so that a small
// tar of a huge sparse file does not fill the disk (garc wrote 9 GiB for
// a 10 KiB GNU tar; GNU tar and bsdtar make a sparse file). Other entries
// are written as they come.
func TestSparseEntryHoles(t *testing.T) {
	const hole = 64 << 20
	for _, sparse := range []bool{true, false} {
		f := newFixture(t, Options{})
		e := fileEntry("f")
		if sparse {
			e.MutableExtra().Sparse = true
		}
		r := io.MultiReader(&zeros{hole}, strings.NewReader("data"), &zeros{hole})
		if err := f.x.Write(e, r); err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(f.dest, "f"), &st); err != nil {
			t.Fatal(err)
		}
		if st.Size != 2*hole+4 {
			t.Errorf("sparse %v: size %d, want %d", sparse, st.Size, 2*hole+4)
		}
		if allocated := st.Blocks * 512; sparse && allocated > 1<<20 || !sparse && allocated < hole {
			t.Errorf("sparse %v: %d bytes allocated for %d", sparse, allocated, st.Size)
		}
		b, err := os.ReadFile(filepath.Join(f.dest, "f"))
		if err != nil || !bytes.Equal(b[hole:hole+4], []byte("data")) || !allZero(b[:hole]) || !allZero(b[hole+4:]) {
			t.Errorf("sparse %v: content differs (%v)", sparse, err)
		}
	}
}
