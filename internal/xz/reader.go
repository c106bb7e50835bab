package xz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/checksum"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/lzma"
)

// Magic is the first six bytes of an xz stream.
var Magic = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}

var footerMagic = []byte{'Y', 'Z'}

// Check types of the stream flags (specification section 2.1.1.2).
const (
	checkNone   = 0x00
	checkCRC32  = 0x01
	checkCRC64  = 0x04
	checkSHA256 = 0x0A
)

// Filter IDs (specification section 5.3 and XZ Utils' later additions).
const (
	filterDelta = 0x03
	filterX86   = 0x04
	filterPPC   = 0x05
	filterIA64  = 0x06
	filterARM   = 0x07
	filterARMT  = 0x08
	filterSPARC = 0x09
	filterARM64 = 0x0A
	filterRISCV = 0x0B
	filterLZMA2 = 0x21
)

var branchFilters = map[uint64]filters.Arch{
	filterX86: filters.ArchX86, filterPPC: filters.ArchPPC, filterIA64: filters.ArchIA64,
	filterARM: filters.ArchARM, filterARMT: filters.ArchARMT, filterSPARC: filters.ArchSPARC,
	filterARM64: filters.ArchARM64, filterRISCV: filters.ArchRISCV,
}

// checkSize returns the size of the check field for a check type; the
// specification fixes it for every ID, known or not.
func checkSize(id byte) int {
	if id == 0 {
		return 0
	}
	return 4 << ((id - 1) / 3)
}

// Reader decompresses an xz file (one or more streams with their padding).
// It implements io.Reader; a Reader is reused for another file with Reset.
type Reader struct {
	in      input
	maxDict int64
	lz      *lzma.Reader2
	frame   lzma2Frame
	out     io.Reader // the current block's uncompressed data, or nil between blocks
	err     error

	streams int // streams started
	flags   [2]byte
	check   byte
	sum     hash.Hash
	sumBuf  [64]byte
	inBlock bool

	// The current block.
	headerSize     int64
	declaredComp   int64 // -1 when the header does not say
	declaredUncomp int64
	uncompressed   int64
	blockStart     int64

	// Records of the blocks seen in this stream, for comparison with the
	// index: a count and a running hash, so memory stays constant.
	blocks      uint64
	records     hash.Hash
	indexHash   hash.Hash
	totalOut    int64
	hdr         [1024]byte
	readRecords [32]byte

	par       *parBlocks // block-parallel decoding, nil without SetThreads
	blockOnly bool       // a block decoder of par: io.EOF at the end of the block
	blockSize int64      // in a block decoder, the unpacked size the walk found
}

// NewReader returns a Reader decompressing r. maxDict bounds the LZMA2
// dictionary any block may declare (0 means archive.DefaultMaxDict).
func NewReader(r io.Reader, maxDict int64) *Reader {
	z := &Reader{}
	z.Reset(r, maxDict)
	return z
}

// Reset makes z read a new file from r, keeping its buffers.
func (z *Reader) Reset(r io.Reader, maxDict int64) {
	if maxDict <= 0 {
		maxDict = archive.DefaultMaxDict
	}
	if z.par != nil {
		z.par.drain()
		z.par.blocks = 0
		z.par.decided = false
	}
	z.in.reset(r)
	if maxDict != z.maxDict {
		z.lz = nil // its window limit is fixed at creation
	}
	z.maxDict = maxDict
	z.out = nil
	z.err = nil
	z.streams = 0
	z.inBlock = false
	z.totalOut = 0
	if z.records == nil {
		z.records, z.indexHash = sha256.New(), sha256.New()
	}
}

// InputOffset returns how many bytes of the input have been consumed.
func (z *Reader) InputOffset() int64 { return z.in.off }

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	for z.err == nil {
		if z.out != nil {
			if len(p) == 0 {
				return 0, nil
			}
			n, err := z.out.Read(p)
			if n > 0 {
				z.uncompressed += int64(n)
				if z.declaredUncomp >= 0 && z.uncompressed > z.declaredUncomp {
					z.err = z.corrupt(z.in.off, "block holds more data than its header declares")
					return 0, z.err
				}
				if z.sum != nil {
					z.sum.Write(p[:n])
				}
				z.totalOut += int64(n)
			}
			if err == io.EOF {
				z.out = nil
				z.err = z.endBlock()
			} else if err != nil {
				z.err = z.decodeError(err)
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if z.par != nil && z.inBlock {
			if n, ok := z.parRead(p); ok {
				return n, nil
			}
		}
		if z.blockOnly {
			z.err = io.EOF
			break
		}
		z.err = z.next()
	}
	return 0, z.err
}

// next moves to the next block, reading stream headers, indexes, footers
// and padding on the way. It returns io.EOF at the end of the file.
func (z *Reader) next() error {
	if !z.inBlock {
		return z.startStream()
	}
	at := z.in.off
	b, err := z.in.readByte()
	if err != nil {
		return z.truncated(at, err)
	}
	if b == 0 {
		if err := z.readIndex(at); err != nil {
			return err
		}
		if err := z.readFooter(at); err != nil {
			return err
		}
		z.inBlock = false
		return nil
	}
	return z.startBlock(at, b)
}

// startStream reads stream padding and the next stream header; io.EOF
// when the file ends after at least one stream.
func (z *Reader) startStream() error {
	var b [12]byte
	start := z.in.off
	if z.streams > 0 {
		// Stream padding: zero bytes in groups of four.
		for {
			at := z.in.off
			n, err := io.ReadFull(&z.in, b[:4])
			if n == 0 && err == io.EOF {
				return io.EOF
			}
			if err != nil {
				return z.corrupt(at, "stream padding is not a multiple of four bytes")
			}
			if binary.LittleEndian.Uint32(b[:4]) != 0 {
				start = at
				break
			}
		}
		if _, err := io.ReadFull(&z.in, b[4:12]); err != nil {
			return z.truncated(z.in.off, err)
		}
	} else if _, err := io.ReadFull(&z.in, b[:]); err != nil {
		if err == io.EOF {
			return z.corrupt(start, "empty input")
		}
		return z.truncated(z.in.off, err)
	}
	if !bytes.Equal(b[:6], Magic) {
		return z.corrupt(start, "not an xz stream (bad magic)")
	}
	if crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		return z.corrupt(start+8, "stream header CRC32 mismatch")
	}
	if b[6] != 0 || b[7]&0xF0 != 0 {
		return z.unsupported(start+6, "stream flags %#02x%02x", b[6], b[7])
	}
	z.flags = [2]byte{b[6], b[7]}
	z.check = b[7] & 0x0F
	z.sum = newCheck(z.check)
	if z.sum == nil && z.check != checkNone {
		return z.unsupported(start+7, "check type %d", z.check)
	}
	z.streams++
	z.inBlock = true
	z.blocks = 0
	z.records.Reset()
	return nil
}

// newCheck returns a hash for a check type, nil for none or an
// unsupported one.
func newCheck(check byte) hash.Hash {
	switch check {
	case checkCRC32:
		return &checksum.CRC32{}
	case checkCRC64:
		return &crc64Digest{}
	case checkSHA256:
		return sha256.New()
	}
	return nil
}

// startBlock parses a block header whose first byte b has been read at at.
func (z *Reader) startBlock(at int64, b byte) error {
	size := (int(b) + 1) * 4
	hdr := z.hdr[:size]
	hdr[0] = b
	if _, err := io.ReadFull(&z.in, hdr[1:]); err != nil {
		return z.truncated(z.in.off, err)
	}
	if crc32.ChecksumIEEE(hdr[:size-4]) != binary.LittleEndian.Uint32(hdr[size-4:]) {
		return z.corrupt(at, "block header CRC32 mismatch")
	}
	flags := hdr[1]
	if flags&0x3C != 0 {
		return z.unsupported(at+1, "block flags %#02x", flags)
	}
	p := vliParser{b: hdr[2 : size-4], base: at + 2}
	z.declaredComp, z.declaredUncomp = -1, -1
	if flags&0x40 != 0 {
		v, err := p.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		if v == 0 {
			return z.corrupt(at, "block declares zero compressed bytes")
		}
		z.declaredComp = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := p.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		z.declaredUncomp = int64(v)
	}
	nf := int(flags&3) + 1
	type filter struct {
		id    uint64
		props []byte
		at    int64
	}
	var chain [4]filter
	for i := range nf {
		fat := p.base + int64(p.pos)
		id, err := p.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		n, err := p.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		if n > uint64(len(p.b)-p.pos) {
			return z.corrupt(fat, "filter properties run past the block header")
		}
		chain[i] = filter{id, p.b[p.pos : p.pos+int(n)], fat}
		p.pos += int(n)
	}
	for _, c := range p.b[p.pos:] {
		if c != 0 {
			return z.corrupt(p.base+int64(p.pos), "block header padding is not zero")
		}
	}
	last := chain[nf-1]
	if last.id != filterLZMA2 {
		if _, known := branchFilters[last.id]; known || last.id == filterDelta {
			return z.corrupt(last.at, "the last filter of a block must be LZMA2")
		}
		return z.unsupported(last.at, "filter %#x", last.id)
	}
	if len(last.props) != 1 || last.props[0] > 40 {
		return z.corrupt(last.at, "bad LZMA2 properties")
	}
	if err := lzma2DictCheck(last.props[0], z.maxDict); err != nil {
		return &archive.Error{Offset: last.at, Err: err}
	}
	z.frame.reset(&z.in, z.declaredComp)
	unpacked := z.declaredUncomp
	if z.blockOnly {
		unpacked = z.blockSize
	}
	if z.lz == nil {
		lz, err := lzma.NewReader2(&z.frame, last.props[0], unpacked, z.maxDict)
		if err != nil {
			return &archive.Error{Offset: last.at, Err: err}
		}
		z.lz = lz
	} else if err := z.lz.Reset(&z.frame, last.props[0], unpacked); err != nil {
		return &archive.Error{Offset: last.at, Err: err}
	}
	var out io.Reader = z.lz
	for i := nf - 2; i >= 0; i-- {
		f := chain[i]
		switch {
		case f.id == filterLZMA2:
			return z.corrupt(f.at, "LZMA2 is allowed only as the last filter")
		case f.id == filterDelta:
			if len(f.props) != 1 {
				return z.corrupt(f.at, "bad delta filter properties")
			}
			out = filters.NewReader(out, filters.NewDelta(false, int(f.props[0])+1))
		default:
			arch, ok := branchFilters[f.id]
			if !ok {
				return z.unsupported(f.at, "filter %#x", f.id)
			}
			start, ok := filters.ParseStartOffset(arch, f.props)
			if !ok {
				return z.corrupt(f.at, "bad branch filter properties")
			}
			out = filters.NewReader(out, filters.NewBranch(arch, false, start))
		}
	}
	z.headerSize = int64(size)
	z.blockStart = z.in.off
	z.uncompressed = 0
	if z.sum != nil {
		z.sum.Reset()
	}
	z.out = out
	return nil
}

// endBlock checks sizes, padding and the check after a block's data.
func (z *Reader) endBlock() error {
	// A decoder told the uncompressed size may stop before the LZMA2 end
	// byte: the frame must then hold exactly that byte.
	if !z.frame.done || z.frame.hpos < z.frame.hlen {
		var rest [8]byte
		n, err := io.ReadFull(&z.frame, rest[:])
		if err != io.ErrUnexpectedEOF || n != 1 || rest[0] != 0 {
			if errors.Is(err, errFrame) || err == nil || n != 1 || rest[0] != 0 {
				return z.corrupt(z.in.off, "LZMA2 data continue after the block's uncompressed size")
			}
			return z.decodeError(err)
		}
	}
	comp := z.frame.n
	if z.declaredComp >= 0 && comp != z.declaredComp {
		return z.corrupt(z.in.off, "block compressed size differs from its header")
	}
	if z.declaredUncomp >= 0 && z.uncompressed != z.declaredUncomp {
		return z.corrupt(z.in.off, "block uncompressed size differs from its header")
	}
	var pad [4]byte
	at := z.in.off
	np := int((4 - comp%4) % 4)
	if _, err := io.ReadFull(&z.in, pad[:np]); err != nil {
		return z.truncated(z.in.off, err)
	}
	if binary.LittleEndian.Uint32(pad[:]) != 0 {
		return z.corrupt(at, "block padding is not zero")
	}
	cs := checkSize(z.check)
	at = z.in.off
	stored := z.sumBuf[:cs]
	if _, err := io.ReadFull(&z.in, stored); err != nil {
		return z.truncated(z.in.off, err)
	}
	if z.sum != nil {
		var got [64]byte
		sum := z.sum.Sum(got[:0])
		if z.check != checkSHA256 {
			// CRC32 and CRC64 are stored little-endian; hash/crc* sums are big-endian.
			for i, j := 0, len(sum)-1; i < j; i, j = i+1, j-1 {
				sum[i], sum[j] = sum[j], sum[i]
			}
		}
		if !bytes.Equal(sum, stored) {
			return &archive.Error{Offset: at, Err: fmt.Errorf("xz: block check mismatch: %w", archive.ErrChecksum)}
		}
	}
	unpadded := z.headerSize + comp + int64(cs)
	z.blocks++
	var rec [16]byte
	binary.LittleEndian.PutUint64(rec[:8], uint64(unpadded))
	binary.LittleEndian.PutUint64(rec[8:], uint64(z.uncompressed))
	z.records.Write(rec[:])
	return nil
}

// readIndex reads the index whose indicator byte was at at and compares it
// with the blocks seen.
func (z *Reader) readIndex(at int64) error {
	crc := crc32.NewIEEE()
	crc.Write([]byte{0})
	z.indexHash.Reset()
	vr := vliReader{in: &z.in, crc: crc}
	count, err := vr.next()
	if err != nil {
		return z.wrapVLI(err)
	}
	if count != z.blocks {
		return z.corrupt(at, "index lists a different number of blocks than the stream has")
	}
	for range count {
		unpadded, err := vr.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		uncomp, err := vr.next()
		if err != nil {
			return z.wrapVLI(err)
		}
		if unpadded == 0 || unpadded > 1<<63-1 || uncomp > 1<<63-1 {
			return z.corrupt(vr.in.off, "bad index record")
		}
		var rec [16]byte
		binary.LittleEndian.PutUint64(rec[:8], unpadded)
		binary.LittleEndian.PutUint64(rec[8:], uncomp)
		z.indexHash.Write(rec[:])
	}
	if !bytes.Equal(z.indexHash.Sum(z.readRecords[:0]), z.records.Sum(nil)) {
		return z.corrupt(at, "index does not match the blocks")
	}
	size := z.in.off - at
	var pad [4]byte
	np := int((4 - size%4) % 4)
	pat := z.in.off
	if _, err := io.ReadFull(&z.in, pad[:np]); err != nil {
		return z.truncated(z.in.off, err)
	}
	if binary.LittleEndian.Uint32(pad[:]) != 0 {
		return z.corrupt(pat, "index padding is not zero")
	}
	crc.Write(pad[:np])
	var stored [4]byte
	if _, err := io.ReadFull(&z.in, stored[:]); err != nil {
		return z.truncated(z.in.off, err)
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(stored[:]) {
		return z.corrupt(z.in.off-4, "index CRC32 mismatch")
	}
	return nil
}

// readFooter reads the stream footer after the index that started at
// indexAt.
func (z *Reader) readFooter(indexAt int64) error {
	var b [12]byte
	at := z.in.off
	if _, err := io.ReadFull(&z.in, b[:]); err != nil {
		return z.truncated(z.in.off, err)
	}
	if !bytes.Equal(b[10:12], footerMagic) {
		return z.corrupt(at+10, "bad stream footer magic")
	}
	if crc32.ChecksumIEEE(b[4:10]) != binary.LittleEndian.Uint32(b[:4]) {
		return z.corrupt(at, "stream footer CRC32 mismatch")
	}
	backward := (int64(binary.LittleEndian.Uint32(b[4:8])) + 1) * 4
	if backward != at-indexAt {
		return z.corrupt(at+4, "stream footer's index size differs from the index")
	}
	if b[8] != z.flags[0] || b[9] != z.flags[1] {
		return z.corrupt(at+8, "stream footer flags differ from the header")
	}
	return nil
}

// lzma2DictCheck refuses a dictionary above the limit before anything is
// allocated.
func lzma2DictCheck(prop byte, limit int64) error {
	var dict int64
	if prop == 40 {
		dict = 1<<32 - 1
	} else {
		dict = int64(2|prop&1) << (prop/2 + 11)
	}
	if dict > limit {
		return &archive.LimitError{What: "xz LZMA2 dictionary size", Need: dict, Limit: limit}
	}
	return nil
}

func (z *Reader) corrupt(at int64, msg string) error {
	return &archive.Error{Offset: at, Err: fmt.Errorf("xz: %s: %w", msg, archive.ErrFormat)}
}

func (z *Reader) unsupported(at int64, format string, args ...any) error {
	return &archive.Error{Offset: at, Err: &archive.UnsupportedError{What: "xz " + fmt.Sprintf(format, args...)}}
}

func (z *Reader) truncated(at int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return z.corrupt(at, "unexpected end of data")
	}
	return err
}

func (z *Reader) wrapVLI(err error) error {
	var ve *vliError
	if errors.As(err, &ve) {
		return z.corrupt(ve.at, ve.msg)
	}
	return z.truncated(z.in.off, err)
}

// decodeError gives an LZMA2 or filter error the input offset.
func (z *Reader) decodeError(err error) error {
	if errors.Is(err, errFrame) {
		return z.corrupt(z.in.off, "LZMA2 data run past the block's declared compressed size")
	}
	if err == io.ErrUnexpectedEOF {
		return z.corrupt(z.in.off, "unexpected end of data")
	}
	var ae *archive.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, archive.ErrFormat) || errors.Is(err, archive.ErrLimit) || errors.Is(err, archive.ErrUnsupported) {
		return &archive.Error{Offset: z.in.off, Err: fmt.Errorf("xz: %w", err)}
	}
	return err
}

// input is the buffered source with a count of consumed bytes.
type input struct {
	br  *bufio.Reader
	src io.Reader // what br reads: the input, or bytes put back in front of it
	off int64
}

func (in *input) reset(r io.Reader) {
	in.src = r
	if in.br == nil {
		in.br = bufio.NewReaderSize(r, 64<<10)
	} else {
		in.br.Reset(r)
	}
	in.off = 0
}

func (in *input) Read(p []byte) (int, error) {
	n, err := in.br.Read(p)
	in.off += int64(n)
	return n, err
}

func (in *input) readByte() (byte, error) {
	b, err := in.br.ReadByte()
	if err == nil {
		in.off++
	}
	return b, err
}

// vliError is a malformed variable-length integer.
type vliError struct {
	at  int64
	msg string
}

func (e *vliError) Error() string { return e.msg }

// vliParser decodes variable-length integers from a block header.
type vliParser struct {
	b    []byte
	pos  int
	base int64
}

func (p *vliParser) next() (uint64, error) {
	var v uint64
	start := p.pos
	for i := 0; ; i++ {
		if p.pos >= len(p.b) {
			return 0, &vliError{p.base + int64(start), "integer runs past the block header"}
		}
		if i == 9 {
			return 0, &vliError{p.base + int64(start), "integer longer than nine bytes"}
		}
		c := p.b[p.pos]
		p.pos++
		v |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, &vliError{p.base + int64(start), "integer not minimally encoded"}
			}
			return v, nil
		}
	}
}

// vliReader decodes variable-length integers from the input, feeding the
// bytes to crc.
type vliReader struct {
	in  *input
	crc hash.Hash32
}

func (r *vliReader) next() (uint64, error) {
	var v uint64
	start := r.in.off
	for i := 0; ; i++ {
		if i == 9 {
			return 0, &vliError{start, "integer longer than nine bytes"}
		}
		c, err := r.in.readByte()
		if err != nil {
			return 0, err
		}
		r.crc.Write([]byte{c})
		v |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, &vliError{start, "integer not minimally encoded"}
			}
			return v, nil
		}
	}
}

// errFrame reports LZMA2 data longer than the block header declares.
var errFrame = errors.New("xz: LZMA2 data longer than declared")

// lzma2Frame passes one LZMA2 stream through, chunk by chunk, and reports
// io.EOF right after its end byte, so the decoder never reads past the
// block's data however much it buffers. It also counts the bytes.
type lzma2Frame struct {
	in    io.Reader
	limit int64 // declared compressed size, or -1
	n     int64 // bytes passed
	left  int   // bytes of the current chunk still to pass
	done  bool
	hdr   [6]byte
	hlen  int // header bytes buffered in hdr not yet passed
	hpos  int
}

func (f *lzma2Frame) reset(in io.Reader, limit int64) {
	*f = lzma2Frame{in: in, limit: limit}
}

func (f *lzma2Frame) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.hpos < f.hlen {
		n := copy(p, f.hdr[f.hpos:f.hlen])
		f.hpos += n
		return n, nil
	}
	if f.left == 0 {
		if f.done {
			return 0, io.EOF
		}
		if err := f.readHeader(); err != nil {
			return 0, err
		}
		n := copy(p, f.hdr[:f.hlen])
		f.hpos = n
		return n, nil
	}
	if len(p) > f.left {
		p = p[:f.left]
	}
	if err := f.take(int64(len(p))); err != nil {
		return 0, err
	}
	n, err := f.in.Read(p)
	f.left -= n
	f.n += int64(n) - int64(len(p)) // take counted len(p); correct to n
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (f *lzma2Frame) take(k int64) error {
	if f.limit >= 0 && f.n+k > f.limit {
		return errFrame
	}
	f.n += k
	return nil
}

// readHeader reads the next chunk's control byte and sizes into hdr.
func (f *lzma2Frame) readHeader() error {
	if err := f.take(1); err != nil {
		return err
	}
	if _, err := io.ReadFull(f.in, f.hdr[:1]); err != nil {
		return io.ErrUnexpectedEOF
	}
	c := f.hdr[0]
	extra := lzma.ChunkHeaderLen(c) - 1
	if extra < 0 {
		// The end marker, or an invalid control byte: pass it on and let
		// the decoder report it.
		f.done = true
		f.hlen = 1
		return nil
	}
	if err := f.take(int64(extra)); err != nil {
		return err
	}
	if _, err := io.ReadFull(f.in, f.hdr[1:1+extra]); err != nil {
		return io.ErrUnexpectedEOF
	}
	f.hlen = 1 + extra
	_, f.left = lzma.ChunkSizes(f.hdr[:f.hlen])
	return nil
}
