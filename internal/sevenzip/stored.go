package sevenzip

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Stored folders (a single Copy coder, as 7-Zip writes with -m0=Copy: a
// folder per file) need no decoder: an entry's bytes lie in the archive
// as they are. Extract reads them through one reusable window instead of
// opening a folder stream per entry (a decode context, a buffered packed
// reader and a read of its own for every file, issue 13): a run of small
// entries costs one ReadAt per window and no allocation per entry.

// storedWindow is the most archive bytes read ahead at once for stored
// entries, and minStoredRead the least: a window that served several
// entries is followed by one twice as large, one that served a single
// entry (a sparse selection) by the smallest, so that picking a few
// entries out of a large archive reads little more than them. An entry
// larger than the window is read straight into the caller's buffer.
const (
	storedWindow  = 256 << 10
	minStoredRead = 4 << 10
)

// storedReader yields the content of one entry of a stored folder at a
// time (set), from the window or straight from the archive, and checks
// its CRC at the end. One serves every stored entry of an Extract call:
// the ExtractFunc's reader is valid only during the callback.
type storedReader struct {
	rd  *Reader
	ctx context.Context
	// buf holds archive bytes [start, start+len(buf)); served counts
	// the entries that started in it, readSize is the next fill's size.
	buf      []byte
	start    int64
	served   int
	readSize int

	// The current entry: its name (for errors), folder, the archive
	// offset of its next byte and the bytes left.
	name   string
	folder int
	off    int64
	n      int64
	crc    uint32
	hasCRC bool
	want   uint32
	done   bool
	err    error

	// isStored caches stored's answer for folder lastFolder.
	lastFolder int
	isStored   bool
}

// stored reports whether folder fo is stored: one Copy coder fed by one
// packed stream that lies inside the archive, as long as its output, and
// no folder CRC to check beyond the entries' own (that needs the folder
// read as a whole). The answer for the last folder asked is kept, so
// that the entries of a folder cost one check.
func (s *storedReader) stored(fo int) bool {
	if fo == s.lastFolder {
		return s.isStored
	}
	s.lastFolder, s.isStored = fo, s.rd.folderStored(fo)
	return s.isStored
}

// folderStored is stored's check, uncached.
func (rd *Reader) folderStored(fo int) bool {
	si := &rd.hdr.main
	f := &si.folders[fo]
	if len(f.coders) != 1 || len(f.bindPairs) != 0 || len(f.packed) != 1 || len(f.unpackSizes) != 1 {
		return false
	}
	c := &f.coders[0]
	if c.id != methodCopy || c.numIn != 1 || c.numOut != 1 || f.firstPack() >= len(si.packSizes) {
		return false
	}
	size := si.packSizes[f.firstPack()]
	start := signatureHeaderSize + f.packOffset
	if f.unpackSizes[0] != size || start < signatureHeaderSize || start > rd.size || size > uint64(rd.size-start) {
		return false
	}
	if f.hasCRC() && f.numSub > 1 {
		for j := range f.numSub {
			if !si.subHasCRC[f.firstSub+j] {
				return false
			}
		}
	}
	return true
}

// newStoredReader returns the reader of stored entries for one Extract
// call; its window is allocated on first use.
func (rd *Reader) newStoredReader(ctx context.Context) *storedReader {
	return &storedReader{rd: rd, ctx: ctx, lastFolder: -1}
}

// set makes e, entry i of a stored folder, the current entry.
func (s *storedReader) set(e *archive.Entry, m *entryMeta) {
	si := &s.rd.hdr.main
	f := &si.folders[m.folder()]
	s.name, s.folder = e.Name, m.folder()
	s.off = signatureHeaderSize + f.packOffset + m.offset
	s.n = e.Size
	s.crc, s.hasCRC, s.want = 0, si.subHasCRC[m.sub()], si.subCRCs[m.sub()]
	s.done, s.err = false, nil
	if s.off >= s.start && s.off < s.start+int64(len(s.buf)) {
		s.served++
	}
	if end := uint64(m.offset) + uint64(e.Size); e.Size < 0 || m.offset < 0 || end > f.unpackSizes[0] {
		// Substreams longer than the folder: the general path would
		// run out of data.
		s.err = s.fail(s.off, errShort)
	}
}

// fail locates err at the archive offset off in the current entry.
func (s *storedReader) fail(off int64, err error) error {
	return s.rd.wrap(s.name, &locatedError{off: off, err: fmt.Errorf("7z folder %d: %w", s.folder, err)})
}

func (s *storedReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.n <= 0 {
		if !s.done {
			s.done = true
			if s.hasCRC && s.crc != s.want {
				s.err = s.fail(-1, fmt.Errorf("CRC %08x, want %08x: %w", s.crc, s.want, archive.ErrChecksum))
				return 0, s.err
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > s.n {
		p = p[:s.n]
	}
	var k int
	if s.off >= s.start && s.off < s.start+int64(len(s.buf)) {
		k = copy(p, s.buf[s.off-s.start:])
	} else {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return 0, err
		}
		var err error
		if s.n >= storedWindow {
			// A large entry: no copy through the window.
			k, err = s.rd.ra.ReadAt(p, s.off)
		} else {
			err = s.fill()
			k = copy(p, s.buf[s.off-s.start:])
		}
		if k == 0 {
			if err == nil || err == io.EOF {
				err = errShort // the archive shrank since it was opened
			}
			s.err = s.fail(s.off, err)
			return 0, s.err
		}
	}
	if s.hasCRC {
		s.crc = crc32.Update(s.crc, crc32.IEEETable, p[:k])
	}
	s.off += int64(k)
	s.n -= int64(k)
	return k, nil
}

// fill reads the window from s.off on. The window may end early at the
// end of the archive; an error comes with what was read before it.
func (s *storedReader) fill() error {
	if s.buf == nil {
		// A small archive needs no larger window than itself.
		s.buf = make([]byte, min(storedWindow, s.rd.size))
	}
	switch {
	case s.readSize == 0 || s.served <= 1:
		s.readSize = minStoredRead
	default:
		s.readSize = min(2*s.readSize, storedWindow)
	}
	want := max(int64(s.readSize), s.n)
	s.buf = s.buf[:max(0, min(int64(cap(s.buf)), s.rd.size-s.off, want))]
	s.start, s.served = s.off, 1
	n, err := s.rd.ra.ReadAt(s.buf, s.off)
	s.buf = s.buf[:n]
	if n > 0 && err == io.EOF {
		err = nil
	}
	return err
}

// extractStored hands e, an entry of a stored folder made current in s,
// to fn.
func (rd *Reader) extractStored(e *archive.Entry, m *entryMeta, s *storedReader, fn archive.ExtractFunc) error {
	if e.Type != archive.TypeSymlink {
		return fn(e, s)
	}
	target, err := readLinkTarget(s, e.Size, m.reparse(), e)
	if err != nil {
		return fn(e, &errReader{err: rd.wrap(e.Name, err)})
	}
	e.LinkTarget = target
	return fn(e, emptyReader)
}
