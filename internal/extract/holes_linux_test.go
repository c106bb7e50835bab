package extract

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/archive"
)

// holeReader is a sparse entry's content as the tar reader hands it out:
// segments of data at offsets, holes between them that SkipHole passes
// over. Reading inside a hole fails, and so does any reading once
// forbidden is set: the extractor must skip holes, not read their zeros.
type holeReader struct {
	segs      []holeSeg
	size, pos int64
	forbidden bool
}

type holeSeg struct {
	off  int64
	data string
}

func (h *holeReader) SkipHole() (int64, error) {
	if h.forbidden {
		return 0, errors.New("SkipHole called")
	}
	end := h.size
	for _, s := range h.segs {
		if s.off+int64(len(s.data)) > h.pos {
			end = s.off
			break
		}
	}
	n := max(end-h.pos, 0)
	h.pos += n
	return n, nil
}

func (h *holeReader) Read(p []byte) (int, error) {
	if h.forbidden {
		return 0, errors.New("Read called")
	}
	if h.pos >= h.size {
		return 0, io.EOF
	}
	for _, s := range h.segs {
		if h.pos >= s.off && h.pos < s.off+int64(len(s.data)) {
			n := copy(p, s.data[h.pos-s.off:])
			h.pos += int64(n)
			return n, nil
		}
	}
	return 0, errors.New("Read inside a hole")
}

// TestSparseHolesSkippedUnread: the holes of a sparse entry whose reader
// knows them (archive.HoleSkipper) are skipped without being read, so a
// 1 TiB file of a few bytes of data costs nothing (garc read and tested
// every zero: 4 min 24 s for a 2.5 KB tar); the file has its size, its
// data and no blocks for the holes.
func TestSparseHolesSkippedUnread(t *testing.T) {
	const tib = 1 << 40
	f := newFixture(t, Options{})
	e := &archive.Entry{Name: "big", Type: archive.TypeFile, Size: tib}
	e.MutableExtra().Sparse = true
	r := &holeReader{segs: []holeSeg{{0, "head"}, {1 << 30, "middle"}, {tib - 4, "tail"}}, size: tib}
	if err := f.x.Write(e, r); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.dest, "big")
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != tib || st.Blocks*512 > 1<<20 {
		t.Errorf("size %d, %d bytes allocated; want %d, at most 1 MiB", st.Size, st.Blocks*512, int64(tib))
	}
	fd, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	for _, s := range r.segs {
		// The data, and zeros on either side of it.
		from, to := max(s.off-1, 0), min(s.off+int64(len(s.data))+1, tib)
		b := make([]byte, to-from)
		if _, err := fd.ReadAt(b, from); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		want := make([]byte, len(b))
		copy(want[s.off-from:], s.data)
		if string(b) != string(want) {
			t.Errorf("at %d: %q, want %q", from, b, want)
		}
	}
}

// TestSparseSizeRefusedAtOnce: a sparse entry larger than the file system
// (here, the process's file size limit) accepts is refused before any of
// its content is read (ErrCreate, exit 9), and nothing is left; garc
// found out only at the end, after reading every zero of it.
func TestSparseSizeRefusedAtOnce(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = 1 << 20
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_FSIZE, &old)
	f := newFixture(t, Options{})
	e := &archive.Entry{Name: "d/big", Type: archive.TypeFile, Size: 1 << 40}
	e.MutableExtra().Sparse = true
	err := f.x.Write(e, &holeReader{size: 1 << 40, forbidden: true})
	if !errors.Is(err, ErrCreate) {
		t.Fatalf("error %v, want ErrCreate", err)
	}
	if ents, err := os.ReadDir(f.dest); err != nil || len(ents) != 0 {
		t.Errorf("left in the destination: %v (%v)", ents, err)
	}
}
