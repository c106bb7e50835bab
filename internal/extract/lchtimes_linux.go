//go:build linux

package extract

import "time"

// lchtimes sets the times of a symbolic link itself (utimensat with
// AT_SYMLINK_NOFOLLOW). Zero times are left unchanged.
func lchtimes(path string, atime, mtime time.Time) error {
	return setPathTimes(path, atime, mtime)
}
