package tar

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// sparseEntrySize is what one map entry costs in memory, charged against
// the memory limit before the map grows.
const sparseEntrySize = 16

// readOldGNUSparse reads the map of an old GNU sparse header (type 'S'):
// four entries in the header block, then extension blocks of 21 entries
// while the "is extended" byte is set. An entry with an empty offset field
// ends the map. It sets h.sparse and h.realSize.
func readOldGNUSparse(h *header, block []byte, in io.Reader, limit int64) error {
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
		if int64(len(h.sparse)+1)*sparseEntrySize > limit {
			return &archive.LimitError{What: "memory for a sparse map", Need: int64(len(h.sparse)+1) * sparseEntrySize, Limit: limit}
		}
		h.sparse = append(h.sparse, sparseEntry{off, n})
		return nil
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
func (p *paxState) applyPAXSparse(h *header, limit int64) error {
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
		if int64(len(fields)/2)*sparseEntrySize > limit {
			return &archive.LimitError{What: "memory for a sparse map", Need: int64(len(fields)/2) * sparseEntrySize, Limit: limit}
		}
		for i := 0; i < len(fields); i += 2 {
			off, err1 := strconv.ParseInt(fields[i], 10, 64)
			n, err2 := strconv.ParseInt(fields[i+1], 10, 64)
			if err1 != nil || err2 != nil {
				return errHeader("invalid GNU.sparse.map")
			}
			h.sparse = append(h.sparse, sparseEntry{off, n})
		}
		real = rec["GNU.sparse.size"]
	case len(p.sparse00) > 0:
		if len(p.sparse00)%2 != 0 {
			return errHeader("GNU.sparse.offset without its numbytes")
		}
		for i := 0; i < len(p.sparse00); i += 2 {
			h.sparse = append(h.sparse, sparseEntry{p.sparse00[i], p.sparse00[i+1]})
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
// are passed over, as libarchive does. It returns the map and how many
// bytes of data it took.
func readSparseMap1x0(data io.Reader, size, limit int64) ([]sparseEntry, int64, error) {
	var (
		block [blockSize]byte
		line  []byte
		nums  []int64
		used  int64
		count = int64(-1)
	)
	for count < 0 || int64(len(nums)) < 2*count {
		if used+blockSize > size {
			return nil, 0, errHeader("sparse map longer than the data")
		}
		if _, err := io.ReadFull(data, block[:]); err != nil {
			return nil, 0, truncated(err)
		}
		used += blockSize
		rest := block[:]
		for len(rest) > 0 && (count < 0 || int64(len(nums)) < 2*count) {
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
				if v*sparseEntrySize > limit {
					return nil, 0, &archive.LimitError{What: "memory for a sparse map", Need: v * sparseEntrySize, Limit: limit}
				}
				count = v
				nums = make([]int64, 0, 2*v)
				continue
			}
			nums = append(nums, v)
		}
	}
	m := make([]sparseEntry, count)
	for i := range m {
		m[i] = sparseEntry{nums[2*i], nums[2*i+1]}
	}
	return m, used, nil
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
