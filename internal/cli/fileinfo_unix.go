//go:build unix

package cli

import (
	"os"
	"syscall"
)

// fileKey identifies a file for hard links: device and inode.
type fileKey struct{ dev, ino uint64 }

// fileInfo is what a tar entry takes from a file's stat beyond what
// collect records: owner, link count and identity, and whether the file
// has holes (fewer blocks allocated than its size needs).
type fileInfo struct {
	ok       bool
	uid, gid int
	nlink    uint64
	key      fileKey
	sparse   bool
}

// statFile stats the file at path, following a symbolic link unless
// link says the entry is the link itself.
func statFile(path string, link bool) fileInfo {
	stat := os.Stat
	if link {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return fileInfo{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileInfo{}
	}
	return fileInfo{ok: true, uid: int(st.Uid), gid: int(st.Gid), nlink: uint64(st.Nlink),
		key:    fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)},
		sparse: fi.Mode().IsRegular() && int64(st.Blocks)*512 < fi.Size()}
}
