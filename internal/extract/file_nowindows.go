//go:build !unix && !windows

package extract

import (
	"io/fs"
	"os"
)

// createFile makes the new file p with O_EXCL.
func createFile(p string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// replaceFile renames oldpath to newpath, replacing a file or link there.
func replaceFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
