//go:build !linux

package bzip2

import "github.com/garc-dev/garc/internal/hugemem"

// mapping owns memory outside the Go heap; there is none here.
type mapping struct{}

// hugeAlloc returns n zero bytes from the heap (hugemem.Aligned) and no
// mapping.
func hugeAlloc(n int) (*mapping, []byte) { return nil, hugemem.Aligned(n) }

// plainAlloc returns n zero bytes from the heap and no mapping.
func plainAlloc(n int) (*mapping, []byte) { return nil, make([]byte, n) }
