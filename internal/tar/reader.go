package tar

import (
	stdtar "archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// typeGNUVolume is GNU tar's volume label pseudo-entry, which archive/tar
// passes through as a header.
const typeGNUVolume = 'V'

// typeSolarisACL and typeSolarisExtended are Solaris tar's ACL and
// extended-attribute records, which precede the entry they describe.
const (
	typeSolarisACL      = 'A'
	typeSolarisExtended = 'E'
)

// typeGNUDumpDir is GNU tar's incremental directory listing: a directory.
const typeGNUDumpDir = 'D'

// entryCost is what one entry's metadata costs in memory besides its names,
// charged against the memory limit before the entry is kept.
const entryCost = 320

// Reader is an opened tar archive.
type Reader struct {
	src     io.ReaderAt
	size    int64
	kind    stream.Kind // 0: not compressed
	opts    archive.Options
	info    archive.Info
	entries []*archive.Entry
	// skipped names the device and FIFO entries left out of the listing.
	skipped []string
}

// IsEmpty reports whether head starts with the two zero blocks that end a
// tar archive, which is all an empty archive holds.
func IsEmpty(head []byte) bool { return len(head) >= 1024 && allZero(head[:1024]) }

// IsHeader reports whether head, the first bytes of a file, starts with a
// tar header: the ustar magic at offset 257, or a checksum that matches
// (the only mark a v7 header has).
func IsHeader(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	block := head[:512]
	if string(block[257:262]) == "ustar" {
		return true
	}
	stored, ok := parseOctal(block[148:156])
	if !ok {
		return false
	}
	var unsigned, signed int64
	for i, c := range block[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return block[0] != 0 && (stored == unsigned || stored == signed)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func parseOctal(b []byte) (int64, bool) {
	s := strings.Trim(string(b), " \x00")
	if s == "" {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v*8 + int64(c-'0')
	}
	return v, true
}

// Open reads the headers of the tar archive in src (size bytes), which is
// compressed with kind (0 for a plain tar), and returns a Reader. Errors
// wrap archive sentinels and name the archive (opts.Name).
func Open(src io.ReaderAt, size int64, kind stream.Kind, opts *archive.Options) (*Reader, error) {
	r := &Reader{src: src, size: size, kind: kind}
	if opts != nil {
		r.opts = *opts
	}
	format := archive.Format("tar")
	methods := []string(nil)
	if kind != 0 {
		format = archive.Format("tar." + kind.Suffix())
		methods = []string{kind.String()}
	}
	r.info = archive.Info{Format: format, PhysicalSize: size, Methods: methods}
	if err := r.scan(); err != nil {
		return nil, err
	}
	return r, nil
}

// Info describes the archive.
func (r *Reader) Info() *archive.Info { return &r.info }

// Entries lists the entries in archive order.
func (r *Reader) Entries() []*archive.Entry { return r.entries }

// Skipped names the character devices, block devices and FIFOs the archive
// holds, which garc neither lists nor creates.
func (r *Reader) Skipped() []string { return r.skipped }

// Close releases nothing: the caller owns src.
func (r *Reader) Close() error { return nil }

// pass is one front-to-back reading of the archive.
type pass struct {
	in  *countingReader
	dec stream.Decoder
	tr  *stdtar.Reader
}

func (r *Reader) newPass() (*pass, error) {
	sec := io.NewSectionReader(r.src, 0, r.size)
	p := &pass{}
	if r.kind == 0 {
		p.in = &countingReader{r: sec, seeker: sec}
	} else {
		d, _, err := stream.NewDecoder(r.kind, sec, r.opts.Limit(), r.opts.Threads)
		if err != nil {
			return nil, r.wrap("", -1, err)
		}
		p.dec = d
		p.in = &countingReader{r: d}
	}
	if p.in.seeker != nil {
		p.tr = stdtar.NewReader(seekingReader{p.in})
	} else {
		p.tr = stdtar.NewReader(p.in)
	}
	return p, nil
}

func (p *pass) close() {
	if p.dec != nil {
		p.dec.Close()
	}
}

// next returns the next header garc keeps (global pax headers, volume
// labels and special files are passed over; specials are reported through
// skip), or io.EOF.
func (r *Reader) next(p *pass, skip func(*stdtar.Header)) (*stdtar.Header, int64, error) {
	for {
		h, err := p.tr.Next()
		at := max(p.in.n-512, 0) // the header block was the last thing read
		if err == io.EOF {
			return nil, p.in.n, io.EOF
		}
		if err != nil {
			return nil, at, r.wrap("", at, headerError(err))
		}
		switch h.Typeflag {
		case stdtar.TypeXGlobalHeader, typeGNUVolume, typeSolarisACL, typeSolarisExtended:
			continue
		case stdtar.TypeChar, stdtar.TypeBlock, stdtar.TypeFifo:
			if skip != nil {
				skip(h)
			}
			continue
		}
		return h, at, nil
	}
}

// scan reads every header once and builds the entry list.
func (r *Reader) scan() error {
	p, err := r.newPass()
	if err != nil {
		return err
	}
	defer p.close()
	limit := r.opts.Limit()
	var used int64
	for {
		h, at, err := r.next(p, func(h *stdtar.Header) { r.skipped = append(r.skipped, h.Name) })
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		used += entryCost + int64(len(h.Name)+len(h.Linkname)+len(h.Uname)+len(h.Gname))
		if used > limit {
			return r.wrap(h.Name, at, &archive.LimitError{What: "memory for the entry list", Need: used, Limit: limit})
		}
		e := entryOf(h)
		e.Index = len(r.entries)
		r.entries = append(r.entries, e)
	}
}

// entryOf maps a tar header onto an archive entry.
func entryOf(h *stdtar.Header) *archive.Entry {
	name := h.Name
	e := &archive.Entry{
		Name: name, Size: h.Size, PackedSize: h.Size, ModTime: h.ModTime, AccessTime: h.AccessTime,
		HostOS: archive.HostUnix, Attributes: uint32(h.Mode) & 0o7777, HasUnixMode: true,
		UID: h.Uid, GID: h.Gid, Owner: h.Uname, Group: h.Gname, Block: -1,
	}
	switch h.Typeflag {
	case stdtar.TypeDir, typeGNUDumpDir:
		e.Type = archive.TypeDir
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o040000
	case stdtar.TypeSymlink:
		e.Type = archive.TypeSymlink
		e.LinkTarget = h.Linkname
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o120000
	case stdtar.TypeLink:
		e.Type = archive.TypeHardlink
		e.LinkTarget = strings.TrimSuffix(h.Linkname, "/")
		e.Size, e.PackedSize = 0, 0
		e.Attributes |= 0o100000
	default:
		e.Type = archive.TypeFile
		e.Attributes |= 0o100000
	}
	for len(e.Name) > 1 && strings.HasSuffix(e.Name, "/") {
		e.Name = e.Name[:len(e.Name)-1]
	}
	e.Mode = fs.FileMode(h.Mode) & fs.ModePerm
	switch e.Type {
	case archive.TypeDir:
		e.Mode |= fs.ModeDir
	case archive.TypeSymlink:
		e.Mode |= fs.ModeSymlink
	}
	if h.Mode&0o4000 != 0 {
		e.Mode |= fs.ModeSetuid
	}
	if h.Mode&0o2000 != 0 {
		e.Mode |= fs.ModeSetgid
	}
	if h.Mode&0o1000 != 0 {
		e.Mode |= fs.ModeSticky
	}
	if h.Typeflag == stdtar.TypeGNUSparse || h.PAXRecords["GNU.sparse.map"] != "" || h.PAXRecords["GNU.sparse.major"] != "" {
		e.Method = "sparse"
	}
	return e
}

// Extract reads the archive from the start and calls fn for every entry
// want selects, with a reader over its data (holes of sparse files read as
// zeros).
func (r *Reader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	any := false
	for _, e := range r.entries {
		if want == nil || want(e) {
			any = true
			break
		}
	}
	if !any {
		return nil
	}
	p, err := r.newPass()
	if err != nil {
		return err
	}
	defer p.close()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, at, err := r.next(p, nil)
		if err == io.EOF {
			if i != len(r.entries) {
				return r.wrap("", at, fmt.Errorf("tar: the archive changed between readings: %w", archive.ErrFormat))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if i >= len(r.entries) {
			return r.wrap(h.Name, at, fmt.Errorf("tar: the archive changed between readings: %w", archive.ErrFormat))
		}
		e := r.entries[i]
		if want != nil && !want(e) {
			continue
		}
		cr := &contentReader{ctx: ctx, tr: p.tr, r: r, e: e, in: p.in}
		if e.Type != archive.TypeFile {
			cr.tr = nil
		}
		if err := fn(e, cr); err != nil {
			return err
		}
		if cr.err != nil && !errors.Is(cr.err, archive.ErrFormat) {
			continue
		}
		if cr.err != nil {
			// The stream is broken: later entries cannot be reached.
			return cr.err
		}
	}
}

// contentReader is one entry's data.
type contentReader struct {
	ctx context.Context
	tr  *stdtar.Reader // nil for entries without data
	r   *Reader
	e   *archive.Entry
	in  *countingReader
	n   int64
	err error
}

func (c *contentReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.tr == nil {
		return 0, io.EOF
	}
	if c.n&(1<<20-1) < int64(len(p)) {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			return 0, err
		}
	}
	n, err := c.tr.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = c.r.wrap(c.e.Name, c.in.n, headerError(err))
		return n, c.err
	}
	return n, err
}

// headerError maps archive/tar's and the decoders' errors onto sentinels.
func headerError(err error) error {
	switch {
	case errors.Is(err, archive.ErrFormat), errors.Is(err, archive.ErrChecksum),
		errors.Is(err, archive.ErrLimit), errors.Is(err, archive.ErrUnsupported):
		return err
	case errors.Is(err, stdtar.ErrHeader), errors.Is(err, stdtar.ErrFieldTooLong),
		errors.Is(err, stdtar.ErrInsecurePath):
		return fmt.Errorf("tar: invalid header: %w", archive.ErrFormat)
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("tar: unexpected end of data: %w", archive.ErrFormat)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // the file system's error, not the archive's
	}
	return fmt.Errorf("tar: %v: %w", err, archive.ErrFormat)
}

// wrap names the archive, the entry and the offset in the (decompressed)
// tar stream.
func (r *Reader) wrap(entry string, at int64, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) && ae.Archive == "" {
		e := *ae
		e.Archive = r.opts.Name
		if e.Entry == "" {
			e.Entry = entry
		}
		return &e
	}
	return &archive.Error{Archive: r.opts.Name, Entry: entry, Offset: at, Err: err}
}

// countingReader counts the bytes read (and seeked over) from r, and lets
// archive/tar skip data by seeking when r can.
type countingReader struct {
	r      io.Reader
	seeker io.Seeker
	n      int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// seekingReader is a countingReader over a seekable source.
type seekingReader struct{ *countingReader }

func (s seekingReader) Seek(off int64, whence int) (int64, error) {
	pos, err := s.seeker.Seek(off, whence)
	if err == nil {
		s.n = pos
	}
	return pos, err
}
