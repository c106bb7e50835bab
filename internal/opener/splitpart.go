package opener

import (
	"os"
	"path/filepath"
)

// IsSplitPart reports whether path is a part of a raw split archive
// (NAME.001, NAME.002 …, or NAME_aa, NAME_ab …) whose first part exists,
// as Open would read it. Such a set cannot be updated or have entries
// deleted in place: `garc a` and `garc d` refuse it by this test.
func IsSplitPart(path string) bool {
	dir, base := filepath.Split(path)
	if stem, _, ok := numericSuffix(base); ok {
		return isFile(filepath.Join(dir, stem+"001")) || SplitParts(path) != nil
	}
	if _, ok := alphaSuffix(base); ok {
		return SplitParts(path) != nil
	}
	return false
}

// SplitPartOf returns the path of the first file (in name order) beside
// target that is named like a part of a raw split archive of that name,
// TARGET.001, TARGET.002 … (three to six digits), or "" when there is
// none. A split archive written under the name target would replace such
// a file, or read it as one of its own parts when it follows them: `garc
// a -v` refuses to write there by this test.
func SplitPartOf(target string) string {
	dir, base := filepath.Split(target)
	ents, err := os.ReadDir(filepath.Join(dir, "."))
	if err != nil {
		return "" // writing there fails and says why
	}
	for _, e := range ents {
		if stem, _, ok := numericSuffix(e.Name()); ok && stem == base+"." {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}
