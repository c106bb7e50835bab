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

// close releases nothing.
func (*dirHandle) close() {}

// setTimes sets the access and modification times of the regular file p;
// a zero time is left unchanged.
func (*dirHandle) setTimes(p string, atime, mtime time.Time) error {
	return chtimesRange(p, atime, mtime)
}

// setPathTimes sets the access and modification times of the directory
// p; a zero time is left unchanged.
func setPathTimes(p string, atime, mtime time.Time) error { return chtimesRange(p, atime, mtime) }

// outFile is a temporary output file open for writing.
type outFile struct {
	*os.File
	path string
}

// create makes the new file p with O_EXCL (createFile) and records it
// open in pending, for RemoveTemporaries to close before it removes it.
func (*dirHandle) create(p string, perm fs.FileMode) (outFile, error) {
	f, err := createFile(p, perm)
	if err == nil {
		pending.open(p, f)
	}
	return outFile{File: f, path: p}, err
}

// renameNoReplace is not done here: the caller examines the name and
// renames.
func (*dirHandle) renameNoReplace(oldpath, dir, name string) error { return errors.ErrUnsupported }

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
func (t *temporaries) open(p string, f *os.File) {
	t.mu.Lock()
	if tmp, ok := t.paths[p]; ok {
		tmp.f = f
		t.paths[p] = tmp
	}
	t.mu.Unlock()
}
