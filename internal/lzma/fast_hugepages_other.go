//go:build !linux

package lzma

import "unsafe"

// adviseHugePagesAround does nothing where transparent huge pages are
// not available.
func adviseHugePagesAround(p unsafe.Pointer, size uintptr) {}
