package opener

import "path/filepath"

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
