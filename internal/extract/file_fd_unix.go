//go:build unix

package extract

import (
	"io"
	"io/fs"
	"runtime"
	"unsafe"

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
	// raw says the file system takes writes into the page cache
	// (dirHandle.raw): Write may then make its system calls raw.
	raw bool
}

// Write writes all of b.
func (o outFile) Write(b []byte) (int, error) {
	n := 0
	raw := o.rawCalls()
	for n < len(b) {
		var k int
		var err error
		if raw {
			k, err = rawWrite(o.fd, b[n:])
		} else {
			k, err = unix.Write(o.fd, b[n:])
		}
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

// Raw writes. A write(2) of a few hundred KiB into the page cache takes
// longer than a tick of the runtime's system monitor (20 µs): through
// unix.Write, which tells the scheduler it enters a system call, the
// monitor takes the writing goroutine's P away while the other P decodes
// (retake), hands it to a spinning thread that finds nothing to do, and
// the writer takes a P back when the call returns; the monitor, finding
// a P to retake at nearly every tick, never slows down from its 20 µs
// ticks. For garc x of a 100 MB .tar.zst that was about 800 sleeps of the
// monitor and 1,800 context switches instead of 200 and 650 (issue 27).
// With more than one P, Write makes the call raw (RawSyscall): the P stays
// with the writer for its duration, as a thread of bsdtar keeps its
// CPU, and the other P goes on decoding. Only where writes do not wait
// for anything but the local disk (dirHandle.raw: tmpfs, ext4, xfs,
// btrfs and the like, not NFS or FUSE), so that a P is held for at most
// a flush's throttling, and never with one P, where the call's P is the
// decoder's only chance to run meanwhile.

// For a tree of small files the other calls of a file (openat, futimens,
// close) are raw too on such a file system: garc x of the 10,021 files of
// srctree.tar.zst to tmpfs took 0.92 +-0.05 of the CPU time with them.

// rawCalls reports whether the file's system calls are raw now.
func (o outFile) rawCalls() bool { return o.raw && runtime.GOMAXPROCS(0) > 1 }

// rawWrite is write(2) as a raw system call.
func rawWrite(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
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
	var err error
	if o.rawCalls() {
		if _, _, errno := unix.RawSyscall(unix.SYS_CLOSE, uintptr(o.fd), 0, 0); errno != 0 {
			err = errno
		}
	} else {
		err = unix.Close(o.fd)
	}
	if err != nil && err != unix.EINTR {
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
