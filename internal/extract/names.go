package extract

import (
	"path"
	"runtime"
	"strings"
)

// whyEmptyName is why cleanName refuses an empty name.
const whyEmptyName = "empty name"

// cleanName turns a stored entry name into a slash-separated path relative
// to the destination, or reports why it is refused. Only '/' separates:
// the format readers have turned each '\' that separates (in ZIP and RAR
// entries from DOS and Windows hosts, in RAR 1.4–4.x, in 7z entries with
// Windows attributes only) into '/', and a '\' left is a character of the
// name, as in tar and in entries written on Unix (see archive.Entry.Name;
// on Windows osRel maps it). A leading "./" is dropped. An absolute prefix
// (a leading '/', a drive letter such as "C:", or a UNC "//server/share"
// prefix) is removed, as 7-Zip, unrar and tar do, so the entry lands inside
// the destination; note says what was removed. Empty names, NUL bytes and
// anything that leaves the destination after cleaning are refused.
// The result "." means the destination itself.
func cleanName(name string) (rel, note, why string) {
	if name == "" {
		return "", "", whyEmptyName
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", "", "NUL byte in name"
	}
	n := name
	if strings.HasPrefix(n, "//") && !strings.HasPrefix(n, "///") {
		// UNC path: drop "//server/share".
		rest := strings.TrimLeft(n, "/")
		parts := strings.SplitN(rest, "/", 3)
		n = ""
		if len(parts) == 3 {
			n = parts[2]
		}
		note = "UNC prefix removed"
	}
	if hasDriveLetter(n) {
		n = n[2:]
		note = "drive letter removed"
	}
	if strings.HasPrefix(n, "/") {
		n = strings.TrimLeft(n, "/")
		if note == "" {
			note = "leading '/' removed"
		}
	}
	if n == "" {
		return "", note, whyEmptyName
	}
	for strings.HasPrefix(n, "./") {
		n = n[2:]
	}
	c := path.Clean(n)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", note, "path leaves the destination"
	}
	return c, note, ""
}

// hasDriveLetter reports whether s starts with a Windows drive
// designator such as "C:".
func hasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

// linkTargetPath returns a symbolic link's target as the system that
// follows the link reads it, with '/' as the separator: on Windows a '\'
// separates too; on Unix, where the kernel separates at '/' only, a '\'
// is a character of the name it leads to.
func linkTargetPath(target string) string {
	if runtime.GOOS == "windows" {
		return strings.ReplaceAll(target, `\`, "/")
	}
	return target
}

// checkLinkTarget decides lexically whether a symbolic link at rel (a
// cleaned entry path) pointing to target stays inside the destination.
// The target is refused when it is absolute (a leading separator, as
// linkTargetPath reads it, or a drive letter) or when it resolves
// lexically relative to the link's directory to a place outside the
// destination. A ".." after a normal
// component ("d/..") passes here; resolveOnDisk accepts it only when it
// climbs back over a real directory.
func checkLinkTarget(rel, target string) string {
	if target == "" {
		return "empty link target"
	}
	if strings.IndexByte(target, 0) >= 0 {
		return "NUL byte in link target"
	}
	t := linkTargetPath(target)
	if strings.HasPrefix(t, "/") || hasDriveLetter(t) {
		return "absolute link target"
	}
	r := path.Join(path.Dir(rel), t)
	if r == ".." || strings.HasPrefix(r, "../") {
		return "link target leaves the destination"
	}
	return ""
}

// SanitizeWindowsName makes one path component valid on Windows: the
// characters <>:"|?* and control characters become '_'; so does '\',
// which Windows reads as a separator while in a component it is a
// character of the entry's name (a tar name, or one written on Unix:
// systemd's "system-systemd\x2dcryptsetup.slice" is extracted as
// "system-systemd_x2dcryptsetup.slice"); trailing dots and spaces become
// '_', and reserved device names (CON, PRN, AUX, NUL,
// COM1–COM9, LPT1–LPT9, COM¹–COM³, LPT¹–LPT³, CONIN$, CONOUT$, CLOCK$,
// in any case, with any extension: isReservedWindowsName) get a '_'
// prefix. Other names are returned unchanged.
func SanitizeWindowsName(component string) string {
	if component == "" {
		return component
	}
	b := []byte(component)
	changed := false
	for i, c := range b {
		if c < 0x20 || c == 0x7f || strings.IndexByte(`<>:"|?*\`, c) >= 0 {
			b[i] = '_'
			changed = true
		}
	}
	for i := len(b) - 1; i >= 0 && (b[i] == '.' || b[i] == ' '); i-- {
		b[i] = '_'
		changed = true
	}
	s := component
	if changed {
		s = string(b)
	}
	stem := s
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	stem = strings.TrimRight(stem, " ")
	if isReservedWindowsName(stem) {
		s = "_" + s
	}
	return s
}
