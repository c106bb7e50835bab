package extract

import (
	"path"
	"runtime"
	"strconv"
	"strings"
)

// windowsLinkRules says that link targets are also judged as Windows
// reads them (windowsLinkProblem). Tests switch it on elsewhere.
var windowsLinkRules = runtime.GOOS == "windows"

// windowsLinkProblem judges a symbolic link target for a link at rel (a
// cleaned entry path) as Windows reads it, and returns why it leaves the
// destination, or "" when it stays inside:
//
//   - '\' and '/' both separate.
//   - A leading separator makes it absolute: "\dir" (the current drive's
//     root), UNC "\\server\share", the device and Win32 namespaces
//     "\\?\C:\…", "\\.\PhysicalDrive0", and the NT namespace "\??\C:\…"
//     that junction targets use.
//   - A drive letter makes it absolute, also a drive-relative "C:dir",
//     which follows the current directory of drive C.
//   - Win32 path handling drops trailing dots and spaces from a
//     component, so ".. " and ". ." climb like "..": a component of only
//     dots and spaces other than "." counts as "..".
//
// checkLinkTarget's reading (the system's own separators) applies as
// well; this one is the stricter on Unix and applies on Windows.
func windowsLinkProblem(rel, target string) string {
	t := strings.ReplaceAll(target, `\`, "/")
	switch {
	case strings.HasPrefix(t, "/"):
		return "absolute link target (Windows: root, UNC or device path)"
	case hasDriveLetter(t):
		return "absolute link target (Windows: drive letter)"
	}
	depth := 0
	if d := path.Dir(rel); d != "." {
		depth = strings.Count(d, "/") + 1
	}
	for _, c := range strings.Split(t, "/") {
		switch {
		case c == "" || c == ".":
		case strings.Trim(c, ". ") == "":
			// "..", ".. ", "...", ". .": Windows climbs (or may).
			if depth == 0 {
				return "link target leaves the destination (Windows reads " + strconv.Quote(c) + " as \"..\")"
			}
			depth--
		default:
			depth++
		}
	}
	return ""
}
