//go:build !windows

package extract

import "os"

// symlink makes the symbolic link newname pointing to oldname.
func symlink(oldname, newname string) error { return os.Symlink(oldname, newname) }
