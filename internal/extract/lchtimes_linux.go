//go:build linux

package extract

import (
	"syscall"
	"time"
	"unsafe"
)

const (
	atFDCWD           = -100
	atSymlinkNoFollow = 0x100
	utimeOmit         = (1 << 30) - 2
)

// lchtimes sets the times of a symbolic link itself (utimensat with
// AT_SYMLINK_NOFOLLOW). Zero times are left unchanged.
func lchtimes(path string, atime, mtime time.Time) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	ts := [2]syscall.Timespec{toTimespec(atime), toTimespec(mtime)}
	dirfd := atFDCWD
	_, _, errno := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&ts)), atSymlinkNoFollow, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func toTimespec(t time.Time) syscall.Timespec {
	if t.IsZero() {
		return syscall.Timespec{Nsec: utimeOmit}
	}
	return syscall.NsecToTimespec(t.UnixNano())
}
