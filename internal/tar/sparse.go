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
// into it and empty ones dropped (they carry no data). Its array is
// charged to the run's memory budget before it is made, the old array
// too while it is copied, so that a map of millions of entries (an old
// GNU header's extension blocks cost 512 bytes each for 21 of them) takes
// no memory beyond the limit; release gives the charge back.
type sparseMap struct {
	m       []sparseEntry
	mem     *archive.MemoryBudget
	charged int64
}

// add appends the segment of n bytes at off, or a *archive.LimitError
// when the array must grow beyond what the budget has free.
func (s *sparseMap) add(off, n int64) error {
	if k := len(s.m); k > 0 && n > 0 && off >= 0 {
		last := &s.m[k-1]
		if last.n > 0 && last.off >= 0 && last.off <= math.MaxInt64-last.n && last.off+last.n == off && last.n <= math.MaxInt64-n {
			last.n += n
			return nil
		}
	}
	if n == 0 && off >= 0 {
		return nil
	}
	if len(s.m) == cap(s.m) {
		// Growth by a quarter (at least 64 entries): the old and the
		// new array, both charged, take at most 2.25 times the map.
		c := cap(s.m) + max(cap(s.m)/4, 64)
		need := int64(c) * sparseEntrySize
		if !s.mem.TryAcquire(need) {
			return &archive.LimitError{What: "memory for a sparse map", Need: s.charged + need, Limit: s.mem.Limit()}
		}
		m := make([]sparseEntry, len(s.m), c)
		copy(m, s.m)
		s.mem.Release(s.charged)
		s.m, s.charged = m, need
	}
	s.m = append(s.m, sparseEntry{off, n})
	return nil
}

// release drops the map and gives its charge back.
func (s *sparseMap) release() {
	if s.charged > 0 {
		s.mem.Release(s.charged)
	}
	s.m, s.charged = nil, 0
}

// readOldGNUSparse reads the map of an old GNU sparse header (type 'S'):
// four entries in the header block, then extension blocks of 21 entries
// while the "is extended" byte is set. An entry with an empty offset field
// ends the map. It sets h.sparse (the array of sm) and h.realSize.
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
	h.sparse, h.isSparse = sm.m, true
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
		h.sparse = sm.m
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
		h.sparse = sm.m
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
func validSparse(m []sparseEntry, realSize, stored int64) error {
	var end, sum int64
	for _, s := range m {
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
// are passed over, as libarchive does. It returns the map (the array of
// sm) and how many bytes of data it took.
func readSparseMap1x0(data io.Reader, size int64, sm *sparseMap) ([]sparseEntry, int64, error) {
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
			return nil, 0, errHeader("sparse map longer than the data")
		}
		if _, err := io.ReadFull(data, block[:]); err != nil {
			return nil, 0, truncated(err)
		}
		used += blockSize
		rest := block[:]
		for len(rest) > 0 && (count < 0 || nums < 2*count) {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				line = append(line, rest...)
				if len(line) > 64 {
					return nil, 0, errHeader("malformed sparse map")
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
				return nil, 0, errHeader("malformed sparse map")
			}
			if count < 0 {
				// Each entry takes at least four bytes of text.
				if v > size/4 {
					return nil, 0, errHeader("sparse map count larger than the data")
				}
				count = v
				continue
			}
			if nums++; nums%2 == 1 {
				off = v
			} else if err := sm.add(off, v); err != nil {
				return nil, 0, err
			}
		}
	}
	return sm.m, used, nil
}

// sparseReader expands a sparse file: the map's segments come from data
// in order, the holes between them read as zeros.
type sparseReader struct {
	data io.Reader
	m    []sparseEntry
	i    int
	pos  int64
	size int64
}

// skipHole passes over the hole at the current position and returns its
// length, 0 when data or the end comes next.
func (s *sparseReader) skipHole() int64 {
	for s.i < len(s.m) && s.pos >= s.m[s.i].off+s.m[s.i].n {
		s.i++
	}
	end := s.size
	if s.i < len(s.m) {
		end = s.m[s.i].off
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
	for s.i < len(s.m) && s.pos >= s.m[s.i].off+s.m[s.i].n {
		s.i++
	}
	end := s.size
	if s.i < len(s.m) {
		seg := s.m[s.i]
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
