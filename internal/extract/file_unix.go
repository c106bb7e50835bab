//go:build unix

package extract

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/tempname"
)

// Output files are written with plain system calls on a raw descriptor:
// an os.File registers every file with the runtime's network poller
// (epoll_ctl, which fails for regular files, and fcntl calls around it)
// and os.Rename stats the new name first. For archives of many small
// files those calls were half of the per-file system calls (issue 13).

// outFile is a temporary output file open for writing.
type outFile struct {
	fd   int
	path string
}

// createTemp makes a new file ".garc-XXXXXXXX.tmp" in dir with O_EXCL and
// O_NOFOLLOW, trying fresh names while one exists.
func createTemp(dir string, perm fs.FileMode) (outFile, error) {
	for i := 0; ; i++ {
		p := tempname.In(dir)
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		switch {
		case err == nil:
			return outFile{fd: fd, path: p}, nil
		case err == unix.EINTR, err == unix.EEXIST && i <= 100:
			continue
		}
		return outFile{fd: -1}, &fs.PathError{Op: "open", Path: p, Err: err}
	}
}

// Write writes all of b.
func (o outFile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := unix.Write(o.fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: o.path, Err: err}
		}
		if k == 0 {
			return n, &fs.PathError{Op: "write", Path: o.path, Err: unix.EIO}
		}
		n += k
	}
	return n, nil
}

// Close closes the descriptor.
func (o outFile) Close() error {
	if err := unix.Close(o.fd); err != nil && err != unix.EINTR {
		return &fs.PathError{Op: "close", Path: o.path, Err: err}
	}
	return nil
}

// renameFile renames oldpath to newpath, replacing a file or link there
// (never following it), without os.Rename's stat of newpath: callers have
// examined newpath already.
func renameFile(oldpath, newpath string) error {
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
func lstatType(p string) (fs.FileMode, error) {
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
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0, nil
	case unix.S_IFDIR:
		return fs.ModeDir, nil
	case unix.S_IFLNK:
		return fs.ModeSymlink, nil
	}
	return fs.ModeIrregular, nil
}
