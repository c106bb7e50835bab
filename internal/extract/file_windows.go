package extract

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// clearReadOnly removes the read-only attribute of the existing file p,
// which a file replaced under OverwriteAll may carry: Windows refuses to
// replace a read-only file (ERROR_ACCESS_DENIED), and 7-Zip clears the
// attribute first too. It returns a function that puts the attribute
// back, for a replacement that fails after all; nil when p was not
// read-only.
func clearReadOnly(p string) func() {
	name, err := windows.UTF16PtrFromString(longPath(p))
	if err != nil {
		return nil
	}
	attrs, err := windows.GetFileAttributes(name)
	if err != nil || attrs&windows.FILE_ATTRIBUTE_READONLY == 0 || attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		return nil
	}
	if windows.SetFileAttributes(name, attrs&^windows.FILE_ATTRIBUTE_READONLY) != nil {
		return nil
	}
	return func() { windows.SetFileAttributes(name, attrs) }
}

// longPath returns the absolute path p in the \\?\ form when it is too
// long for the plain Win32 form (248 characters and more), as package os
// does for the paths it is given: the calls made here through
// golang.org/x/sys/windows get no such help.
func longPath(p string) string {
	const short = 248
	switch {
	case len(p) < short, len(p) >= 4 && p[:4] == `\\?\`:
		return p
	case len(p) >= 2 && p[:2] == `\\`:
		return `\\?\UNC\` + p[2:]
	}
	return `\\?\` + p
}

// createShared creates the new file p (CREATE_NEW, as O_EXCL) for
// writing, shared for deletion: RemoveTemporaries, run from another
// goroutine when an interrupted run exits without unwinding, can then
// delete the temporary file while the writer still holds it open
// (Windows otherwise refuses to delete an open file: "Sharing
// violation"). The file is gone once the handle is closed, at the
// latest when the process exits.
func createShared(p string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(longPath(p))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	h, err := windows.CreateFile(name, windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(h), p), nil
}

// createFile makes the new temporary file p (see createShared); perm is
// applied later, once the content is complete (writeFile).
func createFile(p string, perm fs.FileMode) (*os.File, error) { return createShared(p) }

// replaceFile renames oldpath to newpath, replacing a file or link there,
// first clearing a read-only attribute of the file replaced; the
// attribute is put back when the rename fails.
func replaceFile(oldpath, newpath string) error {
	restore := clearReadOnly(newpath)
	err := os.Rename(oldpath, newpath)
	if err != nil && restore != nil {
		restore()
	}
	return err
}
