//go:build !linux

package cli

import (
	"io"

	"github.com/garc-dev/garc/internal/tar"
)

// sparseSegments finds no holes on this system: sparse files are stored
// whole.
func sparseSegments(string, int64) ([]tar.SparseSegment, io.ReadCloser, bool) {
	return nil, nil, false
}
