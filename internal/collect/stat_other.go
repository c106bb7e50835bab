//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package collect

import (
	"io/fs"
	"time"
)

func statTimes(fi fs.FileInfo) (atime, ctime time.Time) { return time.Time{}, time.Time{} }

func fileID(fi fs.FileInfo) (dirID, bool) { return dirID{}, false }
