package opener

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tempname"
	"github.com/garc-dev/garc/internal/zip"
)

// StdinName is the archive name that stands for standard input, as in
// tar and bsdtar ("-f -") and 7-Zip ("-si").
const StdinName = "-"

// ErrReadOnce reports a second reading of an archive that arrives as a
// stream (standard input) and was read as it arrived: what was read is
// gone. It wraps archive.ErrUnsupported.
var ErrReadOnce = fmt.Errorf("an archive read from a pipe can be read only once: %w", archive.ErrUnsupported)

// maxSniff bounds what a Stream keeps in memory while it recognises the
// format: the start of the stream, which the reader then reads again. A
// compressed tar is told from a compressed file by decoding its first
// kilobyte, for which bzip2 needs a whole block (up to about 900 KB of
// input); the rest is left to the decoders' own limits.
const maxSniff = 16 << 20

// Stream is an archive that arrives as a stream that cannot seek, such as
// standard input. The formats that can be read front to back are read as
// they arrive, in constant memory: a tar, plain or in any of the
// compressions of internal/stream, a single compressed file, a RAR
// (rar.Stream) and a ZIP (zip.StreamReader). Their Reader is read once:
// the first reading (Entries for a listing, Extract otherwise) consumes
// the stream, and a second one fails with ErrReadOnce. Every other
// format (7z, which needs its end header, self-extractors, empty tars)
// is first copied to a temporary file
// in the spool directory and opened from there as a file is, so that it
// can be opened again (a password asked for again). On Unix the
// temporary file is removed as soon as it is created, so nothing is left
// behind whatever ends the process; elsewhere Close and
// RemoveTemporaries remove it.
type Stream struct {
	r        io.Reader
	name     string // the display name
	spoolDir string // where a temporary copy goes ("" for os.TempDir)

	spool *Spool // the temporary copy, once made
	read  bool   // handed to a reader that reads it as it arrives
}

// NewStream returns a Stream over r, named name in messages, which
// copies the formats it cannot read as they arrive into a temporary file
// in spoolDir (the destination's directory, so that the copy takes room
// where the extracted files go; "" for the system's temporary directory).
func NewStream(r io.Reader, name, spoolDir string) *Stream {
	// The decoders read headers in pieces of a few bytes: a buffer
	// saves a system call for each.
	return &Stream{r: bufio.NewReaderSize(r, streamBuffer), name: name, spoolDir: spoolDir}
}

// streamBuffer is the size of a Stream's read buffer.
const streamBuffer = 256 << 10

// Open opens the archive in the stream. See Stream.
func (s *Stream) Open(opts *archive.Options) (archive.Reader, error) {
	o := archive.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = s.name
	}
	if s.spool != nil {
		return openSpooled(s.spool.File, s.spool.Size, s.name, &o)
	}
	if s.read {
		return nil, fmt.Errorf("%s: %w", s.name, ErrReadOnce)
	}
	s.read = true
	src := &onePass{r: s.r, recording: true}
	head := make([]byte, headSizeMore)
	n, err := src.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	head = head[:n]
	if n == 0 {
		return nil, fmt.Errorf("%s: %w (empty input)", s.name, archive.ErrNotArchive)
	}
	if d, ok := detectAtStart(head); ok && d.Format != archive.Format7z {
		// RAR, read as it arrives (an SFX stub is copied, below).
		r, err := streamRAR(io.NewSectionReader(src, 0, math.MaxInt64), &o)
		src.replay()
		if err != nil {
			return nil, err
		}
		return &streamReader{fileReader: &fileReader{Reader: r, files: nopCloser{}}, src: src, name: s.name}, nil
	}
	if zip.StreamStart(head) {
		// ZIP, read as it arrives from its local headers; its central
		// directory is checked when it arrives (zip.StreamReader).
		r, err := zip.NewStreamReader(io.MultiReader(src.recorded(), &arriving{src: src}), &o)
		if err != nil {
			return nil, err
		}
		return &streamReader{fileReader: &fileReader{Reader: r, files: nopCloser{}}, src: src, name: s.name}, nil
	}
	if _, at7zOrRAR := detectAtStart(head); !at7zOrRAR {
		if format, kind, ok := leadingFormat(head); ok && format != "zip" {
			var r archive.Reader
			if format == "tar" {
				r, err = openTar(src, -1, 0, &o)
			} else {
				r, err = openCompressed(src, math.MaxInt64, kind, &o)
			}
			src.replay()
			if err != nil {
				return nil, err
			}
			unnamed(r, kind)
			return &streamReader{fileReader: &fileReader{Reader: r, files: nopCloser{}}, src: src, name: s.name}, nil
		}
	}
	if err := s.makeSpool(src); err != nil {
		return nil, err
	}
	return openSpooled(s.spool.File, s.spool.Size, s.name, &o)
}

// unnamed gives the content of a compressed file from a pipe whose header
// names no file (gzip's FNAME) the name 7-Zip gives it with -si: "~", the
// name of a file without a name, not one made from "-".
func unnamed(r archive.Reader, kind stream.Kind) {
	f, ok := r.(*stream.File)
	if !ok {
		return // a compressed tar
	}
	fromDash := stream.StoredName(kind, StdinName, stream.Header{})
	for _, e := range f.Entries() {
		if e.Name == fromDash {
			e.Name = "~"
		}
	}
}

// makeSpool copies the stream, whose start src has read, into a
// temporary file.
func (s *Stream) makeSpool(src *onePass) error {
	if src.err != nil && src.err != io.EOF {
		return fmt.Errorf("%s: %w", s.name, src.err)
	}
	sp, err := createSpool(s.spoolDir)
	if err != nil {
		return fmt.Errorf("%s: a temporary copy of the archive (7z, RAR and ZIP need one to be read from a pipe): %w", s.name, err)
	}
	if err := sp.fill(io.MultiReader(src.recorded(), s.r)); err != nil {
		sp.Close()
		return fmt.Errorf("%s: a temporary copy of the archive: %w", s.name, err)
	}
	s.spool = sp
	return nil
}

// Consumed reports whether the archive was read as it arrived: it cannot
// be opened again, so a password typed wrong cannot be asked for again.
func (s *Stream) Consumed() bool { return s.read && s.spool == nil }

// Close removes the temporary copy, if one was made.
func (s *Stream) Close() error {
	if s.spool == nil {
		return nil
	}
	err := s.spool.Close()
	s.spool = nil
	return err
}

// openSpooled opens the temporary copy of a stream (size bytes) as Open
// opens a file, the Reader not owning it.
func openSpooled(f *os.File, size int64, name string, o *archive.Options) (archive.Reader, error) {
	if size == 0 {
		return nil, fmt.Errorf("%s: %w (empty input)", name, archive.ErrNotArchive)
	}
	return openJoined(name, f, size, nopCloser{}, []string{name}, o)
}

// nopCloser closes nothing: the Stream owns its temporary copy.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// streamReader is the Reader of an archive read as it arrives.
type streamReader struct {
	*fileReader
	src  *onePass
	name string
}

// Info describes the archive; its physical size is what has been read of
// the stream so far (all of it once it was read through).
func (r *streamReader) Info() *archive.Info {
	info := r.fileReader.Info()
	info.PhysicalSize = r.src.pos
	info.Volumes = []string{r.name}
	return info
}

// Entries lists the entries; for a single compressed file, whose packed
// size is the stream's, that size is the bytes read so far.
func (r *streamReader) Entries() []*archive.Entry {
	list := r.fileReader.Entries()
	if s, ok := r.Reader.(interface{ Streaming() bool }); ok && !s.Streaming() {
		r.src.drain() // a tar's list was read from the stream
	}
	for _, e := range list {
		if e.PackedSize == math.MaxInt64 {
			e.PackedSize = r.src.pos
		}
	}
	return list
}

// Extract extracts as the format's reader does; when that reading ends
// well, what little follows the archive in the stream is read too (see
// onePass.drain).
func (r *streamReader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	err := r.fileReader.Extract(ctx, want, fn)
	if err == nil {
		r.src.drain()
	}
	return err
}

// arriving reads the rest of the stream after the start src kept, each
// read returning what has arrived (onePass fills its buffer), and counts
// it in src.pos.
type arriving struct{ src *onePass }

func (a *arriving) Read(p []byte) (int, error) {
	n, err := a.src.r.Read(p)
	a.src.pos += int64(n)
	return n, err
}

// Revisions passes on what the format learnt about entries after Extract
// handed them out (see zip.StreamReader.Revisions), for the extractor to
// apply.
func (r *streamReader) Revisions() []*archive.Entry {
	if rv, ok := r.Reader.(interface{ Revisions() []*archive.Entry }); ok {
		return rv.Revisions()
	}
	return nil
}

// OnePass reports that the archive can be read only once: a caller that
// needs the entry list before extracting must not read it first.
func (r *streamReader) OnePass() bool { return true }

// onePass is an io.ReaderAt over a stream read front to back once. While
// recording, what is read is kept, so that the readers that recognise the
// format can read the start again; after replay the kept bytes are read
// once more from offset 0 and then dropped, and from there every read
// must start where the last one ended (ErrReadOnce otherwise). A read
// further on than the stream has arrived while recording fails
// (errAhead): recognition looks only at the start. ReadAt fills p unless
// the stream ends or fails, as io.ReaderAt requires.
type onePass struct {
	r         io.Reader
	kept      []byte
	recording bool
	pos       int64 // bytes read from r
	err       error // r's error, once it failed or ended
}

// errAhead refuses a read beyond what has arrived while the format is
// being recognised (the end of a file, which a pipe gives only at its end).
var errAhead = errors.New("not read yet: the archive arrives as a stream")

// ReadAt reads len(p) bytes at off.
func (s *onePass) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(s.kept)) {
		n = copy(p, s.kept[off:])
		off += int64(n)
		if n == len(p) {
			return n, nil
		}
	}
	switch {
	case off < s.pos:
		return n, ErrReadOnce
	case off > s.pos && s.recording:
		return n, errAhead
	case off > s.pos:
		// A reader skipping data it does not need.
		if _, err := io.CopyN(io.Discard, s, off-s.pos); err != nil {
			return n, s.endErr(err)
		}
	}
	if !s.recording {
		s.kept = nil
	}
	k, err := s.Read(p[n:])
	return n + k, err
}

// Read reads the next bytes of the stream (filling p unless it ends).
func (s *onePass) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.recording && int64(len(s.kept))+int64(len(p)) > maxSniff {
		return 0, fmt.Errorf("%w (more than %d bytes to recognise the format)", errAhead, maxSniff)
	}
	k, err := io.ReadFull(s.r, p)
	if s.recording {
		s.kept = append(s.kept, p[:k]...)
	}
	s.pos += int64(k)
	if err != nil {
		s.err = s.endErr(err)
		err = s.err
	}
	return k, err
}

// maxDrain is how much of the stream after the end of an archive is
// read and dropped: a tar's last record and a compressed stream's end,
// so that the program writing into the pipe is not cut off with SIGPIPE
// (curl, cat) at the end of an archive read well.
const maxDrain = 1 << 20

// drain reads and drops up to maxDrain bytes of what is left of the
// stream.
func (s *onePass) drain() {
	if s.recording {
		return
	}
	s.kept = nil
	if s.err == nil {
		io.CopyN(io.Discard, s, maxDrain)
	}
}

// endErr is io.EOF for the stream's end, whole or within a read.
func (s *onePass) endErr(err error) error {
	if err == io.ErrUnexpectedEOF {
		return io.EOF
	}
	return err
}

// replay ends the recording: the kept start is read once more, then the
// rest of the stream.
func (s *onePass) replay() { s.recording = false }

// recorded returns the kept start for a copy of the whole stream.
func (s *onePass) recorded() io.Reader {
	s.recording = false
	return &keptReader{s: s}
}

// keptReader reads the kept start once and lets it go.
type keptReader struct{ s *onePass }

func (k *keptReader) Read(p []byte) (int, error) {
	if len(k.s.kept) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.s.kept)
	k.s.kept = k.s.kept[n:]
	return n, nil
}

// createSpool creates the temporary copy in dir (the system's temporary
// directory for ""), with a name of package tempname. Where the system
// allows it (Unix), the name is removed at once, the open file staying
// readable; elsewhere the name is kept for Close and RemoveTemporaries.
func createSpool(dir string) (*Spool, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, p, err := tempname.Create(dir, os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if os.Remove(p) == nil {
		return &Spool{File: f}, nil
	}
	spools.add(p, f)
	return &Spool{File: f, path: p}, nil
}

// Spool is a temporary copy of a stream that must be read more than
// once or whose size is needed first. On Unix its name is removed as
// soon as it is created, so that nothing is left behind whatever ends the
// process; elsewhere Close and RemoveTemporaries remove it.
type Spool struct {
	*os.File
	// Size is the number of bytes copied.
	Size int64
	path string // its name while it exists (not on Unix)
}

// NewSpool copies r into a temporary file in dir (the system's temporary
// directory when "") and returns it at its start.
func NewSpool(r io.Reader, dir string) (*Spool, error) {
	sp, err := createSpool(dir)
	if err != nil {
		return nil, err
	}
	err = sp.fill(r)
	if err == nil {
		_, err = sp.Seek(0, io.SeekStart)
	}
	if err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

// fill copies r into the spool.
func (sp *Spool) fill(r io.Reader) error {
	buf := make([]byte, 1<<20)
	n, err := io.CopyBuffer(sp.File, r, buf)
	sp.Size = n
	return err
}

// Close closes the temporary copy and removes its name if it has one.
func (sp *Spool) Close() error {
	err := sp.File.Close()
	if sp.path != "" {
		if rerr := os.Remove(sp.path); err == nil {
			err = rerr
		}
		spools.done(sp.path)
		sp.path = ""
	}
	return err
}

// spools names the temporary copies that exist under their names, with
// their open files, for RemoveTemporaries.
var spools = spoolSet{paths: map[string]*os.File{}}

type spoolSet struct {
	mu    sync.Mutex
	paths map[string]*os.File
}

func (s *spoolSet) add(p string, f *os.File) {
	s.mu.Lock()
	s.paths[p] = f
	s.mu.Unlock()
}

func (s *spoolSet) done(p string) {
	s.mu.Lock()
	delete(s.paths, p)
	s.mu.Unlock()
}

// RemoveTemporaries closes and removes the temporary copies of streams
// that still have a name, for a process that exits without unwinding (an
// interrupted run). The file is closed first because Windows does not
// remove a file that is open. On Unix there are none: a copy loses its
// name as soon as it is made.
func RemoveTemporaries() {
	spools.mu.Lock()
	defer spools.mu.Unlock()
	for p, f := range spools.paths {
		f.Close()
		os.Remove(p)
		delete(spools.paths, p)
	}
}
