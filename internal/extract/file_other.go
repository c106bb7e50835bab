//go:build !unix

package extract

import (
	"io/fs"
	"os"

	"github.com/garc-dev/garc/internal/tempname"
)

// outFile is a temporary output file open for writing.
type outFile struct {
	*os.File
	path string
}

// createTemp makes a new file ".garc-XXXXXXXX.tmp" in dir with O_EXCL,
// trying fresh names while one exists.
func createTemp(dir string, perm fs.FileMode) (outFile, error) {
	f, p, err := tempname.Create(dir, os.O_WRONLY, perm)
	return outFile{File: f, path: p}, err
}

// renameFile renames oldpath to newpath, replacing a file or link there.
func renameFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// lstatType returns the type bits of the file at p, not following a link.
func lstatType(p string) (fs.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}
