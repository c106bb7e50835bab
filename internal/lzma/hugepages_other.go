//go:build !linux

package lzma

// adviseHugePages does nothing where transparent huge pages are not
// known.
func adviseHugePages(s []uint32) {}

// adviseHugePagesBytes does nothing where transparent huge pages are not
// known.
func adviseHugePagesBytes(b []byte) {}
