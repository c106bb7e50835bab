package rar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/checksum"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// errReader returns err from every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// eofReader is an empty stream.
var eofReader = bytes.NewReader(nil)

// hasData says whether the entry's content comes from its data area.
func (f *fileInfo) hasData() bool {
	switch f.e.Type {
	case archive.TypeDir, archive.TypeHardlink, archive.TypeCopy:
		return false
	case archive.TypeSymlink:
		return f.linkData
	}
	return true
}

// usesDecoder says whether decoding the entry runs (and advances) an LZ
// decoder, which matters for solid streams.
func (f *fileInfo) usesDecoder() bool {
	return f.hasData() && f.algo != algoStored && !f.badMethod
}

// Extract visits the wanted entries in archive order (see archive.Reader).
func (r *reader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if ctx == nil {
		ctx = context.Background()
	}
	r.extracting = true
	defer func() { r.extracting = false }()
	wanted := make([]bool, len(r.files))
	for i, f := range r.files {
		wanted[i] = want == nil || want(&f.e)
	}
	decode, drain := planSolid(r.files, wanted)
	// The largest window each decoder family will need for the entries
	// decoded here: a decoder allocates it at once instead of regrowing.
	// Entries above the dictionary limit fail on their own and count
	// for nothing, so the window never exceeds what one entry within the
	// limit would take.
	r.minWindow = [numAlgos]int64{}
	for i, f := range r.files {
		if decode[i] && f.usesDecoder() && f.e.Size >= 0 && r.opts.CheckLimit("", r.dictNeed(f)) == nil {
			r.minWindow[f.algo] = max(r.minWindow[f.algo], lzcore.WindowSize(f.dictSize, f.e.Size, false))
		}
	}
	var cr contentReader
	defer cr.release()
	// broken holds, per decoder family, the failure of an entry decoded
	// only because a later solid entry continues its stream: the entries
	// continuing it fail with that cause instead of decoding garbage.
	var broken [numAlgos]error
	for i, f := range r.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !decode[i] {
			continue
		}
		if err := r.extractOne(ctx, &cr, f, wanted[i], drain[i], &broken, fn); err != nil {
			return err
		}
	}
	if r.missing != nil {
		return r.missing
	}
	return r.tailErr
}

// extractOne decodes f, an entry Extract decodes, handing its content to
// fn when wanted and otherwise decoding it to nothing (a solid stream's
// predecessor of a wanted entry); with drain, what fn left of a wanted
// entry is decoded too, for a later entry that continues its solid
// stream. broken holds, per decoder family, the failure of an entry
// decoded only for the entries continuing its stream, which fail with
// that cause instead of decoding garbage. Only fn's error is returned:
// the entry's own failure goes to fn through its reader.
func (r *reader) extractOne(ctx context.Context, cr *contentReader, f *fileInfo, wanted, drain bool, broken *[numAlgos]error, fn archive.ExtractFunc) error {
	if !f.hasData() {
		if !wanted {
			return nil
		}
		return fn(&f.e, eofReader)
	}
	if f.usesDecoder() && !f.solid {
		broken[f.algo] = nil // a new stream
	}
	if f.usesDecoder() && broken[f.algo] != nil {
		if !wanted {
			return nil
		}
		return fn(&f.e, errReader{r.errf(f.e.Name, -1, broken[f.algo])})
	}
	err := r.openContent(ctx, cr, f)
	if !wanted {
		if err == nil {
			_, err = io.Copy(io.Discard, cr)
		}
		broken[f.algo] = brokenStream(f, err)
		return nil
	}
	var rd io.Reader = cr
	if err != nil {
		rd = errReader{err}
	} else if f.linkData {
		target, lerr := io.ReadAll(io.LimitReader(cr, maxLinkTarget+1))
		switch {
		case lerr != nil:
			rd = errReader{lerr}
		case len(target) > maxLinkTarget:
			rd = errReader{r.errf(f.e.Name, -1, fmt.Errorf("%w: symlink target too long", archive.ErrFormat))}
		default:
			f.e.LinkTarget = string(target)
			rd = eofReader
		}
	}
	if cerr := fn(&f.e, rd); cerr != nil {
		return cerr
	}
	if drain {
		if err == nil {
			_, err = io.Copy(io.Discard, cr)
		}
		broken[f.algo] = brokenStream(f, err)
	}
	return nil
}

// dictNeed is the dictionary an entry needs, checked against the limit
// before anything is allocated: a non-solid entry of known size never
// needs more window than its size.
func (r *reader) dictNeed(f *fileInfo) int64 {
	need := f.dictSize
	if !f.solid && !r.info.Solid && f.e.Size >= 0 && f.e.Size < need {
		need = max(f.e.Size, 1)
	}
	return need
}

// brokenStream returns the error of the entries continuing f's solid
// stream when decoding f ended with err, or nil when they can be decoded:
// a checksum failure leaves the decoder in step, and the later entries'
// own checksums tell whether they are right.
func brokenStream(f *fileInfo, err error) error {
	if err == nil || !f.usesDecoder() || errors.Is(err, archive.ErrChecksum) {
		return nil
	}
	cause := err
	var ae *archive.Error
	if errors.As(err, &ae) {
		cause = ae.Err
	}
	return fmt.Errorf("continues a solid stream that failed in %s: %w", f.e.Name, cause)
}

// planSolid decides which entries to decode and which to decode to the
// end after the callback. An unwanted entry is decoded (and discarded) when
// a later decoded entry of its decoder family continues the solid stream
// from it; a wanted entry is drained when such a later entry exists.
func planSolid(files []*fileInfo, wanted []bool) (decode, drain []bool) {
	n := len(files)
	decode = make([]bool, n)
	drain = make([]bool, n)
	var needPrev [numAlgos]bool
	for i := n - 1; i >= 0; i-- {
		f := files[i]
		dec := f.usesDecoder()
		decode[i] = wanted[i] || (dec && needPrev[f.algo])
		if dec {
			drain[i] = needPrev[f.algo]
			needPrev[f.algo] = decode[i] && f.solid
		}
	}
	return decode, drain
}

// maxCommentWork bounds the bytes decoded for comments while opening one
// archive, so headers repeating large compressed comments cannot make
// opening slow.
const maxCommentWork = 16 << 20

func (r *reader) spendCommentBudget(n int64) error {
	if n < 0 {
		n = maxCommentSize
	}
	if r.commentWork+n > maxCommentWork {
		return fmt.Errorf("%w: comments larger than %d bytes in total", archive.ErrLimit, maxCommentWork)
	}
	r.commentWork += n
	return nil
}

// readSmall returns the whole content of a small entry (comments).
func (r *reader) readSmall(f *fileInfo, limit int64) ([]byte, error) {
	if f.e.Size > limit {
		return nil, fmt.Errorf("%w: %s too large", archive.ErrLimit, f.e.Name)
	}
	if err := r.spendCommentBudget(f.e.Size); err != nil {
		return nil, err
	}
	var cr contentReader
	defer cr.release()
	cr.private = true
	if err := r.openContent(context.Background(), &cr, f); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(&cr, limit))
}

// decodeSmall decodes an old (RAR 1.5–2.x) compressed comment.
func (r *reader) decodeSmall(a algo, ver int, data []byte, unp int64) ([]byte, error) {
	if err := r.spendCommentBudget(unp); err != nil {
		return nil, err
	}
	d, err := newLZDecoder(a)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if ver < 15 {
		ver = 15
	}
	if err := d.Reset(bytes.NewReader(data), lzcore.Params{DictSize: 64 << 10, UnpackedSize: unp, Version: ver, MaxMem: r.opts.Limit()}); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(d, unp))
}

// packedSize returns the length of f's packed data in all its volumes.
func (f *fileInfo) packedSize() int64 {
	var n int64
	for _, p := range f.parts {
		n += p.size
	}
	return n
}

// contentReader yields one entry's content and verifies its size and
// checksum at the end.
type contentReader struct {
	r       *reader
	f       *fileInfo
	src     io.Reader
	parts   partsReader
	packed  io.Reader // parts, decrypted when the entry is encrypted
	dec     io.Closer // the decryptor, closed before the next entry
	limited io.LimitedReader
	crc     uint32
	blake   hash.Hash
	n       int64
	err     error
	hashKey []byte
	private bool // use a private decoder (comments), closed on release
	own     lzDecoder
	ctx     context.Context
	copyBuf []byte // WriteTo's buffer for sources without WriteTo, kept for the next entry
}

// maxCopyBuf is the size of contentReader.copyBuf for entries this large or
// larger (or of unknown size).
const maxCopyBuf = 32 << 10

// release frees a private decoder and any decryption buffers.
func (c *contentReader) release() {
	c.closeDec()
	if c.own != nil {
		c.own.Close()
		c.own = nil
	}
}

// openContent prepares c to read f's content.
func (r *reader) openContent(ctx context.Context, c *contentReader, f *fileInfo) error {
	c.closeDec()
	c.r, c.f = r, f
	c.ctx = ctx
	c.err = nil
	c.n = 0
	c.crc = 0
	c.hashKey = nil
	if f.badMethod {
		return r.errf(f.e.Name, -1, &archive.UnsupportedError{What: f.e.Method})
	}
	if f.e.SplitBefore {
		return r.errf(f.e.Name, -1, fmt.Errorf("%w: entry starts in a previous volume that was not opened", archive.ErrFormat))
	}
	if f.e.BLAKE2sp() != nil {
		if c.blake == nil {
			c.blake = checksum.NewBLAKE2sp()
		}
		c.blake.Reset()
	}
	// Encryption keys and the password check come first, so a wrong
	// password is reported before anything is output.
	var wrap func(p *part, src io.Reader) (io.Reader, io.Closer, error)
	switch f.enc {
	case encRAR5:
		if len(f.parts) > 0 {
			p := f.parts[0]
			k, err := r.rar5Keys(p.salt(), int(f.lg2Count))
			if err != nil {
				return r.errf(f.e.Name, -1, err)
			}
			if err := checkRAR5Password(k, f.pswCheck); err != nil {
				return r.errf(f.e.Name, -1, err)
			}
			if f.useMAC {
				c.hashKey = k.hashKey[:]
			}
		}
		wrap = func(p *part, src io.Reader) (io.Reader, io.Closer, error) {
			k, err := r.rar5Keys(p.salt(), int(f.lg2Count))
			if err != nil {
				return nil, nil, err
			}
			d, err := newAESReader(src, k.key[:], p.iv())
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %v", archive.ErrFormat, err)
			}
			return d, d, nil
		}
	case encRAR3:
		if len(f.parts) > 0 {
			if _, err := r.rar3Keys(f.parts[0].salt()); err != nil {
				return r.errf(f.e.Name, -1, err)
			}
		}
		wrap = func(p *part, src io.Reader) (io.Reader, io.Closer, error) {
			k, err := r.rar3Keys(p.salt())
			if err != nil {
				return nil, nil, err
			}
			d, err := newAESReader(src, k.key[:], k.iv[:])
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %v", archive.ErrFormat, err)
			}
			return d, d, nil
		}
	case encRAR20, encRAR15, encRAR13:
		w, err := r.legacyCipher(f)
		if err != nil {
			return r.errf(f.e.Name, -1, err)
		}
		wrap = w
	}
	// The packed stream is encrypted as a whole: the cipher state runs on
	// across volume pieces.
	c.parts.reset(r, f)
	c.packed = &c.parts
	if wrap != nil && len(f.parts) > 0 {
		rd, cl, err := wrap(&f.parts[0], &c.parts)
		if err != nil {
			return r.errf(f.e.Name, -1, err)
		}
		c.packed, c.dec = rd, cl
	}
	if f.algo == algoStored {
		if f.e.Size >= 0 {
			c.limited = io.LimitedReader{R: c.packed, N: f.e.Size}
			c.src = &c.limited
		} else {
			c.src = c.packed
		}
		return nil
	}
	// Dictionary limit before any allocation: a non-solid entry of known
	// size never needs more window than its size.
	if err := r.opts.CheckLimit("dictionary size", r.dictNeed(f)); err != nil {
		return r.errf(f.e.Name, -1, err)
	}
	var d lzDecoder
	var err error
	if c.private {
		d, err = newLZDecoder(f.algo)
		c.own = d
	} else {
		d, err = r.decs.get(f.algo)
	}
	if err != nil {
		return r.errf(f.e.Name, -1, err)
	}
	ver := int(f.unpVer)
	if f.rar14 {
		ver = 15
	}
	p := lzcore.Params{DictSize: f.dictSize, UnpackedSize: f.e.Size, Solid: f.solid && !c.private, Version: ver, MaxMem: r.opts.Limit(),
		MinWindow: r.minWindow[f.algo], PackedSize: f.packedSize()}
	if err := d.Reset(c.packed, p); err != nil {
		return r.errf(f.e.Name, -1, archive.AsFormatError(err))
	}
	c.src = d
	return nil
}

// Read implements io.Reader.
func (c *contentReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.src.Read(p)
	if n > 0 {
		c.account(p[:n])
		if c.f.e.Size >= 0 && c.n > c.f.e.Size {
			c.err = c.r.errf(c.f.e.Name, -1, fmt.Errorf("%w: more data than the recorded size", archive.ErrFormat))
			return n - int(c.n-c.f.e.Size), c.err
		}
	}
	if err == io.EOF {
		c.err = c.finish()
		return n, c.err
	}
	if err != nil {
		c.err = c.dataErr(err)
		return n, c.err
	}
	return n, nil
}

// dataErr locates a decoding error at the entry. Without a password check
// value (RAR 1.3–4.x), corrupt data in an encrypted entry most likely
// means a wrong password, so it is reported as both.
func (c *contentReader) dataErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if cut := c.parts.err; errors.Is(cut, ErrMissingVolume) {
		return cut // the decoder ran out of data where the volume is missing
	}
	if ae := (*archive.Error)(nil); errors.As(err, &ae) {
		return err
	}
	err = archive.AsFormatError(err)
	if c.f.e.Encrypted && c.f.enc != encRAR5 && errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrWrongPassword) {
		err = fmt.Errorf("%w? decoding failed: %w", archive.ErrWrongPassword, err)
	}
	return c.r.errf(c.f.e.Name, -1, err)
}

// finish checks size and checksum at the end of the stream.
func (c *contentReader) finish() error {
	f := c.f
	if cut := c.parts.err; errors.Is(cut, ErrMissingVolume) {
		return cut // a decoder that took the missing data for the end
	}
	if f.e.Size >= 0 && c.n != f.e.Size {
		err := fmt.Errorf("%w: data ends after %d of %d bytes", archive.ErrFormat, c.n, f.e.Size)
		if f.e.Encrypted && f.enc != encRAR5 {
			err = fmt.Errorf("%w? decoding failed: %w", archive.ErrWrongPassword, err)
		}
		return c.r.errf(f.e.Name, -1, err)
	}
	ok := true
	switch {
	case f.rar14:
		ok = uint16(c.crc) == uint16(f.e.CRC32)
	case f.e.BLAKE2sp() != nil:
		var sum [32]byte
		c.blake.Sum(sum[:0])
		if c.hashKey != nil {
			sum = checksum.RAR5MACBLAKE2sp(c.hashKey, sum[:])
		}
		ok = bytes.Equal(sum[:], f.e.BLAKE2sp())
	case f.e.HasCRC32:
		got := c.crc
		if c.hashKey != nil {
			got = checksum.RAR5MACCRC32(c.hashKey, got)
		}
		ok = got == f.e.CRC32
	}
	if ok {
		return io.EOF
	}
	if f.e.Encrypted && f.enc != encRAR5 {
		return c.r.errf(f.e.Name, -1, fmt.Errorf("%w (%w?)", archive.ErrChecksum, archive.ErrWrongPassword))
	}
	return c.r.errf(f.e.Name, -1, archive.ErrChecksum)
}

// rar14Sum is the RAR 1.4 16-bit checksum: add the byte, rotate left.
func rar14Sum(s uint16, b []byte) uint32 {
	for _, c := range b {
		s += uint16(c)
		s = s<<1 | s>>15
	}
	return uint32(s)
}

// closeDec returns the decryptor's buffer.
func (c *contentReader) closeDec() {
	if c.dec != nil {
		c.dec.Close()
		c.dec = nil
	}
}

// partsReader concatenates an entry's pieces across volumes.
type partsReader struct {
	r   *reader
	f   *fileInfo
	idx int
	sec volumeSection // its window serves the following pieces and entries
	cur io.Reader
	err error
}

func (p *partsReader) reset(r *reader, f *fileInfo) {
	p.r, p.f = r, f
	p.idx = 0
	p.cur = nil
	p.err = nil
}

// Read implements io.Reader.
func (p *partsReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	for {
		if p.cur == nil {
			if p.idx >= len(p.f.parts) {
				if p.f.e.SplitAfter {
					p.err = p.r.cutEntryError(p.f.e.Name)
					if p.err == nil {
						p.err = fmt.Errorf("%w: entry continues in a volume that is missing", archive.ErrFormat)
					}
					return 0, p.err
				}
				p.err = io.EOF
				return 0, io.EOF
			}
			pt := &p.f.parts[p.idx]
			p.sec.open(p.r, pt)
			p.cur = &p.sec
		}
		n, err := p.cur.Read(b)
		if err == io.EOF {
			p.cur = nil
			p.idx++
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w: encrypted data is not a whole number of blocks", archive.ErrFormat)
			}
			p.err = err
		}
		return n, err
	}
}

// hashWriter feeds written bytes to the content reader's checksums.
type hashWriter struct {
	c *contentReader
	w io.Writer
}

func (h hashWriter) Write(p []byte) (int, error) {
	c := h.c
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.f.e.Size >= 0 && c.n+int64(len(p)) > c.f.e.Size {
		return 0, c.r.errf(c.f.e.Name, -1, fmt.Errorf("%w: more data than the recorded size", archive.ErrFormat))
	}
	n, err := h.w.Write(p)
	c.account(p[:n])
	return n, err
}

// account updates the checksums and count with b.
func (c *contentReader) account(b []byte) {
	if c.f.rar14 {
		c.crc = rar14Sum(uint16(c.crc), b)
	} else {
		c.crc = checksum.UpdateCRC32(c.crc, b)
	}
	if c.f.e.BLAKE2sp() != nil {
		c.blake.Write(b)
	}
	c.n += int64(len(b))
}

// copyBufFor returns the copy buffer for an entry of size bytes (-1 if
// unknown): the one kept from earlier entries if it is large enough,
// otherwise a new one of twice its size, at least the entry's size plus
// one (so that one Read meets the end) and at most maxCopyBuf. A tiny
// entry thus costs no 32 KiB buffer, and an archive of many entries
// allocates a few buffers in all rather than one per entry.
func (c *contentReader) copyBufFor(size int64) []byte {
	want := maxCopyBuf
	if size >= 0 && size < maxCopyBuf {
		want = int(size) + 1
	}
	if len(c.copyBuf) < want {
		c.copyBuf = make([]byte, min(max(want, 2*len(c.copyBuf)), maxCopyBuf))
	}
	return c.copyBuf
}

// WriteTo lets io.Copy use the decoder's own WriteTo, avoiding a copy.
func (c *contentReader) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		if c.err == io.EOF {
			return 0, nil
		}
		return 0, c.err
	}
	wt, ok := c.src.(io.WriterTo)
	if !ok {
		var total int64
		buf := c.copyBufFor(c.f.e.Size)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				m, werr := w.Write(buf[:n])
				total += int64(m)
				if werr != nil {
					return total, werr
				}
			}
			if err == io.EOF {
				return total, nil
			}
			if err != nil {
				return total, err
			}
		}
	}
	start := c.n
	_, err := wt.WriteTo(hashWriter{c, w})
	if err != nil {
		if cut := c.parts.err; errors.Is(cut, ErrMissingVolume) {
			err = cut
		} else if ae := (*archive.Error)(nil); errors.As(err, &ae) || errors.Is(err, context.Canceled) {
			// ours (hashWriter) or the caller's cancellation
		} else if errors.Is(err, archive.ErrFormat) || errors.Is(err, archive.ErrUnsupported) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, archive.ErrLimit) {
			err = c.dataErr(err)
		}
		c.err = err
		return c.n - start, err
	}
	c.err = c.finish()
	if c.err == io.EOF {
		return c.n - start, nil
	}
	return c.n - start, c.err
}
