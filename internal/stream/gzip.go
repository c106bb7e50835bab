package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/checksum"
	"github.com/garc-dev/garc/internal/deflate64"
)

// gzip (RFC 1952) framing around internal/deflate64's plain Deflate
// decoder, the one ZIP uses. A gzip file is one or more members, each a
// header (magic 1F 8B, method 8, flags, MTIME, XFL, OS, then the optional
// FEXTRA, FNAME, FCOMMENT and FHCRC fields), Deflate data and a trailer
// (CRC-32 and ISIZE, the size modulo 2^32, of the member's data). Like
// gzip(1), the members are decoded in order; the input must end after a
// trailer.

const (
	gzipFlagHdrCRC  = 1 << 1
	gzipFlagExtra   = 1 << 2
	gzipFlagName    = 1 << 3
	gzipFlagComment = 1 << 4
)

var (
	errGzipHeader = fmt.Errorf("gzip: invalid header: %w", archive.ErrFormat)
	errGzipEmpty  = fmt.Errorf("gzip: empty input: %w", archive.ErrFormat)
	// errGzipTrailing is what follows the last member when it does not
	// begin like a member: an error, as 7-Zip reports "data after the
	// end of the payload data" (gzip(1) warns of trailing garbage, and
	// exits 2; it ignores zeros alone).
	errGzipTrailing = fmt.Errorf("gzip: data after the end of the compressed data: %w", archive.ErrFormat)
)

// gzipReader decodes the members of a gzip file.
type gzipReader struct {
	in     gzipInput
	inflat *deflate64.Decompressor
	crc    uint32
	size   uint32
	data   int64             // input offset of the member's Deflate data
	unused []byte            // scratch for the inflater's unread input
	err    error             // sticky
	str    [gzipMaxName]byte // FNAME, or a piece of FEXTRA
}

// gzipInput is the reader under the members: bytes the inflater read past
// a member's Deflate data (pending) come back before src continues. off
// counts the bytes handed out, less those given back.
type gzipInput struct {
	src     io.Reader
	pending []byte
	spare   []byte // pending's storage, reused
	off     int64
	one     [1]byte
}

func (g *gzipInput) Read(p []byte) (int, error) {
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		g.off += int64(n)
		return n, nil
	}
	n, err := g.src.Read(p)
	g.off += int64(n)
	return n, err
}

func (g *gzipInput) ReadByte() (byte, error) {
	if len(g.pending) > 0 {
		b := g.pending[0]
		g.pending = g.pending[1:]
		g.off++
		return b, nil
	}
	if _, err := io.ReadFull(g, g.one[:]); err != nil {
		return 0, err
	}
	return g.one[0], nil
}

// unread puts back b, the bytes last read that were not used.
func (g *gzipInput) unread(b []byte) {
	rest := len(g.pending)
	g.spare = append(append(g.spare[:0], b...), g.pending...)
	g.pending = g.spare
	g.off -= int64(len(g.pending) - rest)
}

// newGzipReader reads the first member's header from r.
func newGzipReader(r io.Reader) (*gzipReader, Header, error) {
	z := &gzipReader{in: gzipInput{src: r}}
	h, err := z.readHeader(false)
	if err != nil {
		if err == io.EOF {
			err = &archive.Error{Offset: 0, Err: errGzipEmpty}
		}
		return nil, Header{Size: -1}, err
	}
	return z, h, nil
}

// readHeader reads a member header and starts its Deflate data. It
// returns io.EOF when the input ends before the header's first byte.
// After a member (next), bytes that do not begin with the magic are data
// after the end (errGzipTrailing).
func (z *gzipReader) readHeader(next bool) (Header, error) {
	h := Header{Size: -1}
	start := z.in.off
	var buf [10]byte
	n, err := io.ReadFull(&z.in, buf[:])
	if next && n > 0 && !bytes.HasPrefix(magicGzip[:2], buf[:min(n, 2)]) {
		return h, &archive.Error{Offset: start, Err: errGzipTrailing}
	}
	if err != nil {
		if err == io.EOF && n == 0 {
			return h, io.EOF
		}
		return h, z.inputError(err)
	}
	if buf[0] != 0x1F || buf[1] != 0x8B || buf[2] != 8 || buf[3]>>5 != 0 {
		return h, &archive.Error{Offset: start, Err: errGzipHeader}
	}
	flags := buf[3]
	if t := binary.LittleEndian.Uint32(buf[4:8]); t > 0 {
		h.ModTime = time.Unix(int64(t), 0)
	}
	digest := crc32.ChecksumIEEE(buf[:])
	if flags&gzipFlagExtra != 0 {
		if _, err := io.ReadFull(&z.in, buf[:2]); err != nil {
			return h, z.inputError(err)
		}
		digest = crc32.Update(digest, crc32.IEEETable, buf[:2])
		for n := int(binary.LittleEndian.Uint16(buf[:2])); n > 0; {
			k := min(n, len(z.str))
			if _, err := io.ReadFull(&z.in, z.str[:k]); err != nil {
				return h, z.inputError(err)
			}
			digest = crc32.Update(digest, crc32.IEEETable, z.str[:k])
			n -= k
		}
	}
	if flags&gzipFlagName != 0 {
		name, err := z.readString(start, &digest, gzipMaxName)
		if err != nil {
			return h, err
		}
		h.Name = string(name)
	}
	if flags&gzipFlagComment != 0 {
		if _, err := z.readString(start, &digest, gzipMaxComment); err != nil {
			return h, err
		}
	}
	if flags&gzipFlagHdrCRC != 0 {
		if _, err := io.ReadFull(&z.in, buf[:2]); err != nil {
			return h, z.inputError(err)
		}
		if binary.LittleEndian.Uint16(buf[:2]) != uint16(digest) {
			return h, &archive.Error{Offset: start, Err: errGzipHeader}
		}
	}
	if z.inflat == nil {
		z.inflat, _ = gzipInflaters.Get().(*deflate64.Decompressor)
	}
	if z.inflat == nil {
		z.inflat = deflate64.New(&z.in, false)
	} else {
		z.inflat.ResetMode(&z.in, false)
	}
	z.crc, z.size = 0, 0
	z.data = z.in.off
	return h, nil
}

// readString reads a zero-terminated string (FNAME, FCOMMENT) of fewer
// than limit bytes, the bounds 7-Zip reads, into the header digest. It
// returns the string's bytes as stored when they fit in z.str (a name
// always does). The bytes are not converted: RFC 1952 says ISO 8859-1,
// but gzip(1) stores the file name's bytes (UTF-8 today), and gzip -N and
// 7-Zip restore them unchanged.
func (z *gzipReader) readString(start int64, digest *uint32, limit int) ([]byte, error) {
	buf := z.str[:0]
	for range limit {
		b, err := z.in.ReadByte()
		if err != nil {
			return nil, z.inputError(err)
		}
		if len(buf) == cap(buf) { // a long comment: digest it piecewise
			*digest = crc32.Update(*digest, crc32.IEEETable, buf)
			buf = buf[:0]
		}
		buf = append(buf, b)
		if b == 0 {
			*digest = crc32.Update(*digest, crc32.IEEETable, buf)
			return buf[:len(buf)-1], nil
		}
	}
	return nil, &archive.Error{Offset: start, Err: errGzipHeader}
}

// inputError reports a failure to read the framing: the input's own
// error, or a truncation.
func (z *gzipReader) inputError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &archive.Error{Offset: z.in.off, Err: fmt.Errorf("gzip: %w: %w", archive.ErrFormat, io.ErrUnexpectedEOF)}
	}
	return err
}

func (z *gzipReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n := 0
	for n == 0 && len(p) > 0 {
		var err error
		n, err = z.inflat.Read(p)
		z.crc = checksum.UpdateCRC32(z.crc, p[:n])
		z.size += uint32(n)
		if err == nil {
			continue
		}
		if err != io.EOF {
			z.err = z.deflateError(err)
			return n, z.err
		}
		if z.err = z.endMember(); z.err != nil {
			return n, z.err
		}
	}
	return n, nil
}

// endMember checks the trailer of the member whose Deflate data ended and
// reads the next header; it returns io.EOF at the end of the input.
func (z *gzipReader) endMember() error {
	z.unused = z.inflat.AppendUnread(z.unused[:0])
	z.in.unread(z.unused)
	var buf [8]byte
	if _, err := io.ReadFull(&z.in, buf[:]); err != nil {
		return z.inputError(err)
	}
	if binary.LittleEndian.Uint32(buf[:4]) != z.crc || binary.LittleEndian.Uint32(buf[4:]) != z.size {
		return &archive.Error{Offset: z.in.off - 8, Err: fmt.Errorf("gzip: %w", archive.ErrChecksum)}
	}
	_, err := z.readHeader(true)
	return err
}

// deflateError gives a Deflate error the input offset of the gzip file.
func (z *gzipReader) deflateError(err error) error {
	var ce *deflate64.CorruptInputError
	if errors.As(err, &ce) {
		return &archive.Error{Offset: z.data + ce.Offset, Err: err}
	}
	return mapError("gzip", err)
}

// gzipInflaters keeps the inflaters of closed gzipReaders for the next
// ones: a .tar.gz is opened twice (once to see whether it holds a tar),
// and each inflater's buffers and tables (185 KB) would otherwise
// be allocated and touched anew.
var gzipInflaters sync.Pool

// Close gives the inflater to the next gzipReader; reads fail from then
// on.
func (z *gzipReader) Close() error {
	if z.inflat != nil {
		z.inflat.Reset(nil)
		gzipInflaters.Put(z.inflat)
		z.inflat = nil
	}
	z.err = errClosed
	return nil
}
