package tar

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
)

// sparseEntrySize is what one map entry takes in memory.
const sparseEntrySize = int64(unsafe.Sizeof(sparseEntry{}))

// sparseMap is the map of a sparse file as it is read: its segments in
// the order stored, a segment that continues the previous one merged
// into it and empty ones dropped (they carry no data). It is kept in
// chunks of sparseChunk entries (the first grows up to that size), each
// charged to the run's memory budget before it is made, so that a map of
// millions of entries (an old GNU header's extension blocks cost 512
// bytes for 21 of them) takes the memory of its entries, never copied,
// and none beyond the limit; release gives the charge back.
type sparseMap struct {
	chunks  [][]sparseEntry
	n       int   // entries
	end     int64 // where the last segment ends
	mem     *archive.MemoryBudget
	charged int64
}

// sparseChunk is the number of entries of a full chunk (1 MiB).
const (
	sparseChunkBits = 16
	sparseChunk     = 1 << sparseChunkBits
)

// len returns the number of segments.
func (s *sparseMap) len() int { return s.n }

// at returns segment i.
func (s *sparseMap) at(i int) sparseEntry {
	return s.chunks[i>>sparseChunkBits][i&(sparseChunk-1)]
}

// add appends the segment of n bytes at off. A segment out of order
// (before the end of the previous one), negative or beyond the largest
// size is an error at once, so that a map of millions of entries out of
// order is not read to its end; a map that must grow beyond what the
// budget has free is a *archive.LimitError.
func (s *sparseMap) add(off, n int64) error {
	if off < 0 || n < 0 || off > math.MaxInt64-n || off < s.end {
		return errHeader("invalid sparse map")
	}
	if n == 0 {
		return nil
	}
	if s.n > 0 && s.end == off {
		c := s.chunks[len(s.chunks)-1]
		c[len(c)-1].n += n
		s.end += n
		return nil
	}
	if k := len(s.chunks) - 1; k < 0 || len(s.chunks[k]) == cap(s.chunks[k]) {
		// A new chunk, or the first one grown by doubling from 16
		// entries (small maps stay small; only it is ever copied).
		size, grown := sparseChunk, 0
		switch {
		case k < 0:
			size = 16
		case k == 0 && cap(s.chunks[0]) < sparseChunk:
			size, grown = 2*cap(s.chunks[0]), cap(s.chunks[0])
		}
		need := int64(size) * sparseEntrySize
		if !s.mem.TryAcquire(need) {
			return &archive.LimitError{What: "memory for a sparse map", Need: s.charged + need, Limit: s.mem.Limit()}
		}
		c := make([]sparseEntry, 0, size)
		if grown > 0 {
			s.chunks[0] = append(c, s.chunks[0]...)
		} else {
			s.chunks = append(s.chunks, c)
		}
		freed := int64(grown) * sparseEntrySize
		s.mem.Release(freed)
		s.charged += need - freed
	}
	k := len(s.chunks) - 1
	s.chunks[k] = append(s.chunks[k], sparseEntry{off, n})
	s.n++
	s.end = off + n
	return nil
}

// release drops the map and gives its charge back.
func (s *sparseMap) release() {
	if s.charged > 0 {
		s.mem.Release(s.charged)
	}
	s.chunks, s.n, s.end, s.charged = nil, 0, 0, 0
}

// readOldGNUSparse reads the map of an old GNU sparse header (type 'S'):
// four entries in the header block, then extension blocks of 21 entries
// while the "is extended" byte is set. An entry with an empty offset field
// ends the map, which is read into sm. It sets h.realSize.
func readOldGNUSparse(h *header, block []byte, in io.Reader, sm *sparseMap) error {
	done := false
	add := func(b []byte) error {
		if done || b[0] == 0 {
			done = true
			return nil
		}
		off, err := parseNumber(b[:12], "sparse offset")
		if err != nil {
			return err
		}
		n, err := parseNumber(b[12:24], "sparse length")
		if err != nil {
			return err
		}
		return sm.add(off, n)
	}
	for i := 0; i < 4; i++ {
		if err := add(block[386+24*i:]); err != nil {
			return err
		}
	}
	real, err := parseNumber(block[483:495], "sparse real size")
	if err != nil {
		return err
	}
	if real < 0 {
		// A base-256 field can be negative; 7-Zip refuses it too.
		return errHeader("negative sparse real size")
	}
	if block[483]&0x80 != 0 {
		h.ext |= extBinSize // the entry's size, as 7-Zip flags it
	}
	extended := block[482] != 0
	var ext [blockSize]byte
	for extended {
		if _, err := io.ReadFull(in, ext[:]); err != nil {
			return truncated(err)
		}
		for i := 0; i < 21; i++ {
			if err := add(ext[24*i:]); err != nil {
				return err
			}
		}
		extended = ext[504] != 0
	}
	h.realSize = real
	h.isSparse = true
	return nil
}

// applyPAXSparse recognises the GNU sparse conventions carried in pax
// records: 0.0 (repeated GNU.sparse.offset/numbytes), 0.1 (GNU.sparse.map)
// and 1.0 (GNU.sparse.major=1, the map at the start of the data).
func (p *paxState) applyPAXSparse(h *header, sm *sparseMap) error {
	rec := p.records
	major, minor := rec["GNU.sparse.major"], rec["GNU.sparse.minor"]
	var real string
	switch {
	case major == "1" && minor == "0":
		h.sparse1x0 = true
		real = rec["GNU.sparse.realsize"]
	case rec["GNU.sparse.map"] != "":
		fields := strings.Split(rec["GNU.sparse.map"], ",")
		if len(fields)%2 != 0 {
			return errHeader("odd GNU.sparse.map")
		}
		for i := 0; i < len(fields); i += 2 {
			off, err1 := strconv.ParseInt(fields[i], 10, 64)
			n, err2 := strconv.ParseInt(fields[i+1], 10, 64)
			if err1 != nil || err2 != nil {
				return errHeader("invalid GNU.sparse.map")
			}
			if err := sm.add(off, n); err != nil {
				return err
			}
		}
		real = rec["GNU.sparse.size"]
	case len(p.sparse00) > 0:
		if len(p.sparse00)%2 != 0 {
			return errHeader("GNU.sparse.offset without its numbytes")
		}
		for i := 0; i < len(p.sparse00); i += 2 {
			if err := sm.add(p.sparse00[i], p.sparse00[i+1]); err != nil {
				return err
			}
		}
		real = rec["GNU.sparse.size"]
	case major != "" || minor != "":
		return &archive.UnsupportedError{What: "GNU sparse format " + major + "." + minor}
	default:
		return nil
	}
	h.isSparse = true
	if name := rec["GNU.sparse.name"]; name != "" {
		h.name = name
	}
	if real != "" {
		n, err := strconv.ParseInt(real, 10, 64)
		if err != nil || n < 0 {
			return errHeader("invalid sparse real size")
		}
		h.realSize = n
	}
	return nil
}

// validSparse checks that the map's segments lie in order, without
// overlap, inside the real size, and that they add up to the data stored.
func validSparse(m *sparseMap, realSize, stored int64) error {
	var end, sum int64
	for i := range m.len() {
		s := m.at(i)
		if s.off < 0 || s.n < 0 || s.off < end || s.off > math.MaxInt64-s.n || s.off+s.n > realSize {
			return errHeader("invalid sparse map")
		}
		end = s.off + s.n
		sum += s.n
	}
	if sum != stored {
		return errHeader("sparse map does not match the data stored")
	}
	return nil
}

// readSparseMap1x0 reads the map that starts the data of a pax 1.0 sparse
// file: decimal numbers one per line (the count, then offset and length
// pairs), padded with NULs to a block boundary. Lines starting with '#'
// are passed over, as libarchive does. It reads the map into sm and
// returns how many bytes of data it took.
func readSparseMap1x0(data io.Reader, size int64, sm *sparseMap) (int64, error) {
	var (
		block [blockSize]byte
		line  []byte
		nums  int64 // numbers read after the count
		off   int64 // the offset of the pair being read
		used  int64
		count = int64(-1)
	)
	for count < 0 || nums < 2*count {
		if used+blockSize > size {
			return 0, errHeader("sparse map longer than the data")
		}
		if _, err := io.ReadFull(data, block[:]); err != nil {
			return 0, truncated(err)
		}
		used += blockSize
		rest := block[:]
		for len(rest) > 0 && (count < 0 || nums < 2*count) {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				line = append(line, rest...)
				if len(line) > 64 {
					return 0, errHeader("malformed sparse map")
				}
				break
			}
			line = append(line, rest[:i]...)
			rest = rest[i+1:]
			if len(line) > 0 && line[0] == '#' {
				line = line[:0]
				continue
			}
			v, err := strconv.ParseInt(string(line), 10, 64)
			line = line[:0]
			if err != nil || v < 0 {
				return 0, errHeader("malformed sparse map")
			}
			if count < 0 {
				// Each entry takes at least four bytes of text.
				if v > size/4 {
					return 0, errHeader("sparse map count larger than the data")
				}
				count = v
				continue
			}
			if nums++; nums%2 == 1 {
				off = v
			} else if err := sm.add(off, v); err != nil {
				return 0, err
			}
		}
	}
	return used, nil
}

// sparseReader expands a sparse file: the map's segments come from data
// in order, the holes between them read as zeros.
type sparseReader struct {
	data io.Reader
	m    *sparseMap
	i    int
	pos  int64
	size int64
}

// next returns the segment at or after the current position, and
// whether there is one.
func (s *sparseReader) next() (sparseEntry, bool) {
	for ; s.i < s.m.len(); s.i++ {
		if seg := s.m.at(s.i); s.pos < seg.off+seg.n {
			return seg, true
		}
	}
	return sparseEntry{}, false
}

// skipHole passes over the hole at the current position and returns its
// length, 0 when data or the end comes next.
func (s *sparseReader) skipHole() int64 {
	end := s.size
	if seg, ok := s.next(); ok {
		end = seg.off
	}
	if end <= s.pos {
		return 0
	}
	n := end - s.pos
	s.pos = end
	return n
}

func (s *sparseReader) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	end := s.size
	if seg, ok := s.next(); ok {
		if s.pos >= seg.off {
			k := min(int64(len(p)), seg.off+seg.n-s.pos)
			n, err := s.data.Read(p[:k])
			s.pos += int64(n)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		end = seg.off
	}
	k := min(int64(len(p)), end-s.pos)
	clear(p[:k])
	s.pos += k
	return int(k), nil
}
