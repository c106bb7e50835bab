package extract

import (
	"time"

	"golang.org/x/sys/windows"
)

// applyWindowsMeta sets the creation time and the attributes of m on the
// file or directory p: the time first, since a read-only file could not
// be opened for it afterwards on every file system. Best effort, like
// the other times: a file system without creation times (FAT's are
// coarse, Wine's Unix files have none) or attributes keeps its own.
func applyWindowsMeta(p string, m windowsMeta) {
	if !m.ctime.IsZero() {
		setCreateTime(p, m.ctime)
	}
	if !m.ok {
		return
	}
	name, err := windows.UTF16PtrFromString(longPath(p))
	if err != nil {
		return
	}
	attrs := m.attrs
	if cur, err := windows.GetFileAttributes(name); err == nil {
		// Keep the directory bit and those restoredAttrs leaves to
		// the system (compressed, sparse …).
		attrs |= cur &^ restoredAttrs
	}
	if attrs == 0 {
		attrs = windows.FILE_ATTRIBUTE_NORMAL
	}
	windows.SetFileAttributes(name, attrs)
}

// setCreateTime sets the creation time of p, a file or a directory.
func setCreateTime(p string, t time.Time) error {
	name, err := windows.UTF16PtrFromString(longPath(p))
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(name, windows.FILE_WRITE_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	ft := windows.NsecToFiletime(nanoRange(t).UnixNano())
	return windows.SetFileTime(h, &ft, nil, nil)
}
