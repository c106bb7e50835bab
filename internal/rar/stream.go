package rar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/garc-dev/garc/internal/archive"
)

// A RAR archive is a sequence of headers, each followed by its entry's
// packed data, so that it can be read front to back as it arrives
// (standard input): Stream discovers the entries as it reads them, with
// the parsers and decoders of the reader that reads a file. The parser
// runs as a coroutine (iter.Pull) that hands over each entry as its
// header is read; the entry's data is decoded (or skipped) before the
// parser reads on, through a seqSource, an io.ReaderAt over the stream
// that keeps the last seqKeep bytes for the read-ahead of the reader's
// windows.

// ErrReadOnce reports a second reading of an archive read as it arrives
// from a stream: what was read is gone. It wraps archive.ErrUnsupported.
var ErrReadOnce = fmt.Errorf("a RAR archive read from a stream can be read only once: %w", archive.ErrUnsupported)

// errStopped ends the parser when the reading stops early.
var errStopped = errors.New("reading stopped")

// Stream is a RAR archive (RAR 1.4 to 7, single volume) read front to
// back from an io.Reader, in memory that does not grow with the entries'
// sizes. It implements archive.Reader, read once: the first reading
// (Entries for a listing, which skips the entries' data, or Extract,
// which builds the entry list as it goes) consumes the stream, and a
// later Extract fails with ErrReadOnce. NewStream reads up to the first
// entry's header, so that the format, the archive flags and a wrong
// password for encrypted headers are known when it returns.
//
// What the stream cannot give is reported as such: a volume set's next
// volume (an entry continued there fails naming it, as does Extract, with
// an error wrapping ErrMissingVolume), and solid predecessors of an entry
// are always decoded, since the stream cannot be read again.
type Stream struct {
	r *reader

	next     func() (*fileInfo, bool)
	stop     func()
	parseErr error // the parser's result, once it has returned

	pending *fileInfo // read by NewStream, not yet handed out
	used    bool      // a reading has started
	err     error     // what ended the reading early
}

// NewStream reads a RAR archive whose signature starts src, front to
// back. An SFX stub before the signature is not skipped: a stream that
// does not start with a RAR signature is not a RAR archive here. Close
// ends the reading (src is the caller's).
func NewStream(src io.Reader, opts *archive.Options) (*Stream, error) {
	r := newReader(opts)
	r.seq = &seqSource{r: src}
	r.info.Volumes = []string{r.name}
	s := &Stream{r: r}
	s.next, s.stop = iter.Pull(func(yield func(*fileInfo) bool) {
		r.yield = yield
		s.parseErr = r.openVolumes(r.seq, math.MaxInt64, 0, "", nil)
		r.yield = nil
	})
	f, ok := s.next()
	if !ok && s.parseErr != nil {
		s.stop()
		r.Close()
		return nil, s.parseErr
	}
	s.pending = f
	s.physicalSize()
	return s, nil
}

// yieldEntry hands f, the latest entry of a stream, over to the reading;
// an entry that continues in the next volume makes that volume missing
// now, before its data is read.
func (r *reader) yieldEntry(f *fileInfo) error {
	f.e.Index = int32(len(r.files) - 1)
	f.e.Block = -1
	if f.e.SplitAfter && r.missing == nil {
		r.missing = r.streamNextVolume(false)
	}
	if !r.yield(f) {
		return errStopped
	}
	return nil
}

// streamNextVolume is the error of a volume set read from a stream: the
// next volume cannot come through it. The volume is named by its number
// when the headers give it (RAR5 numbers its volumes) or when this volume
// is the first (its flag says so, or its first entry does not continue
// one from before).
func (r *reader) streamNextVolume(first bool) error {
	vol := "the next volume"
	switch {
	case r.volNumber > 0:
		vol = fmt.Sprintf("volume %d", r.volNumber+2)
	case first || r.info.Format == archive.FormatRAR5 || len(r.files) > 0 && !r.files[0].e.SplitBefore:
		vol = "volume 2"
	}
	mv := &missingVolumeError{volume: vol,
		msg: fmt.Sprintf("the archive continues in %s of its set, which cannot come through a pipe: read the set from its files", vol)}
	return r.errf("", -1, mv)
}

// avail reports whether the headers go on at pos of volume vol: whether n
// bytes are there. For a stream it reads them first, so that the end of
// the stream, found there, gives the volume its size; a stream that ends
// before pos, within the data of the header before, ends the headers with
// that damage (tailErr, reported after the entries before it).
func (r *reader) avail(vol int, pos, n int64) bool {
	if s := r.seq; s != nil && vol == 0 && r.sizes[0] == math.MaxInt64 {
		var b [32]byte
		s.ReadAt(b[:min(n, int64(len(b)))], pos)
		if s.err == io.EOF {
			r.sizes[0] = s.end
			if pos > s.end && r.tailErr == nil {
				r.tailErr = r.errf("", s.end, fmt.Errorf("%w: the archive ends within the data of the header before offset %d", archive.ErrFormat, pos))
			}
		}
	}
	return pos+n <= r.sizes[vol]
}

// Info describes the archive; its physical size is what has been read of
// the stream so far.
func (s *Stream) Info() *archive.Info {
	s.physicalSize()
	return &s.r.info
}

func (s *Stream) physicalSize() {
	s.r.info.PhysicalSize = s.r.seq.end
	s.r.info.Volumes = []string{s.r.name}
}

// Streaming reports whether the entry list is still unread, so that
// Extract would build it as it goes: a caller working from Extract's
// callbacks alone should not call Entries first.
func (s *Stream) Streaming() bool { return !s.used }

// Err returns what ended the reading early (a damaged or truncated
// header, a missing volume), which Entries has no result for; nil when
// the archive was read to its end.
func (s *Stream) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.r.missing
}

// Entries lists the entries. Unless Extract has read the stream, it reads
// the whole archive, skipping the entries' data; the targets of small
// RAR 1.5–4.x symbolic links are decoded on the way, those whose solid
// predecessors were skipped left empty.
func (s *Stream) Entries() []*archive.Entry {
	if !s.used {
		s.err = s.read(context.Background(), true, nil, func(*archive.Entry, io.Reader) error { return nil })
	}
	return s.r.entries
}

// Extract reads the archive, calling fn for every entry want selects as
// its header is read (see archive.Reader). Entries of a solid stream that
// are not wanted are decoded to nothing, since a later entry may continue
// from them; the data of the others is skipped.
func (s *Stream) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if s.used {
		return s.r.errf("", -1, ErrReadOnce)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	err := s.read(ctx, false, want, fn)
	if err != nil && s.err == nil {
		s.err = err
	}
	return err
}

// read makes the one pass over the stream. listing decodes only the link
// targets a listing shows.
func (s *Stream) read(ctx context.Context, listing bool, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	s.used = true
	r := s.r
	r.extracting = true
	defer func() {
		r.extracting = false
		s.stop()
		r.finish()
		s.physicalSize()
	}()
	var cr contentReader
	defer cr.release()
	var broken [numAlgos]error
	var skipped [numAlgos]bool // listing: a solid stream's entry was skipped
	var work int64             // listing: bytes decoded for link targets
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := s.pending
		s.pending = nil
		if f == nil {
			var ok bool
			if f, ok = s.next(); !ok {
				break
			}
		}
		dec := f.usesDecoder()
		var wanted, decode bool
		if listing {
			if dec && !f.solid {
				skipped[f.algo] = false
			}
			wanted = f.linkData && f.enc == encNone && !f.badMethod && f.e.Size >= 0 && f.e.Size <= maxListedLinkTarget &&
				!(dec && skipped[f.algo]) && work+f.e.Size <= maxLinkListWork
			if wanted {
				work += f.e.Size
			} else if dec {
				skipped[f.algo] = true
			}
			decode = wanted
		} else {
			wanted = want == nil || want(&f.e)
			decode = wanted || dec && (r.info.Solid || f.solid)
		}
		if !decode {
			continue // the next header is read past the data
		}
		if err := r.extractOne(ctx, &cr, f, wanted, dec && r.info.Solid, &broken, fn); err != nil {
			return err
		}
	}
	if s.parseErr != nil && !errors.Is(s.parseErr, errStopped) {
		return s.parseErr
	}
	if r.tailErr != nil {
		return r.tailErr // damage, which may have made the set look cut
	}
	return r.missing
}

// Close ends the reading and releases the decoders' memory.
func (s *Stream) Close() error {
	s.stop()
	return s.r.Close()
}

var _ archive.Reader = (*Stream)(nil)

// seqKeep is how many of the last bytes read a seqSource keeps for reads
// that start before its end: the reader's windows read up to maxWindow
// bytes ahead of what they serve, and the next header or entry starts
// within them.
const seqKeep = 2 * maxWindow

// seqSource is an io.ReaderAt over a stream read once, front to back:
// reads may start up to seqKeep bytes before the end of what was read
// (kept) or anywhere after it (the bytes between are read and dropped).
type seqSource struct {
	r    io.Reader
	keep []byte // the stream's bytes [end-len(keep), end)
	end  int64  // bytes read from r
	err  error  // r's error once it failed or ended (io.EOF)
}

// errBehind is a read before what a seqSource keeps, which the reader's
// access pattern never makes.
var errBehind = fmt.Errorf("%w: the stream was read past this offset already", archive.ErrUnsupported)

// ReadAt reads len(p) bytes at off, fewer only at the end of the stream
// (io.EOF) or when it fails.
func (s *seqSource) ReadAt(p []byte, off int64) (int, error) {
	start := s.end - int64(len(s.keep))
	if off < start {
		return 0, fmt.Errorf("offset %d: %w", off, errBehind)
	}
	n := 0
	if off < s.end {
		n = copy(p, s.keep[off-start:])
		if n == len(p) {
			return n, nil
		}
		off += int64(n)
	}
	if off > s.end {
		if s.err != nil {
			return n, s.err
		}
		k, err := io.CopyN(io.Discard, s.r, off-s.end)
		s.end += k
		s.keep = s.keep[:0]
		if err != nil {
			s.err = err
			return n, err
		}
	}
	if s.err != nil {
		return n, s.err
	}
	k, err := io.ReadFull(s.r, p[n:])
	s.remember(p[n : n+k])
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	if err != nil {
		s.err = err
	}
	return n + k, err
}

// remember appends b, just read, to the kept bytes.
func (s *seqSource) remember(b []byte) {
	s.end += int64(len(b))
	if s.keep == nil {
		s.keep = make([]byte, 0, 2*seqKeep)
	}
	if len(b) >= seqKeep {
		s.keep = append(s.keep[:0], b[len(b)-seqKeep:]...)
		return
	}
	if len(s.keep)+len(b) > cap(s.keep) {
		n := copy(s.keep, s.keep[len(s.keep)-(seqKeep-len(b)):])
		s.keep = s.keep[:n]
	}
	s.keep = append(s.keep, b...)
}
