package opener

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
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

// maxOpenParts is how many parts of a raw split are kept open at once.
// A split of thousands of parts must not exhaust the descriptor limit
// (often 256 or 1024): parts are opened as they are read and the least
// recently used one is closed when a further one is needed.
const maxOpenParts = 4

// splitFiles opens the parts of a raw split on demand, keeping at most
// maxOpenParts open (more only while that many ReadAt calls are running
// in parallel on different parts). It is safe for concurrent use.
type splitFiles struct {
	paths []string
	sizes []int64

	mu     sync.Mutex
	open   map[int]*openPart
	clock  uint64
	closed bool
}

type openPart struct {
	f     *os.File
	users int    // ReadAt calls using f now
	used  uint64 // clock at the last use, for eviction
}

// acquire returns part i's file, opening it if needed; release must follow.
func (s *splitFiles) acquire(i int) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, os.ErrClosed
	}
	s.clock++
	if p := s.open[i]; p != nil {
		p.users++
		p.used = s.clock
		return p.f, nil
	}
	for len(s.open) >= maxOpenParts && s.evict() {
	}
	f, err := openPartFile(s.paths[i], s.sizes[i])
	if err != nil {
		return nil, err
	}
	s.open[i] = &openPart{f: f, users: 1, used: s.clock}
	return f, nil
}

// evict closes the least recently used part no ReadAt is using. It
// reports false when every open part is in use.
func (s *splitFiles) evict() bool {
	victim := -1
	for i, p := range s.open {
		if p.users == 0 && (victim < 0 || p.used < s.open[victim].used) {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	s.open[victim].f.Close()
	delete(s.open, victim)
	return true
}

func (s *splitFiles) release(i int) {
	s.mu.Lock()
	if p := s.open[i]; p != nil {
		p.users--
		if s.closed && p.users == 0 {
			p.f.Close()
			delete(s.open, i)
		}
	}
	s.mu.Unlock()
}

// Close closes the open parts (those in use once their ReadAt returns)
// and makes later reads fail.
func (s *splitFiles) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var first error
	for i, p := range s.open {
		if p.users > 0 {
			continue
		}
		if err := p.f.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.open, i)
	}
	return first
}

// openPartFile opens one part and checks that it is still the regular
// file of the size measured when the split was opened.
func openPartFile(path string, size int64) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && (!st.Mode().IsRegular() || st.Size() != size) {
		err = fmt.Errorf("%s: split part changed while it was read", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// splitPart is part i of a splitFiles as an io.ReaderAt.
type splitPart struct {
	s *splitFiles
	i int
}

func (p splitPart) ReadAt(b []byte, off int64) (int, error) {
	f, err := p.s.acquire(p.i)
	if err != nil {
		return 0, err
	}
	defer p.s.release(p.i)
	return f.ReadAt(b, off)
}

// openParts measures every path and returns a MultiReaderAt over them
// with the splitFiles to close. No part stays open: each is opened when
// it is read.
func openParts(paths []string) (*MultiReaderAt, *splitFiles, error) {
	s := &splitFiles{paths: paths, sizes: make([]int64, len(paths)), open: make(map[int]*openPart)}
	parts := make([]io.ReaderAt, len(paths))
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("%s: not a regular file (%s): %w", p, st.Mode().Type(), archive.ErrNotArchive)
		}
		s.sizes[i] = st.Size()
		parts[i] = splitPart{s, i}
	}
	m, err := NewMultiReaderAt(parts, s.sizes)
	if err != nil {
		return nil, nil, err
	}
	return m, s, nil
}

// PartsAfterEnd returns the parts of the raw split r was opened from that
// lie wholly after the end of the 7z archive its first parts hold (its
// start header records its size): parts left over from an older, longer
// set of the same name, which belong to no archive. It returns nil for a
// reader Open did not make from a raw split, and for formats other than
// 7z.
func PartsAfterEnd(r archive.Reader) []string {
	fr, ok := r.(*fileReader)
	if !ok {
		return nil
	}
	s, ok := fr.files.(*splitFiles)
	if !ok {
		return nil
	}
	info := fr.Info()
	if info.Format != archive.Format7z || info.PhysicalSize <= 0 {
		return nil
	}
	end := info.SFXOffset + info.PhysicalSize
	var start int64
	for i, size := range s.sizes {
		if i > 0 && start >= end {
			return append([]string(nil), s.paths[i:]...)
		}
		start += size
	}
	return nil
}
