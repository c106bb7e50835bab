//go:build linux || darwin || freebsd || netbsd || openbsd

package collect

import (
	"io/fs"
	"syscall"
	"time"
)

// statTimes returns the access and change times of a stat result.
func statTimes(fi fs.FileInfo) (atime, ctime time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, time.Time{}
	}
	a, c := statTimespecs(st)
	return time.Unix(a.Unix()), time.Unix(c.Unix())
}

// fileID returns the device and inode of a file.
func fileID(fi fs.FileInfo) (dirID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirID{}, false
	}
	return dirID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}
