//go:build !linux

package extract

// disableNoReplace does nothing: only Linux uses RENAME_NOREPLACE.
func disableNoReplace(*Extractor) {}
