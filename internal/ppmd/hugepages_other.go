//go:build !linux

package ppmd

import "github.com/garc-dev/garc/internal/hugemem"

// arenaMapping owns an arena mapped outside the Go heap; there is none
// here.
type arenaMapping struct{}

// newArena returns a zeroed arena of size bytes (len and cap), from the
// heap; one of at least two huge pages starts on a huge-page boundary
// (hugemem.Aligned).
func newArena(size uint32) (*arenaMapping, []byte) {
	n := int(size)
	if n < 2*hugemem.PageSize {
		return nil, make([]byte, n)
	}
	return nil, hugemem.Aligned(n)[:n:n]
}
