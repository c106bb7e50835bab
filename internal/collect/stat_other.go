//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package collect

import (
	"io/fs"
	"time"
)

func statOwner(fi fs.FileInfo) (atime, ctime time.Time, o Owner) {
	return time.Time{}, time.Time{}, Owner{}
}

func fileID(fi fs.FileInfo) (dirID, bool) { return dirID{}, false }
