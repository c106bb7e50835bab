package cli

import (
	"io"
	"os"

	"github.com/garc-dev/garc/internal/archive"
)

// holeSink takes the holes of a sparse entry (tar's GNU and pax sparse
// files, whose readers implement archive.HoleSkipper) in place of the
// zeros they read as: skip passes over n bytes, end finishes an entry
// that may end in a hole.
type holeSink interface {
	skip(n int64) error
	end() error
}

// copyContent copies an entry's content rd to w through buf and returns
// the bytes copied, holes included. Where rd skips holes and sink is not
// nil, each hole goes to sink instead of being read as zeros, so that
// the copy takes time in proportion to the data and the map, not to the
// entry's size (a tar of a few KiB can declare a sparse file of
// petabytes); with a nil sink the holes are read, and written, as zeros.
func copyContent(w io.Writer, rd io.Reader, buf []byte, sink holeSink) (int64, error) {
	hs, ok := rd.(archive.HoleSkipper)
	if !ok || sink == nil {
		return io.CopyBuffer(w, rd, buf)
	}
	var total int64
	for {
		h, err := hs.SkipHole()
		if err != nil {
			return total, err
		}
		if h > 0 {
			if err := sink.skip(h); err != nil {
				return total, err
			}
			total += h
		}
		n, err := rd.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, sink.end()
		}
		if err != nil {
			return total, err
		}
	}
}

// countHoles is t's holeSink: a hole is only counted, never produced.
type countHoles struct{}

func (countHoles) skip(int64) error { return nil }
func (countHoles) end() error       { return nil }

// fileHoles is -so's holeSink when standard output is a regular file
// written at its end (garc x -so a.tar > file): a hole is passed over
// with a seek, leaving a hole in the file, as GNU tar's -O does, and a
// file that ends in one is extended to its size. Where the file holds
// bytes beyond the position (opened without truncating) the hole is
// written as zeros, which the bytes there must become.
type fileHoles struct {
	s       *stdoutWriter
	f       *os.File
	zeros   []byte
	pending bool // the last hole was passed over by a seek
}

// stdoutHoles returns the holeSink -so gives a sparse entry's holes: a
// fileHoles when standard output is a regular file that is not opened
// for appending, otherwise nil (a pipe or a terminal gets the zeros, as
// GNU tar writes them: that costs the size, which the reader of the
// stream asked for).
func stdoutHoles(s *stdoutWriter) holeSink {
	f, ok := s.w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || appendOnly(f) {
		return nil
	}
	return &fileHoles{s: s, f: f}
}

func (h *fileHoles) skip(n int64) error {
	pos, err := h.f.Seek(0, io.SeekCurrent)
	var fi os.FileInfo
	if err == nil {
		fi, err = h.f.Stat()
	}
	if err == nil && pos >= fi.Size() {
		if _, err = h.f.Seek(n, io.SeekCurrent); err == nil {
			h.pending = true
			return nil
		}
	}
	if err != nil {
		return h.fail(err)
	}
	// Bytes of the file lie ahead: write the zeros over them.
	if h.zeros == nil {
		h.zeros = make([]byte, 64<<10)
	}
	for n > 0 {
		k := min(n, int64(len(h.zeros)))
		if _, err := h.s.Write(h.zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	h.pending = false
	return nil
}

func (h *fileHoles) end() error {
	if !h.pending {
		return nil
	}
	h.pending = false
	pos, err := h.f.Seek(0, io.SeekCurrent)
	if err == nil {
		err = h.f.Truncate(pos) // past the end: it only extends the file
	}
	if err != nil {
		return h.fail(err)
	}
	return nil
}

// fail records err as standard output's error, as stdoutWriter does for
// a failed write.
func (h *fileHoles) fail(err error) error {
	if h.s.err == nil {
		h.s.err = err
	}
	return err
}
