//go:build !linux

package ppmd

// adviseHugePages does nothing where transparent huge pages are not
// known.
func adviseHugePages(b []byte) {}
