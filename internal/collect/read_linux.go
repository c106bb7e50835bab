package collect

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// openFile opens the file at path for reading with open(2) alone and
// returns a fileReader of its descriptor.
//
// os.Open costs five system calls more per file than open(2): Go tries
// to add every file to its network poller (two fcntl to set O_NONBLOCK,
// an epoll_ctl that a regular file fails, two fcntl to clear it again).
// At a few thousand small files (a source tree) those were about a tenth
// of the CPU time of `garc a x.tar`.
//
// The file is opened with O_NONBLOCK, as GNU tar opens the files it
// archives: a regular file ignores it, and a name that has become a FIFO
// or a terminal since it was collected neither blocks at the open nor
// blocks a read (which returns EOF or EAGAIN) instead of waiting for a
// writer that never comes.
func openFile(path string) (io.ReadCloser, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &fileReader{fd: fd, path: path, raw: runtime.GOMAXPROCS(0) == 1}, nil
}

// fileReader reads a file opened by openFile. With raw set (the runtime
// had one processor, P, at the open, as `garc a --threads 1` keeps it)
// each read(2) is issued as a raw system call, which the Go scheduler
// does not see.
//
// The runtime treats every read system call as possibly blocking: once
// one has taken 20 µs (a 256 KiB read takes about 100 µs), its monitor
// thread takes the P away and starts another thread with it, and the
// reading goroutine, back from the kernel without a P, waits to be
// picked up by that thread. With one P that happens at every read, and
// at mx1 `garc a` read 32 MiB with about 600 context switches (7zz: 5)
// and spent about 1.5 % more CPU time than with reads that keep the P
// (docs/PERFORMANCE.md). A read of a file opened with O_NONBLOCK does not
// wait on anything but the disk, so a raw read keeps the P through it;
// with more than one P the runtime lends an idle one to other goroutines
// during a read, so the plain read is kept.
type fileReader struct {
	fd   int // -1 once closed
	path string
	raw  bool
}

// maxRead bounds one read, as os.File does (Linux returns at most
// 0x7ffff000 bytes per call).
const maxRead = 1 << 30

func (r *fileReader) Read(p []byte) (int, error) {
	if r.fd < 0 {
		return 0, &os.PathError{Op: "read", Path: r.path, Err: os.ErrClosed}
	}
	if len(p) == 0 {
		return 0, nil
	}
	p = p[:min(len(p), maxRead)]
	var n int
	var err error
	for {
		err = nil
		if r.raw {
			m, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(r.fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			n = int(m)
			if errno != 0 {
				n, err = -1, errno
			}
		} else {
			n, err = syscall.Read(r.fd, p)
		}
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: r.path, Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Seek moves the read offset, as lseek(2) does, so that a writer can
// read the file again (the ZIP writer stores an entry that did not
// compress); on a FIFO it fails.
func (r *fileReader) Seek(offset int64, whence int) (int64, error) {
	if r.fd < 0 {
		return 0, &os.PathError{Op: "seek", Path: r.path, Err: os.ErrClosed}
	}
	off, err := syscall.Seek(r.fd, offset, whence)
	if err != nil {
		return 0, &os.PathError{Op: "seek", Path: r.path, Err: err}
	}
	return off, nil
}

// Close closes the descriptor; a second Close returns os.ErrClosed.
func (r *fileReader) Close() error {
	if r.fd < 0 {
		return &os.PathError{Op: "close", Path: r.path, Err: os.ErrClosed}
	}
	err := syscall.Close(r.fd)
	r.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: r.path, Err: err}
	}
	return nil
}
