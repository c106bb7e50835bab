// Package tempname names the temporary files garc writes before renaming
// them into place: extracted files waiting for their checksum, and archives
// being created or updated. One spelling keeps leftovers recognisable.
package tempname

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Prefix starts the name of every temporary file garc creates.
const Prefix = ".garc-"

// Suffix ends the name of every temporary file garc creates.
const Suffix = ".tmp"

// In returns a fresh random name ".garc-XXXXXXXX.tmp" inside dir, as
// filepath.Join would make it. The caller creates it with O_EXCL and
// tries another name if it exists. It allocates only the result: the
// extractor calls it for every file.
func In(dir string) string {
	var hex [8]byte
	h := strconv.AppendUint(hex[:0], rand.Uint64()&0xffffffff, 16)
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	if dir == "" || dir == "." {
		return Prefix + string(h) + Suffix
	}
	if filepath.VolumeName(dir) == dir {
		return filepath.Join(dir, Prefix+string(h)+Suffix) // "C:" on Windows
	}
	var b strings.Builder
	b.Grow(len(dir) + 1 + len(Prefix) + len(h) + len(Suffix))
	b.WriteString(dir)
	if !os.IsPathSeparator(dir[len(dir)-1]) {
		b.WriteByte(filepath.Separator)
	}
	b.WriteString(Prefix)
	b.Write(h)
	b.WriteString(Suffix)
	return b.String()
}

// Is reports whether a base name has the form In produces:
// ".garc-" followed by one to eight lowercase hexadecimal digits and
// ".tmp".
func Is(base string) bool {
	hex, ok := strings.CutPrefix(base, Prefix)
	if !ok {
		return false
	}
	hex, ok = strings.CutSuffix(hex, Suffix)
	if !ok || len(hex) == 0 || len(hex) > 8 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Create makes a new temporary file in dir with O_EXCL (and O_NOFOLLOW where
// the system has it) opened with flag (os.O_WRONLY or os.O_RDWR), trying
// fresh names while one exists. It returns the file and its path.
func Create(dir string, flag int, perm fs.FileMode) (*os.File, string, error) {
	for i := 0; ; i++ {
		p := In(dir)
		f, err := os.OpenFile(p, flag|os.O_CREATE|os.O_EXCL|NoFollow, perm)
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return nil, "", err
		}
	}
}
