package archive

import (
	"io/fs"
	"time"
)

// The file-type bits of a unix st_mode.
const (
	unixTypeMask = 0o170000
	unixSymlink  = 0o120000
	unixDir      = 0o040000
	unixFIFO     = 0o010000
	unixChar     = 0o020000
	unixBlock    = 0o060000
	unixSocket   = 0o140000
)

// SetMode fills Mode and HasUnixMode from HostOS, Attributes and Type, as
// the RAR and ZIP readers record them: a unix host stores st_mode, whose
// permission, setuid, setgid and sticky bits and file type are kept; other
// hosts get 0644 (0755 for directories) less the write bits of a read-only
// entry. The entry's Type has the last word on directory and link bits.
func (e *Entry) SetMode() {
	var m fs.FileMode
	if e.HostOS == HostUnix {
		a := e.Attributes
		m = fs.FileMode(a & 0o777)
		if a&0o4000 != 0 {
			m |= fs.ModeSetuid
		}
		if a&0o2000 != 0 {
			m |= fs.ModeSetgid
		}
		if a&0o1000 != 0 {
			m |= fs.ModeSticky
		}
		e.HasUnixMode = true
		switch a & unixTypeMask {
		case unixDir:
			m |= fs.ModeDir
		case unixSymlink:
			m |= fs.ModeSymlink
		case unixFIFO:
			m |= fs.ModeNamedPipe
		case unixChar:
			m |= fs.ModeDevice | fs.ModeCharDevice
		case unixBlock:
			m |= fs.ModeDevice
		case unixSocket:
			m |= fs.ModeSocket
		}
	} else {
		m = 0o644
		if e.Type == TypeDir || e.Attributes&AttrDirectory != 0 {
			m = 0o755
		}
		if e.Attributes&AttrReadOnly != 0 {
			m &^= 0o222
		}
	}
	switch e.Type {
	case TypeDir:
		m |= fs.ModeDir
		if m.Perm() == 0 && !e.HasUnixMode {
			m |= 0o755
		}
	case TypeSymlink:
		m = m&^fs.ModeType | fs.ModeSymlink
		if m.Perm() == 0 {
			m |= 0o777
		}
	case TypeFile, TypeHardlink, TypeCopy:
		m &^= fs.ModeDir | fs.ModeSymlink
	}
	e.Mode = m
}

// FromFiletime converts a Windows FILETIME (100 ns ticks since 1601) to a
// time; 0 is "not recorded", the zero time. Every value maps, 1601 to
// 60056 included.
func FromFiletime(v uint64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	const ticksPerSecond = 10_000_000
	const epochDiff = 11644473600 // seconds from 1601 to 1970
	return time.Unix(int64(v/ticksPerSecond)-epochDiff, int64(v%ticksPerSecond)*100)
}
