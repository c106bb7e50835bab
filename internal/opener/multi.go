package opener

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// MultiReaderAt presents several ReaderAts, each of a known size, as one
// contiguous io.ReaderAt: the parts of a raw split archive.
type MultiReaderAt struct {
	parts []io.ReaderAt
	ends  []int64 // ends[i] is the offset just past part i
}

// NewMultiReaderAt joins parts whose sizes are given in sizes. Parts of
// size zero are allowed.
func NewMultiReaderAt(parts []io.ReaderAt, sizes []int64) (*MultiReaderAt, error) {
	if len(parts) != len(sizes) {
		return nil, errors.New("opener: parts and sizes differ in length")
	}
	m := &MultiReaderAt{parts: parts, ends: make([]int64, len(parts))}
	var end int64
	for i, s := range sizes {
		if s < 0 || end+s < end {
			return nil, fmt.Errorf("opener: invalid part size %d", s)
		}
		end += s
		m.ends[i] = end
	}
	return m, nil
}

// Size returns the total size of all parts.
func (m *MultiReaderAt) Size() int64 {
	if len(m.ends) == 0 {
		return 0
	}
	return m.ends[len(m.ends)-1]
}

// ReadAt reads len(p) bytes starting at off, crossing part boundaries as
// needed. Like io.ReaderAt it returns io.EOF when fewer than len(p) bytes
// are available.
func (m *MultiReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("opener: negative offset")
	}
	if off >= m.Size() {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	// First part whose end lies beyond off.
	i := sort.Search(len(m.ends), func(i int) bool { return m.ends[i] > off })
	n := 0
	for n < len(p) && i < len(m.parts) {
		start := int64(0)
		if i > 0 {
			start = m.ends[i-1]
		}
		rel := off + int64(n) - start
		avail := m.ends[i] - start - rel
		chunk := p[n:]
		if int64(len(chunk)) > avail {
			chunk = chunk[:avail]
		}
		k, err := m.parts[i].ReadAt(chunk, rel)
		n += k
		if k < len(chunk) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF // the part is shorter than when it was measured
			}
			return n, err
		}
		i++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// openParts opens every path and returns a MultiReaderAt over them with
// the files to close.
func openParts(paths []string) (*MultiReaderAt, []*os.File, error) {
	files := make([]*os.File, 0, len(paths))
	parts := make([]io.ReaderAt, 0, len(paths))
	sizes := make([]int64, 0, len(paths))
	for _, p := range paths {
		if err := checkRegular(p); err != nil {
			closeAll(files)
			return nil, nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			closeAll(files)
			return nil, nil, err
		}
		files = append(files, f)
		st, err := f.Stat()
		if err != nil {
			closeAll(files)
			return nil, nil, err
		}
		parts = append(parts, f)
		sizes = append(sizes, st.Size())
	}
	m, err := NewMultiReaderAt(parts, sizes)
	if err != nil {
		closeAll(files)
		return nil, nil, err
	}
	return m, files, nil
}

func closeAll(files []*os.File) error {
	var first error
	for _, f := range files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
