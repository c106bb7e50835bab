package zip

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/lzma"
)

// xzReader decodes ZIP method 95: one or more concatenated .xz streams
// (the .xz file format 1.2, tukaani.org), whose blocks are LZMA2 coded.
// The container is parsed here and the LZMA2 data decoded by
// internal/lzma, whose window is bounded by the dictionary limit. Each
// block's integrity check (CRC32, CRC64 or SHA-256) and the index are
// verified.
type xzReader struct {
	br      *bufio.Reader
	limit   int64
	lz      *lzma.Reader2
	out     io.Reader // lz, behind the block's filters
	chunks  lzma2Chunks
	check   byte      // check type of the current stream
	sum     hash.Hash // running check of the current block
	inBlock bool
	started bool // a stream header has been read
	done    bool
	err     error

	blockOut        int64 // uncompressed size of the block so far
	wantIn, wantOut int64 // sizes from the block header; -1 when absent
	hdrLen          int64
	records         []xzRecord // blocks of the current stream, for the index
}

type xzRecord struct{ unpadded, uncompressed int64 }

var (
	xzMagic     = []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	crc64Table  = crc64.MakeTable(crc64.ECMA)
	errXZFormat = fmt.Errorf("xz: %w", archive.ErrFormat)
)

// xzCheckLen is the size of each check type's field.
var xzCheckLen = [16]int{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// maxXZRecords bounds the blocks of one stream (each costs 16 bytes).
const maxXZRecords = 1 << 20

func (x *xzReader) reset(br *bufio.Reader, limit int64) {
	x.br = br
	x.limit = limit
	x.inBlock, x.started, x.done, x.err = false, false, false, nil
	x.records = x.records[:0]
}

func (x *xzReader) Read(p []byte) (int, error) {
	for x.err == nil {
		if x.done {
			return 0, io.EOF
		}
		if !x.inBlock {
			x.err = x.next()
			continue
		}
		n, err := x.out.Read(p)
		x.blockOut += int64(n)
		x.sum.Write(p[:n])
		if x.wantOut >= 0 && x.blockOut > x.wantOut {
			x.err = fmt.Errorf("xz block larger than its header says: %w", archive.ErrFormat)
			return 0, x.err
		}
		if err == io.EOF {
			x.err = x.endBlock()
		} else if err != nil {
			x.err = err
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, x.err
}

// next reads a stream header (at the start), a block header, or the
// index and footer of a stream followed by padding and perhaps another
// stream.
func (x *xzReader) next() error {
	if !x.started {
		var h [12]byte
		if _, err := io.ReadFull(x.br, h[:]); err != nil {
			return fmt.Errorf("xz stream header: %w", archive.ErrFormat)
		}
		if !bytes.Equal(h[:6], xzMagic) || h[6] != 0 || h[7] > 0x0F ||
			crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
			return fmt.Errorf("xz stream header: %w", archive.ErrFormat)
		}
		x.check = h[7]
		x.started = true
		x.records = x.records[:0]
		switch x.check {
		case 0, 1, 4, 10:
		default:
			return &archive.UnsupportedError{What: fmt.Sprintf("xz check type %d", x.check)}
		}
		return nil
	}
	b, err := x.br.ReadByte()
	if err != nil {
		return fmt.Errorf("xz: truncated: %w", archive.ErrFormat)
	}
	if b == 0 {
		return x.readIndex()
	}
	return x.startBlock(b)
}

// startBlock parses a block header whose size byte is b.
func (x *xzReader) startBlock(b byte) error {
	n := (int(b) + 1) * 4
	h := make([]byte, n)
	h[0] = b
	if _, err := io.ReadFull(x.br, h[1:]); err != nil {
		return fmt.Errorf("xz block header: %w", archive.ErrFormat)
	}
	if crc32.ChecksumIEEE(h[:n-4]) != binary.LittleEndian.Uint32(h[n-4:]) {
		return fmt.Errorf("xz block header CRC: %w", archive.ErrChecksum)
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return &archive.UnsupportedError{What: "xz block flags"}
	}
	r := bytes.NewReader(h[2 : n-4])
	x.wantIn, x.wantOut = -1, -1
	if flags&0x40 != 0 {
		v, err := readXZVarint(r)
		if err != nil || v == 0 {
			return errXZFormat
		}
		x.wantIn = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := readXZVarint(r)
		if err != nil {
			return errXZFormat
		}
		x.wantOut = int64(v)
	}
	nf := int(flags&3) + 1
	var props byte
	var convs []filters.Converter
	for i := 0; i < nf; i++ {
		id, err1 := readXZVarint(r)
		size, err2 := readXZVarint(r)
		if err1 != nil || err2 != nil || size > uint64(r.Len()) {
			return errXZFormat
		}
		fp := make([]byte, size)
		r.Read(fp)
		if i == nf-1 {
			if id != 0x21 || size != 1 {
				return &archive.UnsupportedError{What: fmt.Sprintf("xz filter 0x%x at the end of the chain", id)}
			}
			props = fp[0]
			break
		}
		c, err := xzFilter(id, fp)
		if err != nil {
			return err
		}
		convs = append(convs, c)
	}
	for r.Len() > 0 {
		if c, _ := r.ReadByte(); c != 0 {
			return errXZFormat
		}
	}
	x.chunks = lzma2Chunks{br: x.br}
	if x.lz == nil {
		lz, err := lzma.NewReader2(&x.chunks, props, -1, x.limit)
		if err != nil {
			return err
		}
		x.lz = lz
	} else if err := x.lz.Reset(&x.chunks, props, -1); err != nil {
		return err
	}
	x.out = x.lz
	for i := len(convs) - 1; i >= 0; i-- {
		x.out = filters.NewReader(x.out, convs[i])
	}
	switch x.check {
	case 0:
		x.sum = nopHash{}
	case 1:
		x.sum = crc32.NewIEEE()
	case 4:
		x.sum = crc64.New(crc64Table)
	case 10:
		x.sum = sha256.New()
	}
	x.hdrLen = int64(n)
	x.blockOut = 0
	x.inBlock = true
	return nil
}

// xzFilter returns the decoder of a non-last xz filter: Delta or a
// branch converter (the filter IDs of the .xz format, section 5.3).
func xzFilter(id uint64, props []byte) (filters.Converter, error) {
	if id == 0x03 {
		if len(props) != 1 {
			return nil, errXZFormat
		}
		return filters.NewDelta(false, int(props[0])+1), nil
	}
	arch := map[uint64]filters.Arch{0x04: filters.ArchX86, 0x05: filters.ArchPPC, 0x06: filters.ArchIA64,
		0x07: filters.ArchARM, 0x08: filters.ArchARMT, 0x09: filters.ArchSPARC, 0x0A: filters.ArchARM64,
		0x0B: filters.ArchRISCV}
	a, ok := arch[id]
	if !ok {
		return nil, &archive.UnsupportedError{What: fmt.Sprintf("xz filter 0x%x", id)}
	}
	if len(props) != 0 && len(props) != 4 {
		return nil, errXZFormat
	}
	start, ok := filters.ParseStartOffset(a, props)
	if !ok {
		return nil, &archive.UnsupportedError{What: fmt.Sprintf("xz filter 0x%x start offset", id)}
	}
	return filters.NewBranch(a, false, start), nil
}

// endBlock checks a block's sizes, padding and check field.
func (x *xzReader) endBlock() error {
	x.inBlock = false
	in := x.chunks.n
	if x.wantIn >= 0 && in != x.wantIn || x.wantOut >= 0 && x.blockOut != x.wantOut {
		return fmt.Errorf("xz block sizes differ from its header: %w", archive.ErrFormat)
	}
	for pad := (4 - in%4) % 4; pad > 0; pad-- {
		if c, err := x.br.ReadByte(); err != nil || c != 0 {
			return fmt.Errorf("xz block padding: %w", archive.ErrFormat)
		}
	}
	cl := xzCheckLen[x.check]
	var got [64]byte
	if _, err := io.ReadFull(x.br, got[:cl]); err != nil {
		return fmt.Errorf("xz block check: %w", archive.ErrFormat)
	}
	if !bytes.Equal(reverseIfCRC(x.sum.Sum(nil), x.check), got[:cl]) {
		return fmt.Errorf("xz block check: %w", archive.ErrChecksum)
	}
	if len(x.records) >= maxXZRecords {
		return &archive.LimitError{What: "xz blocks in a stream", Need: maxXZRecords + 1, Limit: maxXZRecords, Fixed: true}
	}
	x.records = append(x.records, xzRecord{x.hdrLen + in + int64(cl), x.blockOut})
	return nil
}

// reverseIfCRC turns a big-endian hash.Hash32/64 sum into the
// little-endian order xz stores CRCs in.
func reverseIfCRC(s []byte, check byte) []byte {
	if check == 1 || check == 4 {
		for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
			s[i], s[j] = s[j], s[i]
		}
	}
	return s
}

// readIndex reads the index (its indicator byte already consumed) and the
// stream footer, checks them against the blocks seen, then skips stream
// padding and ends or starts the next stream.
func (x *xzReader) readIndex() error {
	crc := crc32.NewIEEE()
	crc.Write([]byte{0})
	tr := &teeByteReader{r: x.br, h: crc}
	count, err := readXZVarint(tr)
	if err != nil || count != uint64(len(x.records)) {
		return fmt.Errorf("xz index record count: %w", archive.ErrFormat)
	}
	for _, rec := range x.records {
		u, err1 := readXZVarint(tr)
		s, err2 := readXZVarint(tr)
		if err1 != nil || err2 != nil || int64(u) != rec.unpadded || int64(s) != rec.uncompressed {
			return fmt.Errorf("xz index: %w", archive.ErrFormat)
		}
	}
	for tr.n%4 != 3 {
		// Index padding: indicator byte + fields + padding is a
		// multiple of four.
		if c, err := tr.ReadByte(); err != nil || c != 0 {
			return fmt.Errorf("xz index padding: %w", archive.ErrFormat)
		}
	}
	indexLen := tr.n + 1 + 4
	var tail [16]byte
	if _, err := io.ReadFull(x.br, tail[:]); err != nil {
		return fmt.Errorf("xz stream footer: %w", archive.ErrFormat)
	}
	le := binary.LittleEndian
	if le.Uint32(tail[:]) != crc.Sum32() {
		return fmt.Errorf("xz index CRC: %w", archive.ErrChecksum)
	}
	f := tail[4:]
	if !bytes.Equal(f[10:12], []byte("YZ")) || crc32.ChecksumIEEE(f[4:10]) != le.Uint32(f) ||
		f[8] != 0 || f[9] != x.check || (int64(le.Uint32(f[4:]))+1)*4 != indexLen {
		return fmt.Errorf("xz stream footer: %w", archive.ErrFormat)
	}
	// Stream padding, then end of input or another stream.
	x.started = false
	for {
		b, err := x.br.Peek(4)
		if len(b) == 0 && err == io.EOF {
			x.done = true
			return nil
		}
		if len(b) < 4 {
			return fmt.Errorf("xz stream padding: %w", archive.ErrFormat)
		}
		if le.Uint32(b) != 0 {
			return nil
		}
		x.br.Discard(4)
	}
}

// readXZVarint reads xz's multibyte integer (7 bits per byte, little
// endian, at most 9 bytes).
func readXZVarint(r io.ByteReader) (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		b, err := r.ReadByte()
		if err != nil {
			return 0, errXZFormat
		}
		v |= uint64(b&0x7F) << (7 * i)
		if b&0x80 == 0 {
			if b == 0 && i > 0 {
				return 0, errXZFormat
			}
			return v, nil
		}
	}
	return 0, errXZFormat
}

// teeByteReader counts the bytes read and hashes them.
type teeByteReader struct {
	r *bufio.Reader
	h hash.Hash
	n int64
}

func (t *teeByteReader) ReadByte() (byte, error) {
	b, err := t.r.ReadByte()
	if err == nil {
		t.h.Write([]byte{b})
		t.n++
	}
	return b, err
}

// nopHash is the check of type None.
type nopHash struct{}

func (nopHash) Write(p []byte) (int, error) { return len(p), nil }
func (nopHash) Sum(b []byte) []byte         { return b }
func (nopHash) Reset()                      {}
func (nopHash) Size() int                   { return 0 }
func (nopHash) BlockSize() int              { return 1 }

// lzma2Chunks passes exactly one LZMA2 stream through from br, following
// the chunk headers, so that the LZMA2 decoder's read-ahead cannot swallow
// the block padding and check after it.
type lzma2Chunks struct {
	br   *bufio.Reader
	left int     // data bytes of the current chunk not yet passed on
	hdr  [6]byte // a chunk header being passed on
	hdrN int     // bytes of hdr still to pass on (at its end)
	end  bool    // the end marker was passed on
	n    int64   // bytes passed on
}

func (c *lzma2Chunks) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.hdrN > 0 {
		k := copy(p, c.hdr[len(c.hdr)-c.hdrN:])
		c.hdrN -= k
		c.n += int64(k)
		return k, nil
	}
	if c.left > 0 {
		k, err := c.br.Read(p[:min(len(p), c.left)])
		c.left -= k
		c.n += int64(k)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return k, err
	}
	if c.end {
		return 0, io.EOF
	}
	ctl, err := c.br.ReadByte()
	if err != nil {
		return 0, io.ErrUnexpectedEOF
	}
	var hl int
	switch {
	case ctl == 0:
		c.end = true
		hl = 1
	case ctl == 1 || ctl == 2:
		hl = 3
	case ctl >= 0x80:
		hl = 5
		if ctl >= 0xC0 {
			hl = 6
		}
	default:
		return 0, fmt.Errorf("LZMA2 control byte 0x%02x: %w", ctl, archive.ErrFormat)
	}
	h := c.hdr[len(c.hdr)-hl:]
	h[0] = ctl
	if _, err := io.ReadFull(c.br, h[1:]); err != nil {
		return 0, io.ErrUnexpectedEOF
	}
	switch {
	case ctl == 1 || ctl == 2:
		c.left = int(binary.BigEndian.Uint16(h[1:])) + 1
	case ctl >= 0x80:
		c.left = int(binary.BigEndian.Uint16(h[3:])) + 1
	}
	c.hdrN = hl
	return c.Read(p)
}
