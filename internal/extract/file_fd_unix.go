//go:build unix

package extract

import (
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// Output files are written with plain system calls on a raw descriptor:
// an os.File registers every file with the runtime's network poller
// (epoll_ctl, which fails for regular files, and fcntl calls around it)
// and os.Rename stats the new name first. For archives of many small
// files those calls were half of the per-file system calls (issue 13).

// outFile is an output file open for writing: a temporary file, or a
// new file at its final name.
type outFile struct {
	fd  int
	key tempKey // its name, made into a path only for an error
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
			return n, &fs.PathError{Op: "write", Path: o.key.path(), Err: err}
		}
		if k == 0 {
			return n, &fs.PathError{Op: "write", Path: o.key.path(), Err: unix.EIO}
		}
		n += k
	}
	return n, nil
}

// skip moves the file offset n bytes on without writing them: a hole
// where the file system makes one.
func (o outFile) skip(n int64) error {
	if _, err := unix.Seek(o.fd, n, io.SeekCurrent); err != nil {
		return &fs.PathError{Op: "seek", Path: o.key.path(), Err: err}
	}
	return nil
}

// setSize sets the file's size (after a final skip).
func (o outFile) setSize(size int64) error {
	for {
		err := unix.Ftruncate(o.fd, size)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "truncate", Path: o.key.path(), Err: err}
		}
		return nil
	}
}

// Close closes the descriptor.
func (o outFile) Close() error {
	if err := unix.Close(o.fd); err != nil && err != unix.EINTR {
		return &fs.PathError{Op: "close", Path: o.key.path(), Err: err}
	}
	return nil
}

// typeOf maps the file-type bits of a stat result onto what the extractor
// tells apart: a regular file (0), a directory, a symbolic link, and
// anything else (irregular).
func typeOf(st *unix.Stat_t) fs.FileMode {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
