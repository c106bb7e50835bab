//go:build !unix

package extract

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// dirHandle does the file operations of the extractor through package
// os; it has no state.
type dirHandle struct{}

func newDirHandle() *dirHandle { return &dirHandle{} }

// noteDest has nothing to note here: files are written through the
// scheduler's system calls (raw writes are Linux's).
func (*dirHandle) noteDest(string) {}

// close releases nothing.
func (*dirHandle) close() {}

// setTimes sets the access and modification times of the regular file p;
// a zero time is left unchanged.
func (*dirHandle) setTimes(p string, atime, mtime time.Time) error {
	return chtimesRange(p, atime, mtime)
}

// pathTimesNoFollow: setPathTimes follows a symbolic link here, so
// Finish examines each directory first.
const pathTimesNoFollow = false

// setPathTimes sets the access and modification times of the directory
// p; a zero time is left unchanged.
func setPathTimes(p string, atime, mtime time.Time) error { return chtimesRange(p, atime, mtime) }

// outFile is an output file open for writing: a temporary file, or a
// new file at its final name.
type outFile struct {
	*os.File
}

// create makes the new file k names with O_EXCL (createFile) and records
// it open in pending, for RemoveTemporaries to close before it removes
// it.
func (*dirHandle) create(k tempKey, perm fs.FileMode) (outFile, error) {
	f, err := createFile(k.path(), perm)
	if err == nil {
		pending.open(k, f)
	}
	return outFile{File: f}, err
}

// skip moves the file offset n bytes on without writing them: a hole
// where the file system makes one.
func (o outFile) skip(n int64) error {
	_, err := o.Seek(n, io.SeekCurrent)
	return err
}

// setSize sets the file's size (after a final skip).
func (o outFile) setSize(size int64) error { return o.Truncate(size) }

// setTimes is left to the path-based dirHandle.setTimes here.
func (outFile) setTimes(atime, mtime time.Time) error { return errors.ErrUnsupported }

// rename renames oldpath to newpath, replacing a file or link there
// (replaceFile).
func (*dirHandle) rename(oldpath, newpath string) error { return replaceFile(oldpath, newpath) }

// lstatType returns the type bits of the file at p, not following a link.
func (*dirHandle) lstatType(p string) (fs.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// open records f, the open temporary file p, for removeOf to close; a p
// no longer pending (removed meanwhile) is left alone.
func (t *temporaries) open(p tempKey, f *os.File) {
	t.mu.Lock()
	if tmp, ok := t.paths[p]; ok {
		tmp.f = f
		t.paths[p] = tmp
	}
	t.mu.Unlock()
}
