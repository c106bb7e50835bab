package collect

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// openFile opens the regular file at path for reading. When the runtime
// has one processor (P), as `garc a --threads 1` keeps it, the file is
// read by rawFile.
//
// The Go runtime treats every read system call as possibly blocking:
// once one has taken 20 µs (a 256 KiB read takes about 100 µs), its
// monitor thread takes the P away and starts another thread with it, and
// the reading goroutine, back from the kernel without a P, waits to be
// picked up by that thread. With one P that happens at every read, and
// at mx1 `garc a` read 32 MiB with about 600 context switches (7zz: 5)
// and spent about 1.5 % more CPU time than with reads that keep the P
// (docs/PERFORMANCE.md). A read of a regular file does not wait on
// anything but the disk, so rawFile keeps the P through it; with more
// than one P the runtime lends an idle one to other goroutines during a
// read, so the plain read is kept.
func openFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || runtime.GOMAXPROCS(0) != 1 {
		return f, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return f, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f, nil
	}
	return &rawFile{f: f, rc: rc}, nil
}

// rawFile reads a regular file with read(2) issued as a raw system call,
// which the Go scheduler does not see (openFile says why).
type rawFile struct {
	f  *os.File
	rc syscall.RawConn
}

// maxRawRead bounds one read, as os.File does (Linux returns at most
// 0x7ffff000 bytes per call).
const maxRawRead = 1 << 30

func (r *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	p = p[:min(len(p), maxRawRead)]
	var n uintptr
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			if errno != syscall.EINTR {
				return true
			}
		}
	})
	switch {
	case err != nil:
		// RawConn.Read fails only for a closed file here (a regular
		// file has no deadlines), with an error of package poll's
		// that os.File would report as os.ErrClosed.
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: os.ErrClosed}
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (r *rawFile) Close() error { return r.f.Close() }
