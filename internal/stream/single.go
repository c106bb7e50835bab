package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/xz"
)

// File is a compressed single file opened as a one-entry archive.Reader.
type File struct {
	src   io.ReaderAt
	size  int64
	kind  Kind
	opts  archive.Options
	info  archive.Info
	entry archive.Entry
	list  []*archive.Entry
	// sizeHint says that entry.Size is what the file's trailer says
	// (gzip's ISIZE: the last member's size modulo 2^32), shown in
	// listings but not enforced: Extract replaces it by the bytes
	// decoded.
	sizeHint bool
}

// OpenFile opens the compressed file of kind k held in src (size bytes).
// It reads the stream's header to name the entry; the data is decoded by
// Extract.
func OpenFile(src io.ReaderAt, size int64, k Kind, opts *archive.Options) (*File, error) {
	f := &File{src: src, size: size, kind: k}
	if opts != nil {
		f.opts = *opts
	}
	d, h, err := NewDecoder(k, io.NewSectionReader(src, 0, size), f.opts.Limit(), f.opts.Threads)
	if err != nil {
		return nil, f.wrap(err)
	}
	d.Close()
	details := readDetails(src, size, k)
	f.info = archive.Info{Format: k.Format(), PhysicalSize: size, Methods: []string{k.String()},
		Details: details}
	f.entry = archive.Entry{
		Name: StoredName(k, f.opts.Name, h), Type: archive.TypeFile, Size: h.Size, PackedSize: size,
		Method: k.String(), ModTime: h.ModTime, Block: -1, HostOS: details.hostOS(),
	}
	f.list = []*archive.Entry{&f.entry}
	switch k {
	case XZ:
		if n, ok := xz.UncompressedSize(src, size); ok {
			f.entry.Size = n
		}
	case Gzip:
		// 7-Zip lists the ISIZE of the trailer; it is the whole size
		// when the file has one member of less than 4 GiB.
		var trailer [4]byte
		if size >= minGzipSize {
			if _, err := src.ReadAt(trailer[:], size-4); err == nil {
				f.entry.Size, f.sizeHint = int64(binary.LittleEndian.Uint32(trailer[:])), true
			}
		}
	}
	return f, nil
}

// minGzipSize is the size of the smallest gzip member: a 10-byte header,
// an empty Deflate block and the 8-byte trailer.
const minGzipSize = 20

// Info describes the file.
func (f *File) Info() *archive.Info { return &f.info }

// Entries returns the one entry.
func (f *File) Entries() []*archive.Entry { return f.list }

// Close releases nothing: the caller owns src.
func (f *File) Close() error { return nil }

// Extract decodes the stream when want selects the entry.
func (f *File) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if want != nil && !want(&f.entry) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d, _, err := NewDecoder(f.kind, io.NewSectionReader(f.src, 0, f.size), f.opts.Limit(), f.opts.Threads)
	if err != nil {
		return f.wrap(err)
	}
	defer d.Close()
	r := &contentReader{ctx: ctx, d: d, f: f}
	if err := fn(&f.entry, r); err != nil {
		return err
	}
	if r.err == nil {
		// Decode what the callback left unread, so corruption is reported.
		_, err := io.Copy(io.Discard, r)
		if err != nil {
			return err
		}
	}
	return nil
}

// contentReader is the entry's content: the decoded stream, with errors
// naming the archive and entry and with the declared size enforced.
type contentReader struct {
	ctx context.Context
	d   Decoder
	f   *File
	n   int64
	err error
	buf []byte // what ReadChunk reads into when d lends nothing
}

// chunkSize is the most ReadChunk returns at once.
const chunkSize = 256 << 10

func (r *contentReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.n&(1<<20-1) < int64(len(p)) {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n, err := r.d.Read(p)
	return r.account(n, err)
}

// ReadChunk is Read without a buffer of the caller's
// (archive.ChunkReader): the bytes come from the read-ahead's buffer
// where the decoder is read ahead, valid until the next call of ReadChunk
// or Read, then io.EOF. An extractor takes the content this way, which
// tells the read-ahead that its reader writes files (readahead.go).
func (r *contentReader) ReadChunk() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.n&(1<<20-1) < chunkSize {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return nil, err
		}
	}
	var b []byte
	var err error
	if ra, ok := r.d.(*readAhead); ok {
		b, err = ra.ReadChunk(chunkSize)
	} else {
		if r.buf == nil {
			r.buf = make([]byte, chunkSize)
		}
		var n int
		n, err = r.d.Read(r.buf)
		b = r.buf[:n]
	}
	n, err := r.account(len(b), err)
	return b[:n], err
}

// account counts n bytes read with err, enforcing the declared size, and
// returns how many of them to give out and the error to give with them.
func (r *contentReader) account(n int, err error) (int, error) {
	r.n += int64(n)
	if r.f.sizeHint {
		if err == io.EOF {
			r.f.entry.Size, r.f.sizeHint = r.n, false
		} else if err != nil {
			r.err = r.f.wrap(err)
			return n, r.err
		}
		return n, err
	}
	if size := r.f.entry.Size; size >= 0 && r.n > size {
		r.err = r.f.wrap(fmt.Errorf("%s: data longer than the declared size %d: %w", r.f.kind, size, archive.ErrFormat))
		return 0, r.err
	}
	if err == io.EOF {
		if size := r.f.entry.Size; size >= 0 && r.n != size {
			err = fmt.Errorf("%s: data shorter than the declared size %d: %w", r.f.kind, size, archive.ErrFormat)
		} else {
			return n, io.EOF
		}
	}
	if err != nil {
		r.err = r.f.wrap(err)
		return n, r.err
	}
	return n, nil
}

// wrap names the archive and entry in err.
func (f *File) wrap(err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) && ae.Archive == "" {
		e := *ae
		e.Archive, e.Entry = f.opts.Name, f.entry.Name
		return &e
	}
	return &archive.Error{Archive: f.opts.Name, Entry: f.entry.Name, Offset: -1, Err: err}
}
