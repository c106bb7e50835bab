package zip

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/ppmd"
)

// StreamStart reports whether head, the first bytes of a stream, is a ZIP
// archive that StreamReader can read as it arrives: one that starts with
// a local file header, or with the marker of a spanned or split archive
// of one part (PK\x07\x08 or PK00) and then a local header.
func StreamStart(head []byte) bool {
	switch {
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == sigLocal:
		return true
	case len(head) >= 8 && (bytes.HasPrefix(head, []byte("PK\x07\x08")) || bytes.HasPrefix(head, []byte("PK00"))):
		return binary.LittleEndian.Uint32(head[4:]) == sigLocal
	}
	return false
}

// StreamReader reads a ZIP archive front to back as it arrives (from a
// pipe), in constant memory: the entries come from their local headers,
// in the order they are stored, and are handed to Extract's callback as
// their data passes. An entry whose sizes follow its data (flag bit 3,
// which writers to a pipe use) ends at its data descriptor, found by its
// signature at the distance its compressed size gives, followed by the
// next record's signature, and for stored data by its CRC too (as
// libarchive reads such entries); a descriptor written without its
// signature cannot be found this way and is reported as missing.
//
// When the central directory arrives it is checked against what was
// read: every entry's name, method, sizes, CRC and local header offset,
// and the entry count. A disagreement (an entry only in the directory,
// whose data was not seen, or one missing from it, or different names or
// sizes) fails the reading with archive.ErrFormat. Entries, Info and
// the listing then describe the archive as the central directory does,
// as NewReader's do.
//
// The local header does not carry what the central directory adds: Unix
// modes, symbolic links (stored as files whose content is the target,
// marked in the directory's external attributes) and the host system.
// Extract hands every entry out as a regular file (a directory when its
// name ends in '/'), with a name decoded as the Unix host if its header
// has a Unix extra field (Info-ZIP's "ux" or "UX") and as a DOS host
// otherwise; Revisions then lists the entries the directory describes
// otherwise (a link, a mode), for the extractor to fix. A name the
// directory decodes otherwise is an error.
//
// An empty stored entry whose name does not end in '/' may be a
// directory marked only by its DOS attribute in the central directory.
// Extract holds it back: a later entry under its name hands it out as a
// directory first, a later entry of the same name as an empty file
// first, and the rest are handed out, as the central directory describes
// them, once it has been read (as empty files, from the local headers,
// when the reading fails before).
//
// The stream is read once: a second Extract, or Entries after an Extract
// that ended early, fails with ErrStreamConsumed.
type StreamReader struct {
	rd  *Reader // options, password, decoders, error wrapping; its files and entries are the directory's once read
	cr  countReader
	br  *bufio.Reader
	err error // what ended the reading early

	locals    []file           // what the local headers (and descriptors) said, in stream order
	localView []*archive.Entry // the entries handed out, in stream order
	revised   []*archive.Entry

	// pending holds the stream indexes of the empty entries Extract
	// held back, in stream order, held those still held by name;
	// central, once the directory was read, their directory entries.
	pending []int
	held    map[string]int
	central map[int]*archive.Entry

	// small holds the content of small entries read by a listing
	// (Entries before Extract), by stream index, for the targets of
	// the links the central directory then marks; linkWork counts it.
	small    map[int][]byte
	linkWork int64

	started, complete bool
}

var _ archive.Reader = (*StreamReader)(nil)

// ErrStreamConsumed reports a second reading of a ZIP archive read as it
// arrived. It wraps archive.ErrUnsupported.
var ErrStreamConsumed = fmt.Errorf("a ZIP archive read from a pipe can be read only once: %w", archive.ErrUnsupported)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// streamBuffer is the read buffer of a StreamReader: it holds the
// largest local header (30 bytes and two 64 KiB fields) and a data
// descriptor looked for ahead.
const streamBuffer = 192 << 10

// NewStreamReader returns a reader of the ZIP archive that r delivers,
// which must start as StreamStart says. Nothing beyond the first bytes is
// read until Extract or Entries.
func NewStreamReader(r io.Reader, opts *archive.Options) (*StreamReader, error) {
	if opts == nil {
		opts = &archive.Options{}
	}
	s := &StreamReader{rd: &Reader{opts: opts, size: -1}}
	s.cr.r = r
	s.br = bufio.NewReaderSize(&s.cr, streamBuffer)
	s.rd.info.Format = Format
	head, err := s.br.Peek(8)
	if !StreamStart(head) {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("no local file header at the start: %w", archive.ErrNotArchive)
		}
		return nil, s.rd.wrap("", 0, err)
	}
	if binary.LittleEndian.Uint32(head) != sigLocal {
		s.br.Discard(4) // the spanning marker, counted by the stored offsets
	}
	return s, nil
}

// pos is the stream offset of the next byte to be read.
func (s *StreamReader) pos() int64 { return s.cr.n - int64(s.br.Buffered()) }

// Info describes the archive; complete once the stream was read through.
func (s *StreamReader) Info() *archive.Info {
	s.rd.info.PhysicalSize = s.pos()
	return &s.rd.info
}

// Streaming reports whether the entries are still unread: Extract then
// reads them as it goes, and a caller that can work from its callbacks
// should not call Entries first.
func (s *StreamReader) Streaming() bool { return !s.complete && s.err == nil }

// Err returns what ended the reading early, or nil: a listing must check
// it, as Entries has no error result.
func (s *StreamReader) Err() error { return s.err }

// Entries reads the archive through, skipping the data, unless Extract
// did, and returns the entries as the central directory describes them.
// An error on the way leaves the entries read before it, in stream order,
// and is reported by Err.
func (s *StreamReader) Entries() []*archive.Entry {
	if !s.started {
		s.run(context.Background(), func(*archive.Entry) bool { return false }, nil)
	}
	if s.complete {
		return s.rd.entries
	}
	return s.localView
}

// Revisions returns, once the archive was read through, the entries that
// Extract handed out as regular files (or directories) with the default
// mode and that the central directory describes otherwise: symbolic
// links, whose content was the target, and entries with a Unix mode or
// DOS attributes (read-only). The
// entries are the directory's, with the names Extract gave.
func (s *StreamReader) Revisions() []*archive.Entry { return s.revised }

// Close releases pooled decoders.
func (s *StreamReader) Close() error { return s.rd.Close() }

// Extract reads the archive from its start, calling fn for every entry
// want selects as its data arrives. See StreamReader.
func (s *StreamReader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if s.started {
		return s.rd.wrap("", -1, ErrStreamConsumed)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return s.run(ctx, want, fn)
}

// run reads the archive through.
func (s *StreamReader) run(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	s.started = true
	err := s.walk(ctx, want, fn)
	if err == nil {
		err = s.readCentral()
	}
	if err != nil {
		// The entries held back, as the local headers describe them.
		for _, j := range s.pending {
			if !s.isHeld(j) {
				continue
			}
			if ferr := fn(s.localView[j], eofReader{}); ferr != nil {
				break
			}
		}
		s.pending, s.held = nil, nil
		s.err = s.rd.wrap("", -1, err)
		return s.err
	}
	pending := s.pending
	s.pending = nil
	for _, j := range pending {
		if !s.isHeld(j) {
			continue
		}
		if e := s.central[j]; want == nil || want(e) {
			if err := fn(e, eofReader{}); err != nil {
				s.held = nil
				return err
			}
		}
	}
	s.held = nil
	s.complete = true
	return nil
}

// isHeld reports whether entry j is held back still.
func (s *StreamReader) isHeld(j int) bool {
	k, ok := s.held[s.localView[j].Name]
	return ok && k == j
}

// holdBack reports whether Extract holds back entry i: an empty stored
// entry (by its local header, or a data descriptor right after it) of a
// name without a final '/', which the central directory may say is a
// directory.
func (s *StreamReader) holdBack(i int, raw rawData) bool {
	f, e := &s.locals[i], s.localView[i]
	if e.Type != archive.TypeFile || f.flags&flagEncrypted != 0 || f.method != methodStore || strings.HasSuffix(e.Name, "/") {
		return false
	}
	if d, ok := raw.(*descScan); ok {
		return d.empty()
	}
	return f.csize == 0 && f.usize == 0
}

// settle hands out the entries held back that a new entry of this name
// decides: one the name is under, as a directory (the parent it needs),
// one of the same name, as the empty file it was (before the new entry
// replaces it). It looks up the name's parents, not every entry held.
func (s *StreamReader) settle(name string, fn archive.ExtractFunc) error {
	for i := 0; i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		if j, ok := s.held[name[:i]]; ok {
			delete(s.held, name[:i])
			e := s.localView[j]
			e.Type = archive.TypeDir
			if err := fn(e, eofReader{}); err != nil {
				return err
			}
		}
	}
	if j, ok := s.held[name]; ok {
		delete(s.held, name)
		return fn(s.localView[j], eofReader{})
	}
	return nil
}

// hold holds entry i back.
func (s *StreamReader) hold(i int) {
	if s.held == nil {
		s.held = make(map[string]int)
	}
	s.pending = append(s.pending, i)
	s.held[s.localView[i].Name] = i
}

// walk reads the local entries up to the central directory.
func (s *StreamReader) walk(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	le := binary.LittleEndian
	maxEntries := s.rd.opts.Limit() / bytesPerEntry
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		off := s.pos()
		head, err := s.br.Peek(4)
		if err != nil {
			return s.rd.wrap("", off, s.cutShort(err, "the archive ends before its central directory (cut short?)"))
		}
		switch le.Uint32(head) {
		case sigLocal:
		case sigCentral, sigEnd, sigEnd64:
			return nil
		default:
			return corrupt(off, "no local header or central directory where entry %d should start", len(s.locals)+1)
		}
		if int64(len(s.locals)) >= maxEntries {
			return &archive.LimitError{What: "ZIP entry count (memory)", Need: (int64(len(s.locals)) + 1) * bytesPerEntry, Limit: s.rd.opts.Limit()}
		}
		f, e, err := s.readLocal(off)
		if err != nil {
			return err
		}
		s.locals = append(s.locals, f)
		s.localView = append(s.localView, e)
		if err := s.entry(ctx, len(s.locals)-1, want, fn); err != nil {
			return err
		}
	}
}

// cutShort makes the end of the stream where more was due an ErrFormat.
func (s *StreamReader) cutShort(err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return corrupt(s.pos(), "%s", what)
	}
	return err
}

// readLocal reads the local header at off and builds the entry it
// describes.
func (s *StreamReader) readLocal(off int64) (file, *archive.Entry, error) {
	le := binary.LittleEndian
	var h [localLen]byte
	if _, err := io.ReadFull(s.br, h[:]); err != nil {
		return file{}, nil, s.rd.wrap("", off, s.cutShort(err, "local header cut short"))
	}
	nlen, xlen := int(le.Uint16(h[26:])), int(le.Uint16(h[28:]))
	vb := make([]byte, nlen+xlen)
	if _, err := io.ReadFull(s.br, vb); err != nil {
		return file{}, nil, s.rd.wrap("", off, s.cutShort(err, "local header cut short"))
	}
	f := file{
		flags:     le.Uint16(h[6:]),
		method:    le.Uint16(h[8:]),
		dosTime:   le.Uint16(h[10:]),
		dosDate:   le.Uint16(h[12:]),
		crc:       le.Uint32(h[14:]),
		csize:     int64(le.Uint32(h[18:])),
		usize:     int64(le.Uint32(h[22:])),
		version:   le.Uint16(h[4:]),
		rawName:   vb[:nlen:nlen],
		headerOff: off,
		dataOff:   off + localLen + int64(nlen+xlen),
	}
	f.realMethod = f.method
	x, err := parseExtra(vb[nlen:], &f, false)
	if err != nil {
		return file{}, nil, &archive.Error{Archive: s.rd.opts.Name, Offset: off, Err: err}
	}
	if le.Uint32(h[18:]) == 0xFFFFFFFF && le.Uint32(h[22:]) != 0xFFFFFFFF {
		s.zip64CompressedOnly(&f, vb[nlen:], le.Uint32(h[22:]))
	}
	if f.csize < 0 || f.usize < 0 {
		return file{}, nil, s.rd.wrap("", off, corrupt(off, "Zip64 size above 2^63"))
	}
	// The local header has no host system: a Unix extra field says Unix
	// (names are not '\'-separated, and taken as UTF-8 when valid).
	host := byte(hostFAT)
	if hasExtra(vb[nlen:], extraUnixOwner) || hasExtra(vb[nlen:], extraInfoZipUnix) {
		host = hostUnix
	}
	f.unixHost = host == hostUnix
	e := &archive.Entry{Index: int32(len(s.locals)), Block: -1}
	e.Name = decodeName(f.rawName, f.flags&flagUTF8 != 0, f.unixHost)
	if x.unicodePath != "" {
		e.Name = x.unicodePath
	}
	s.rd.fillEntry(e, &f, &x, host, 0)
	if f.flags&flagDescriptor != 0 {
		// Known once the data has passed: writers to a pipe leave
		// zeros or guesses in the local header (Info-ZIP: the size of
		// the content as the compressed size of a stored, encrypted
		// entry).
		e.Size, e.PackedSize = -1, -1
	}
	return f, e, nil
}

// zip64CompressedOnly reads, in a local header whose compressed size
// alone is all ones, the Zip64 field as holding that size alone (the
// central directory's form, which SharpCompress writes in local headers
// too: zip64.compressedonly) rather than both sizes as APPNOTE has it,
// when the data of that length is followed by a record signature and the
// data of the length APPNOTE's form gives is not. The file reader takes
// the central directory's sizes and tolerates the local ones; a pipe has
// only these. The look is bounded by the read buffer.
func (s *StreamReader) zip64CompressedOnly(f *file, extra []byte, usize32 uint32) {
	le := binary.LittleEndian
	var d []byte
	for b := extra; len(b) >= 4; {
		n := int(le.Uint16(b[2:]))
		if n > len(b)-4 {
			return
		}
		if le.Uint16(b) == extraZip64 {
			d = b[4 : 4+n]
			break
		}
		b = b[4+n:]
	}
	if len(d) < 8 || f.flags&flagDescriptor != 0 {
		return
	}
	alt := int64(le.Uint64(d))
	endsThere := func(n int64) bool {
		if n < 0 || n > int64(s.br.Size())-4 {
			return false
		}
		b, err := s.br.Peek(int(n) + 4)
		return err == nil && isRecordSig(le.Uint32(b[n:]))
	}
	if alt != f.csize && !endsThere(f.csize) && endsThere(alt) {
		f.csize, f.usize = alt, int64(usize32)
	}
}

// hasExtra reports whether the extra field block b has a field id.
func hasExtra(b []byte, id uint16) bool {
	for len(b) >= 4 {
		n := int(binary.LittleEndian.Uint16(b[2:]))
		if binary.LittleEndian.Uint16(b) == id {
			return true
		}
		if n > len(b)-4 {
			return false
		}
		b = b[4+n:]
	}
	return false
}

// entry hands entry i to fn when want selects it and reads its data
// (and data descriptor) through.
func (s *StreamReader) entry(ctx context.Context, i int, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	f := &s.locals[i]
	e := s.localView[i]
	var raw rawData
	if f.flags&flagDescriptor != 0 {
		raw = &descScan{s: s, f: f, stored: f.method == methodStore && f.flags&flagEncrypted == 0}
	} else {
		raw = &knownData{s: s, left: f.csize}
	}
	if fn != nil && len(s.held) > 0 {
		if err := s.settle(e.Name, fn); err != nil {
			return err
		}
	}
	if fn != nil && (want == nil || want(e)) {
		if s.holdBack(i, raw) {
			s.hold(i)
		} else if err := s.hand(ctx, e, f, raw, fn); err != nil {
			return err
		}
	} else if fn == nil {
		s.keepSmall(ctx, i, e, f, raw)
	}
	// What the callback left unread (and all of an entry not selected).
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return s.rd.wrap(e.Name, f.dataOff, err)
	}
	if err := raw.finish(); err != nil {
		return s.rd.wrap(e.Name, f.dataOff, err)
	}
	return nil
}

// keepSmall keeps, for a listing, the content of entry i when it may be
// the target of a symbolic link that the listing can show (the bounds of
// fillLinkTargets): unencrypted, stored or deflated, of at most
// maxListedLinkTarget bytes, within maxLinkListWork in all.
func (s *StreamReader) keepSmall(ctx context.Context, i int, e *archive.Entry, f *file, raw rawData) {
	descriptor := f.flags&flagDescriptor != 0
	if e.Type != archive.TypeFile || f.flags&(flagEncrypted|flagStrong|flagMasked) != 0 || f.method == methodAES ||
		(f.realMethod != methodStore && f.realMethod != methodDeflate) ||
		(!descriptor && (f.usize > maxListedLinkTarget || f.csize > maxListedLinkPacked)) ||
		s.linkWork+maxListedLinkTarget > maxLinkListWork {
		return
	}
	se, err := s.open(ctx, e, f, raw)
	if err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(se, maxListedLinkTarget+1))
	if err != nil || len(b) > maxListedLinkTarget {
		return
	}
	if s.small == nil {
		s.small = make(map[int][]byte)
	}
	s.small[i] = b
	s.linkWork += int64(len(b))
}

// hand calls fn with entry e's content.
func (s *StreamReader) hand(ctx context.Context, e *archive.Entry, f *file, raw rawData, fn archive.ExtractFunc) error {
	if e.Type == archive.TypeDir {
		return fn(e, eofReader{})
	}
	er, err := s.open(ctx, e, f, raw)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		if raw.broken() != nil {
			return s.rd.wrap(e.Name, f.dataOff, raw.broken())
		}
		return fn(e, &errReader{err: s.rd.wrap(e.Name, f.headerOff, err)})
	}
	var r io.Reader = er
	if er.encrypted && f.usize <= preverifyMax && f.flags&flagDescriptor == 0 {
		// As NewReader's Extract: a wrong password is found before a
		// byte is handed out.
		data, err := io.ReadAll(er)
		r = bytes.NewReader(data)
		if err != nil {
			r = &errReader{err: err}
		}
	}
	if err := fn(e, r); err != nil {
		return err
	}
	// A broken stream (cut short, or a descriptor not found) ends the
	// reading: nothing after it can be found.
	return raw.broken()
}

// rawData is an entry's stored (compressed, encrypted) data as it passes.
type rawData interface {
	io.Reader
	// finish reads what follows the data (the descriptor of an entry
	// of known size) and fills the entry's sizes and CRC when they
	// follow the data.
	finish() error
	// broken returns the error that makes the stream unreadable after
	// the data (it ended, or the descriptor was not found), or nil.
	broken() error
}

// knownData is the data of an entry whose compressed size the local
// header gives.
type knownData struct {
	s    *StreamReader
	left int64
	err  error
}

func (k *knownData) Read(p []byte) (int, error) {
	if k.err != nil {
		return 0, k.err
	}
	if k.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > k.left {
		p = p[:k.left]
	}
	n, err := k.s.br.Read(p)
	k.left -= int64(n)
	if err != nil {
		k.err = k.s.cutShort(err, fmt.Sprintf("the archive ends %d bytes into an entry's data (cut short?)", n))
		return n, k.err
	}
	return n, nil
}

func (k *knownData) broken() error { return k.err }

// finish has nothing to read after the data: an entry without flag bit
// 3 has no descriptor.
func (k *knownData) finish() error { return k.err }

// isRecordSig reports whether v is the signature of a record that may
// follow an entry: the next entry, the central directory or an end
// record.
func isRecordSig(v uint32) bool {
	switch v {
	case sigLocal, sigCentral, sigEnd, sigEnd64:
		return true
	}
	return false
}

// descScan is the data of an entry whose sizes follow it in a data
// descriptor: it ends where a descriptor signature is followed by a
// compressed size equal to the bytes passed, and then by the next
// record's signature, and, for stored data, by a size equal to the
// compressed one. A descriptor written without its signature (APPNOTE
// 4.3.9.3) is found back from the next record's signature: its
// compressed size equals the bytes passed and, of stored data, its size
// does too and its CRC is the data's (the end is found from the data's
// bytes, not from the decoder's end, for every method). Otherwise the CRC is not required to match (libarchive requires
// it of stored data): a damaged entry is then reported with a CRC error
// and the entries after it are read, as from a file; the central
// directory check catches a descriptor found in the wrong place.
type descScan struct {
	s      *StreamReader
	f      *file
	n      int64  // data bytes passed
	stored bool   // the data is the content: the two sizes are equal
	crc    uint32 // of the stored data passed
	done   bool
	err    error
}

// descLook is how far ahead of a signature the scan must see to decide:
// the descriptor with 8-byte sizes and the next signature.
const descLook = 4 + 20 + 4

var descSig = []byte{'P', 'K', 7, 8}

func (d *descScan) Read(p []byte) (int, error) {
	if d.done {
		return 0, io.EOF
	}
	if d.err != nil {
		return 0, d.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Look at what p can take and a descriptor beyond it, no more (a
	// scan of the whole buffer for each small read would cost its size
	// every time), and without waiting for more than has arrived once
	// a descriptor's length is there.
	br := d.s.br
	want := min(len(p)+descLook, br.Size())
	if n := br.Buffered(); n >= descLook {
		want = min(want, n)
	} else {
		want = descLook
	}
	b, perr := br.Peek(want)
	eof := false
	switch perr {
	case nil, bufio.ErrBufferFull:
	case io.EOF:
		eof = true
	default:
		d.err = perr
		return 0, perr
	}
	if len(b) == 0 {
		d.err = corrupt(d.s.pos(), "the archive ends before the data descriptor of an entry (cut short, or a descriptor without its signature?)")
		return 0, d.err
	}
	safe := len(b)
	if !eof {
		// A signature may start in the last three bytes, and a
		// descriptor without one in the last bareLook-1.
		safe = max(len(b)-bareLook+1, 0)
	}
	for from := 0; ; {
		k := bytes.Index(b[from:], descSig)
		if k < 0 {
			break
		}
		i := from + k
		if len(b)-i < descLook && !eof {
			safe = i // more must arrive to decide
			break
		}
		if n := d.match(b[i:], b[:i]); n > 0 {
			if i == 0 {
				br.Discard(n)
				d.done = true
				return 0, io.EOF
			}
			safe = i
			break
		}
		from = i + 1
	}
	// A descriptor without its signature, ending before safe: looked
	// for back from the record signatures that follow it.
	for from := 0; ; {
		k := bytes.Index(b[from:], []byte("PK"))
		if k < 0 {
			break
		}
		j := from + k
		from = j + 1
		if j+4 > len(b) || !isRecordSig(binary.LittleEndian.Uint32(b[j:])) {
			continue
		}
		if j-bareLook+4 >= safe {
			break
		}
		i, n := d.matchBare(b, j)
		if n == 0 {
			continue
		}
		if i == 0 {
			br.Discard(n)
			d.done = true
			return 0, io.EOF
		}
		safe = i
		break
	}
	m := copy(p, b[:safe])
	d.n += int64(m)
	if d.stored {
		d.crc = crc32.Update(d.crc, crc32.IEEETable, p[:m])
	}
	br.Discard(m)
	return m, nil
}

// bareLook is how far ahead of the end of the data the scan must see to
// find a descriptor without its signature: 8-byte sizes and the next
// signature.
const bareLook = 20 + 4

// matchBare looks for a data descriptor without its signature ending the
// data right before the record signature at b[j:] (b following the data
// passed): its compressed size (8 or 4 bytes, as Zip64 or not) is the
// bytes passed; of stored data, the size is too and the CRC is the
// data's. It returns where the descriptor starts and its length, or 0,
// 0.
func (d *descScan) matchBare(b []byte, j int) (int, int) {
	le := binary.LittleEndian
	for _, n := range []int{20, 12} {
		i := j - n
		if i < 0 {
			continue
		}
		at := d.n + int64(i)
		c := b[i:j]
		var csize, usize int64
		if n == 20 {
			csize, usize = int64(le.Uint64(c[4:])), int64(le.Uint64(c[12:]))
		} else {
			csize, usize = int64(le.Uint32(c[4:])), int64(le.Uint32(c[8:]))
		}
		crc := le.Uint32(c)
		if csize != at || (d.stored && (usize != at || crc32.Update(d.crc, crc32.IEEETable, b[:i]) != crc)) {
			continue
		}
		d.f.crc, d.f.csize, d.f.usize = crc, csize, usize
		return i, n
	}
	return 0, 0
}

// match returns the length of the data descriptor at the start of c
// when it ends the data (passed being the bytes before it not yet
// counted), 0 when it does not.
func (d *descScan) match(c, passed []byte) int {
	if len(c) < 20 {
		return 0 // the stream ends: no descriptor and next signature here
	}
	le := binary.LittleEndian
	at := d.n + int64(len(passed))
	crc := le.Uint32(c[4:])
	take := func(csize, usize int64, n int) int {
		if d.stored && usize != csize {
			return 0
		}
		d.f.crc, d.f.csize, d.f.usize = crc, csize, usize
		return n
	}
	if len(c) >= 28 && le.Uint64(c[8:]) == uint64(at) && isRecordSig(le.Uint32(c[24:])) {
		return take(at, int64(le.Uint64(c[16:])), 24)
	}
	if len(c) >= 20 && at <= math.MaxUint32 && le.Uint32(c[8:]) == uint32(at) && isRecordSig(le.Uint32(c[16:])) {
		return take(at, int64(le.Uint32(c[12:])), 16)
	}
	return 0
}

// empty reports whether the data ends before its first byte: a data
// descriptor of zero sizes is there, which it then reads.
func (d *descScan) empty() bool {
	if d.done || d.err != nil || d.n != 0 {
		return false
	}
	b, err := d.s.br.Peek(descLook)
	if err != nil && err != io.EOF {
		return false
	}
	if !bytes.HasPrefix(b, descSig) {
		return false
	}
	n := d.match(b, nil)
	if n == 0 {
		return false
	}
	d.s.br.Discard(n)
	d.done = true
	return true
}

func (d *descScan) finish() error {
	if !d.done {
		return d.broken()
	}
	return nil
}

func (d *descScan) broken() error {
	if d.err != nil {
		return d.err
	}
	return nil
}

// open prepares the reader of an entry's content over its raw data.
func (s *StreamReader) open(ctx context.Context, e *archive.Entry, f *file, raw rawData) (*streamEntry, error) {
	rd := s.rd
	descriptor := f.flags&flagDescriptor != 0
	se := &streamEntry{s: s, e: e, f: f, raw: raw, ctx: ctx, checkCRC: e.HasCRC32, descriptor: descriptor}
	if f.flags&flagStrong != 0 || f.flags&flagMasked != 0 {
		return nil, &archive.UnsupportedError{What: "PKWARE strong encryption"}
	}
	var src io.Reader = raw
	dataLen := f.csize
	if descriptor {
		dataLen = math.MaxInt64
	}
	if f.flags&flagEncrypted != 0 {
		pw, err := rd.password()
		if err != nil {
			return nil, err
		}
		se.encrypted = true
		switch {
		case f.method == methodAES:
			if !f.aes.present {
				return nil, fmt.Errorf("method 99 without the WinZip AES extra field: %w", archive.ErrFormat)
			}
			if f.aes.strength < 1 || f.aes.strength > 3 {
				return nil, &archive.UnsupportedError{What: fmt.Sprintf("WinZip AES key strength %d", f.aes.strength)}
			}
			if !descriptor {
				if f.csize < aesOverhead(f.aes.strength) {
					return nil, fmt.Errorf("AES data of %d bytes: %w", f.csize, archive.ErrFormat)
				}
				dataLen = f.csize - aesOverhead(f.aes.strength)
			}
			ar, err := newAESStream(raw, pw, f.aes.strength)
			if err != nil {
				return nil, err
			}
			se.aes = ar
			src = ar
		default:
			if !descriptor && f.csize < zipCryptoHeaderLen {
				return nil, fmt.Errorf("encrypted data of %d bytes: %w", f.csize, archive.ErrFormat)
			}
			zr, err := newZipCryptoReader(raw, pw, f)
			if err != nil {
				return nil, err
			}
			if !descriptor {
				dataLen = f.csize - zipCryptoHeaderLen
			}
			src = zr
		}
	} else if f.method == methodAES {
		return nil, fmt.Errorf("method 99 without the encryption flag: %w", archive.ErrFormat)
	}
	if descriptor {
		switch f.realMethod {
		case methodStore, methodDeflate, methodDeflate64, methodBZip2, methodLZMA, methodZstd, methodXZ, methodPPMd:
		default:
			return nil, &archive.UnsupportedError{What: "ZIP method " + methodName(f.realMethod) + " with the sizes after the data (read it from a file)"}
		}
	}
	if !descriptor && f.realMethod == methodStore && dataLen != f.usize {
		return nil, fmt.Errorf("stored entry of %d bytes holds %d: %w", f.usize, dataLen, archive.ErrFormat)
	}
	g := *f
	if descriptor {
		g.usize = -1 // LZMA: up to its end marker
		g.flags |= flagLZMAEOS
		if f.realMethod == methodPPMd {
			// Up to its end marker (streamEntry.Read), which the
			// data must have: without it the decoder runs into the
			// descriptor's end of the data (an error) or past the
			// content (a size or CRC error).
			g.usize = math.MaxInt64
		}
	}
	dec, err := rd.newDecoder(&g, src, dataLen)
	if err != nil {
		return nil, err
	}
	se.dec = dec
	return se, nil
}

// streamEntry yields an entry's content as it arrives, then checks its
// size and CRC (from the local header, or the descriptor once found).
type streamEntry struct {
	s         *StreamReader
	e         *archive.Entry
	f         *file
	raw       rawData
	ctx       context.Context
	dec       io.Reader
	aes       *aesReader
	n         int64
	crc       uint32
	checkCRC  bool
	encrypted bool
	// descriptor says the sizes and CRC follow the data.
	descriptor bool
	err        error
}

func (se *streamEntry) Read(p []byte) (int, error) {
	if se.err != nil {
		return 0, se.err
	}
	if err := se.ctx.Err(); err != nil {
		se.err = err
		return 0, err
	}
	descriptor := se.descriptor
	if !descriptor && int64(len(p)) > se.f.usize-se.n+1 {
		p = p[:se.f.usize-se.n+1] // one byte more shows a stream too long
	}
	n, err := se.dec.Read(p)
	if descriptor && se.f.realMethod == methodPPMd && errors.Is(err, ppmd.ErrEndMarker) {
		err = io.EOF // the end of data of no declared size
	}
	se.n += int64(n)
	if se.checkCRC {
		se.crc = crc32.Update(se.crc, crc32.IEEETable, p[:n])
	}
	if !descriptor && se.n > se.f.usize {
		return 0, se.fail(fmt.Errorf("more data than the declared size %d: %w", se.f.usize, archive.ErrFormat))
	}
	switch {
	case err == io.EOF:
		if ferr := se.finish(); ferr != nil {
			return n, se.fail(ferr)
		}
		se.err = io.EOF
		return n, io.EOF
	case err != nil:
		if b := se.raw.broken(); b != nil {
			err = b
		} else if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("compressed data cut short: %w", archive.ErrFormat)
		}
		return n, se.fail(err)
	}
	return n, nil
}

// finish checks the entry once the decoder has ended.
func (se *streamEntry) finish() error {
	// The rest of the raw data (a decoder may stop before its input
	// does), through the AES authentication code.
	var src io.Reader = se.raw
	if se.aes != nil {
		src = se.aes
	}
	if _, err := io.Copy(io.Discard, src); err != nil {
		return err
	}
	if err := se.raw.finish(); err != nil {
		return err
	}
	if se.aes != nil {
		if err := se.aes.verify(); err != nil {
			return err
		}
	}
	if se.n != se.f.usize {
		return fmt.Errorf("%d bytes of data, the entry declares %d: %w", se.n, se.f.usize, archive.ErrFormat)
	}
	if se.checkCRC && se.crc != se.f.crc {
		return fmt.Errorf("CRC %08x, want %08x: %w", se.crc, se.f.crc, archive.ErrChecksum)
	}
	return nil
}

// fail records err, located, as the reader's final error; for encrypted
// entries as NewReader's entries do (a wrong password most likely).
func (se *streamEntry) fail(err error) error {
	if se.encrypted && !errors.Is(err, archive.ErrWrongPassword) && !errors.Is(err, archive.ErrLimit) &&
		!errors.Is(err, archive.ErrUnsupported) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded) && se.raw.broken() == nil {
		if errors.Is(err, archive.ErrChecksum) {
			err = fmt.Errorf("%w? %w", archive.ErrWrongPassword, err)
		} else {
			err = fmt.Errorf("%w? %w (%w)", archive.ErrWrongPassword, archive.ErrChecksum, err)
		}
	}
	se.err = se.s.rd.wrap(se.e.Name, se.f.dataOff, err)
	return se.err
}

// readCentral reads the central directory and end records that follow
// the entries, checks them against what was read and builds the
// directory's view of the entries.
func (s *StreamReader) readCentral() error {
	le := binary.LittleEndian
	rd := s.rd
	maxEntries := rd.opts.Limit() / bytesPerEntry
	cdStart := s.pos()
	var h [centralLen]byte
	for {
		off := s.pos()
		b, err := s.br.Peek(4)
		if err != nil {
			return s.cutShort(err, "the archive ends in its central directory (cut short?)")
		}
		if le.Uint32(b) != sigCentral {
			break
		}
		if _, err := io.ReadFull(s.br, h[:]); err != nil {
			return s.cutShort(err, "central directory record cut short")
		}
		rest := int(le.Uint16(h[28:])) + int(le.Uint16(h[30:])) + int(le.Uint16(h[32:]))
		rec := make([]byte, centralLen+rest)
		copy(rec, h[:])
		if _, err := io.ReadFull(s.br, rec[centralLen:]); err != nil {
			return s.cutShort(err, "central directory record cut short")
		}
		if err := rd.parseCentral(rec, off, uint64(len(rd.files)+1), maxEntries); err != nil {
			return rd.wrap("", off, err)
		}
	}
	cdEnd := s.pos()
	end, err := s.readEnd()
	if err != nil {
		return rd.wrap("", s.pos(), err)
	}
	if end == nil {
		return s.compare(0, 0)
	}
	if n := uint64(len(rd.files)); n != end.count && n&0xFFFF != end.count&0xFFFF {
		return rd.wrap("", cdStart, corrupt(cdStart, "central directory holds %d records, the end record says %d", n, end.count))
	}
	rd.info.Comment = decodeName(end.comment, false, true)
	rd.zip64 = end.pos64 >= 0
	// The offsets count from the start of the archive, which is the
	// start of the stream unless the directory says otherwise (as
	// NewReader computes the prefix of an SFX).
	base := cdStart - int64(end.cdOffset)
	if end.cdSize != uint64(cdEnd-cdStart) || base < 0 {
		base = 0
	}
	rd.info.SFXOffset = base
	return s.compare(base, end.cdDisk)
}

// readEnd reads the Zip64 end record and locator, if present, and the
// end record with its comment; nil, nil when what follows the central
// directory is not one of them.
func (s *StreamReader) readEnd() (*endRecord, error) {
	le := binary.LittleEndian
	e := &endRecord{pos64: -1}
	for {
		off := s.pos()
		b, err := s.br.Peek(4)
		if err != nil {
			return nil, s.cutShort(err, "the archive ends without an end of central directory record (cut short?)")
		}
		switch le.Uint32(b) {
		case sigEnd64:
			var r [end64Len]byte
			if _, err := io.ReadFull(s.br, r[:]); err != nil {
				return nil, s.cutShort(err, "Zip64 end record cut short")
			}
			e.pos64 = off
			e.cdDisk = le.Uint32(r[20:])
			e.count = le.Uint64(r[32:])
			e.cdSize = le.Uint64(r[40:])
			e.cdOffset = le.Uint64(r[48:])
			// The extensible data sector, skipped.
			if size := le.Uint64(r[4:]); size > end64Len-12 {
				if _, err := io.CopyN(io.Discard, s.br, int64(min(size-(end64Len-12), 1<<40))); err != nil {
					return nil, s.cutShort(err, "Zip64 end record cut short")
				}
			}
		case sigEnd64Locator:
			if _, err := s.br.Discard(end64LocLen); err != nil {
				return nil, s.cutShort(err, "Zip64 end locator cut short")
			}
		case sigEnd:
			var r [endLen]byte
			if _, err := io.ReadFull(s.br, r[:]); err != nil {
				return nil, s.cutShort(err, "end record cut short")
			}
			if e.pos64 < 0 {
				e.cdDisk = uint32(le.Uint16(r[6:]))
				e.count = uint64(le.Uint16(r[10:]))
				e.cdSize = uint64(le.Uint32(r[12:]))
				e.cdOffset = uint64(le.Uint32(r[16:]))
			}
			e.pos = off
			e.comment = make([]byte, le.Uint16(r[20:]))
			if _, err := io.ReadFull(s.br, e.comment); err != nil {
				return nil, s.cutShort(err, "the end record's comment is cut short")
			}
			return e, nil
		default:
			// Not an end record (libarchive's extra_padding: a central
			// record declaring a byte more than it holds swallows the
			// end record's first byte). The file reader then finds no
			// end record and reads the entries from the local
			// headers, without an error; nil says the same here.
			return nil, nil
		}
	}
}

// compare checks the central directory (rd.files, rd.entries) against
// the local entries read, base being the stream offset of the archive's
// start (of part cdDisk, where the directory starts, when that is not
// the first: a split set's parts concatenated), and notes the revisions.
func (s *StreamReader) compare(base int64, cdDisk uint32) error {
	rd := s.rd
	at := make(map[int64]int, len(s.locals))
	for i := range s.locals {
		at[s.locals[i].headerOff] = i
	}
	seen := make([]bool, len(s.locals))
	// The parts of a split set, concatenated (cat a.z01 a.zip): the
	// offsets count from the start of their part, which is where the
	// first entry a record names on it lies less its offset, taken to
	// be the local header after the last one matched (the records
	// follow the stream's order as writers make them).
	diskBase := map[uint32]int64{0: base}
	if cdDisk != 0 {
		// base is the start of the part the directory starts on.
		diskBase = map[uint32]int64{0: 0, cdDisk: base}
	}
	next := 0
	for i := range rd.files {
		f := &rd.files[i]
		e := rd.entries[i]
		db, ok := diskBase[f.disk]
		if !ok && next < len(s.locals) {
			db = s.locals[next].headerOff - f.localOff
			diskBase[f.disk] = db
		}
		j, ok := at[db+f.localOff]
		if !ok {
			return rd.wrap(e.Name, db+f.localOff, fmt.Errorf("entry only in the central directory: no local header was read at offset %d: %w", db+f.localOff, archive.ErrFormat))
		}
		next = j + 1
		if seen[j] {
			return rd.wrap(e.Name, db+f.localOff, fmt.Errorf("two central directory records name the local header at offset %d: %w", db+f.localOff, archive.ErrFormat))
		}
		seen[j] = true
		l, le := &s.locals[j], s.localView[j]
		if s.isHeld(j) {
			// Not handed out yet: it will be as e.
			if s.central == nil {
				s.central = make(map[int]*archive.Entry)
			}
			s.central[j] = e
			le = &archive.Entry{Name: le.Name, Type: e.Type, Mode: e.Mode, Attributes: e.Attributes}
		}
		f.headerOff, f.dataOff = l.headerOff, l.dataOff
		f.dataEnd = l.dataOff + l.csize
		differ := func(what string, local, central any) error {
			return rd.wrap(e.Name, l.headerOff, fmt.Errorf("the central directory disagrees with what was read: %s %v in the local header, %v in the central directory: %w", what, local, central, archive.ErrFormat))
		}
		if string(l.rawName) != string(f.rawName) && (l.unicodeX || f.unicodeX) {
			// A writer that recodes names stored other bytes in the
			// two headers: the local header's name stands, as
			// NewReader takes it.
			e.Name = le.Name
		}
		switch {
		case string(l.rawName) != string(f.rawName) && !l.unicodeX && !f.unicodeX:
			return differ("name", fmt.Sprintf("%q", l.rawName), fmt.Sprintf("%q", f.rawName))
		case l.method != f.method:
			return differ("method", l.method, f.method)
		case l.flags&flagEncrypted != f.flags&flagEncrypted:
			return differ("encryption flag", l.flags&flagEncrypted, f.flags&flagEncrypted)
		case l.csize != f.csize:
			return differ("compressed size", l.csize, f.csize)
		case l.usize != f.usize:
			return differ("size", l.usize, f.usize)
		case l.crc != f.crc && !(f.aes.present && f.aes.version == 2):
			return differ("CRC", fmt.Sprintf("%08x", l.crc), fmt.Sprintf("%08x", f.crc))
		case le.Name != e.Name:
			return differ("name (decoded for the host system the central directory names)", fmt.Sprintf("%q", le.Name), fmt.Sprintf("%q", e.Name))
		}
		switch {
		case e.Type == le.Type:
			if e.Mode != le.Mode || e.Attributes != le.Attributes {
				s.revised = append(s.revised, e) // a Unix mode, a read-only attribute
			}
		case e.Type == archive.TypeSymlink && le.Type == archive.TypeFile:
			if b, ok := s.small[j]; ok {
				e.LinkTarget = string(b)
			}
			s.revised = append(s.revised, e)
		default:
			return rd.wrap(e.Name, l.headerOff, fmt.Errorf("extracted as a %s, the central directory says it is a %s (read the archive from a file): %w",
				le.Type, e.Type, archive.ErrUnsupported))
		}
	}
	for j, ok := range seen {
		if !ok {
			return rd.wrap(s.localView[j].Name, s.locals[j].headerOff, fmt.Errorf("entry missing from the central directory: %w", archive.ErrFormat))
		}
	}
	s.small = nil
	rd.listMethods()
	rd.info.Details = &Details{rd: rd}
	return nil
}
