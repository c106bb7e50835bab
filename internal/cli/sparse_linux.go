package cli

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/tar"
)

// sparseSegments finds the data segments of the file at path with
// SEEK_DATA and SEEK_HOLE, aligned to tar's blocks, and returns them with
// a reader of their bytes in order; ok is false when the file has no
// holes after all or the system cannot tell.
func sparseSegments(path string, size int64) ([]tar.SparseSegment, io.ReadCloser, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	var segs []tar.SparseSegment
	for off := int64(0); off < size; {
		d, err := f.Seek(off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			f.Close()
			return nil, nil, false
		}
		h, err := f.Seek(d, unix.SEEK_HOLE)
		if err != nil {
			f.Close()
			return nil, nil, false
		}
		h = min(h, size)
		if d >= h {
			break
		}
		segs = append(segs, tar.SparseSegment{Offset: d, Length: h - d})
		off = h
	}
	segs = tar.AlignSparse(segs, size)
	if len(segs) == 1 && segs[0].Offset == 0 && segs[0].Length == size {
		f.Close()
		return nil, nil, false
	}
	readers := make([]io.Reader, len(segs))
	for i, s := range segs {
		readers[i] = io.NewSectionReader(f, s.Offset, s.Length)
	}
	return segs, readCloser{io.MultiReader(readers...), f}, true
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
