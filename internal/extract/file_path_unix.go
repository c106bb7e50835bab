//go:build unix && !linux

package extract

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// dirHandle does the file operations of the extractor by path on systems
// other than Linux; it has no state.
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

// create makes the new file k names with O_EXCL and O_NOFOLLOW.
func (*dirHandle) create(k tempKey, perm fs.FileMode) (outFile, error) {
	p := k.path()
	for {
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		switch {
		case err == nil:
			return outFile{fd: fd, key: k}, nil
		case err == unix.EINTR:
			continue
		}
		return outFile{fd: -1}, &fs.PathError{Op: "open", Path: p, Err: err}
	}
}

// setTimes is left to the path-based dirHandle.setTimes here.
func (outFile) setTimes(atime, mtime time.Time) error { return errors.ErrUnsupported }

// rename renames oldpath to newpath, replacing a file or link there
// (never following it), without os.Rename's stat of newpath: callers have
// examined newpath already.
func (*dirHandle) rename(oldpath, newpath string) error {
	for {
		err := unix.Rename(oldpath, newpath)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		return nil
	}
}

// lstatType returns the type bits of the file at p, not following a link
// (fs.ErrNotExist when there is none), without allocating a FileInfo.
func (*dirHandle) lstatType(p string) (fs.FileMode, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(p, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		break
	}
	return typeOf(&st), nil
}
