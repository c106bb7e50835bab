//go:build linux || darwin || freebsd || netbsd || openbsd

package collect

import (
	"io/fs"
	"syscall"
	"time"
)

// statOwner returns the access and change times and the Owner of a stat
// result.
func statOwner(fi fs.FileInfo) (atime, ctime time.Time, o Owner) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, time.Time{}, Owner{}
	}
	a, c := statTimespecs(st)
	o = Owner{OK: true, UID: int(st.Uid), GID: int(st.Gid), Nlink: uint64(st.Nlink),
		Dev: uint64(st.Dev), Ino: uint64(st.Ino), Blocks: int64(st.Blocks)}
	return time.Unix(a.Unix()), time.Unix(c.Unix()), o
}

// fileID returns the device and inode of a file.
func fileID(fi fs.FileInfo) (dirID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirID{}, false
	}
	return dirID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}
