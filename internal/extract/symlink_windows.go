package extract

import (
	"fmt"
	"os"
)

// symlink makes the symbolic link newname pointing to oldname and checks
// that it exists: Wine 8's CreateSymbolicLinkW reports success without
// making anything, and a link that is not there must be a warning, not
// a failure to rename it into place later.
func symlink(oldname, newname string) error {
	if err := os.Symlink(oldname, newname); err != nil {
		return err
	}
	if _, err := os.Lstat(newname); err != nil {
		return fmt.Errorf("the system reported the link made, but it is not there: %w", err)
	}
	return nil
}
