package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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

// Raw writes (outFile.raw) write the whole content and report errors as
// unix.Write does; localWrites takes local file systems only.
func TestRawWrites(t *testing.T) {
	if !localWrites(unix.TMPFS_MAGIC) || !localWrites(unix.EXT4_SUPER_MAGIC) {
		t.Error("tmpfs or ext4 not taken for raw writes")
	}
	if localWrites(unix.NFS_SUPER_MAGIC) || localWrites(unix.FUSE_SUPER_MAGIC) || localWrites(unix.CIFS_SUPER_MAGIC) {
		t.Error("a network file system or FUSE taken for raw writes")
	}
	if runtime.GOMAXPROCS(0) < 2 { // Write is raw with several Ps only
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	dest := t.TempDir()
	h := newDirHandle()
	defer h.close()
	h.raw = true
	f, err := h.create(tempKey{dir: dest, name: "a"}, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if !f.raw {
		t.Fatal("file of a raw dirHandle not written raw")
	}
	data := testenv.MixedData(t, 3<<20+17)
	if n, err := f.Write(data); n != len(data) || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if n, err := f.Write(nil); n != 0 || err != nil {
		t.Fatalf("Write(nil): %d, %v", n, err)
	}
	mtime := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	if err := f.setTimes(time.Time{}, mtime); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dest, "a")); err != nil {
		t.Fatal(err)
	} else if !fi.ModTime().Equal(mtime) {
		t.Fatalf("modification time after setTimes: %v, want %v", fi.ModTime(), mtime)
	}
	got, err := os.ReadFile(filepath.Join(dest, "a"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("content differs (%d of %d bytes), %v", len(got), len(data), err)
	}
	// A descriptor open for reading only: the error is the system's, on
	// the file's path.
	fd, err := unix.Open(filepath.Join(dest, "a"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ro := outFile{fd: fd, key: tempKey{dir: dest, name: "a"}, raw: true}
	_, err = ro.Write([]byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Err != unix.EBADF || !strings.HasSuffix(pe.Path, "a") {
		t.Errorf("Write on a read-only descriptor: %v, want EBADF on the file", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
}
