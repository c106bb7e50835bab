//go:build unix

package opener

import (
	"os"
	"syscall"
)

// openFile opens path for reading like os.Open, without offering the
// descriptor to the runtime's poller: os.Open tries that for every file
// and fails for regular files (an epoll_ctl and four fcntl calls), and the
// first file of a process sets the poller up (an epoll instance and an
// eventfd) for nothing; archives are read with pread only.
func openFile(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.EINTR {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}
