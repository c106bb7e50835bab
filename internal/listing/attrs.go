package listing

import (
	"io/fs"

	"github.com/garc-dev/garc/internal/archive"
)

// hostName is the "host_os" value of the JSON listing.
func hostName(h archive.HostOS) string {
	switch h {
	case archive.HostWindows:
		return "windows"
	case archive.HostUnix:
		return "unix"
	}
	return "unknown"
}

// unixPerm returns the permission and special bits of a Go mode in the
// unix octal layout.
func unixPerm(m fs.FileMode) uint32 {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return v
}

// tableAttrBits are the Windows bits of the table's attribute column, in
// the order of its letters "DRHSA".
var tableAttrBits = [5]uint32{archive.AttrDirectory, archive.AttrReadOnly, archive.AttrHidden, archive.AttrSystem, archive.AttrArchive}

// appendAttr appends the attributes as 7-Zip's table renders them: the
// letters D, R, H, S, A for the Windows bits ("." when clear).
func appendAttr(b []byte, e *archive.Entry) []byte {
	attr := windowsAttrs(e)
	for i, bit := range tableAttrBits {
		c := byte('.')
		if attr&bit != 0 {
			c = "DRHSA"[i]
		}
		b = append(b, c)
	}
	return b
}

// winAttrLetters are 7-Zip's letters for the Windows attribute bits 0–15
// in bit order ('.' for bits it does not name).
const winAttrLetters = "RHS.DAdNTsLCOIE."

// windowsAttrs returns the Windows attribute bits of an entry: the low
// bits for Windows hosts and 7-Zip's unix extension, the read-only and
// directory bits derived for a RAR unix mode.
func windowsAttrs(e *archive.Entry) uint32 {
	var attr uint32
	switch {
	case e.HostOS != archive.HostUnix || e.Attributes&archive.AttrUnixExtension != 0 && e.Attributes>>16 != 0:
		attr = e.Attributes & 0xffff &^ archive.AttrUnixExtension
	case e.HasUnixMode && e.Mode&0o200 == 0:
		attr = archive.AttrReadOnly
	}
	if e.IsDir() {
		attr |= archive.AttrDirectory
	}
	return attr
}

// sltAttr renders attributes for -slt as 7-Zip does: the letters of the
// set Windows bits in bit order ("RHSDA…", so "HD" for a hidden
// directory), then the unix mode when one is stored ("A -rw-r--r--").
func sltAttr(e *archive.Entry) string { return string(appendSLTAttr(nil, e)) }

// appendSLTAttr appends what sltAttr returns.
func appendSLTAttr(b []byte, e *archive.Entry) []byte {
	attr := windowsAttrs(e)
	start := len(b)
	for i := 0; i < 16; i++ {
		if attr&(1<<i) != 0 && winAttrLetters[i] != '.' {
			b = append(b, winAttrLetters[i])
		}
	}
	if e.HasUnixMode {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = appendMode(b, e)
	}
	return b
}

// modeString renders a unix mode like ls -l: the type letter ('-', 'd',
// 'l', and 'p', 'c', 'b', 's' for FIFOs, devices and sockets, as 7-Zip
// shows them) and the permissions.
func modeString(e *archive.Entry) string { return string(appendMode(nil, e)) }

// appendMode appends what modeString returns.
func appendMode(b []byte, e *archive.Entry) []byte {
	m := e.Mode
	if a := e.Attributes; m&fs.ModeType == 0 && a&archive.AttrUnixExtension != 0 && a>>16 != 0 {
		// A 7z entry keeps the file type only in the unix mode of
		// 7-Zip's attributes, its Mode only the permissions.
		switch a >> 16 & 0o170000 {
		case 0o010000:
			m |= fs.ModeNamedPipe
		case 0o020000:
			m |= fs.ModeDevice | fs.ModeCharDevice
		case 0o060000:
			m |= fs.ModeDevice
		case 0o140000:
			m |= fs.ModeSocket
		}
	}
	start := len(b)
	b = append(b, "----------"...)
	s := b[start:]
	switch {
	case e.Type == archive.TypeDir:
		s[0] = 'd'
	case e.Type == archive.TypeSymlink:
		s[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		s[0] = 'p'
	case m&fs.ModeCharDevice != 0:
		s[0] = 'c'
	case m&fs.ModeDevice != 0:
		s[0] = 'b'
	case m&fs.ModeSocket != 0:
		s[0] = 's'
	}
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) != 0 {
			s[i+1] = rwx[i]
		}
	}
	if m&fs.ModeSetuid != 0 {
		s[3] = "Ss"[b2i(s[3] == 'x')]
	}
	if m&fs.ModeSetgid != 0 {
		s[6] = "Ss"[b2i(s[6] == 'x')]
	}
	if m&fs.ModeSticky != 0 {
		s[9] = "Tt"[b2i(s[9] == 'x')]
	}
	return b
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func plusMinus(b bool) string {
	if b {
		return "+"
	}
	return "-"
}
