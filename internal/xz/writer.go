package xz

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/lzma"
)

// Writer compresses into one .xz stream of one block: the LZMA2 filter
// alone and a CRC-64 check, as `xz` and 7-Zip write it. The block header
// records no sizes (the data is streamed); the index gives them. The
// LZMA2 encoder compresses its blocks on opts.Threads goroutines and its
// output, so the file, does not depend on their number.
type Writer struct {
	w      io.Writer
	enc    *lzma.Writer2
	cw     countWriter
	crc    uint64
	usize  int64
	closed bool
	err    error
}

// countWriter counts the bytes the encoder writes.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter writes the stream header and block header to w and returns a
// Writer whose LZMA2 encoder has the options opts (zero fields from
// opts.Level's preset, see lzma.LevelOptions).
func NewWriter(w io.Writer, opts lzma.WriterOptions) (*Writer, error) {
	x := &Writer{w: w}
	x.cw.w = w
	enc, err := lzma.NewWriter2(&x.cw, opts)
	if err != nil {
		return nil, err
	}
	x.enc = enc
	flags := []byte{0, checkCRC64}
	hdr := append([]byte{0xFD, '7', 'z', 'X', 'Z', 0}, flags...)
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.ChecksumIEEE(flags))
	// Block header: size byte, flags (one filter, no sizes), the LZMA2
	// filter (ID 0x21, one property byte), padding to a multiple of
	// four, CRC-32.
	bh := []byte{0, 0x00, 0x21, 0x01, enc.Props(), 0, 0, 0}
	bh[0] = byte((len(bh)+4)/4 - 1)
	bh = binary.LittleEndian.AppendUint32(bh, crc32.ChecksumIEEE(bh))
	if _, err := w.Write(append(hdr, bh...)); err != nil {
		return nil, err
	}
	x.cw.n = int64(len(bh)) // the unpadded size counts the block header
	return x, nil
}

// errClosed is returned by Write after Close.
var errClosed = errors.New("xz: write to a closed Writer")

// Write compresses p.
func (x *Writer) Write(p []byte) (int, error) {
	if x.closed {
		return 0, errClosed
	}
	if x.err != nil {
		return 0, x.err
	}
	n, err := x.enc.Write(p)
	x.crc = crc64Update(x.crc, p[:n])
	x.usize += int64(n)
	if err != nil {
		x.err = err
	}
	return n, err
}

// Close ends the block and writes the index and the stream footer. It
// does not close the underlying writer.
func (x *Writer) Close() error {
	if x.closed {
		return x.err
	}
	x.closed = true
	if x.err != nil {
		x.enc.Close()
		return x.err
	}
	if err := x.enc.Close(); err != nil {
		x.err = err
		return err
	}
	unpadded := x.cw.n + 8
	var tail []byte
	tail = append(tail, make([]byte, (4-x.cw.n%4)%4)...)
	tail = binary.LittleEndian.AppendUint64(tail, x.crc)
	idx := []byte{0, 1}
	idx = binary.AppendUvarint(idx, uint64(unpadded))
	idx = binary.AppendUvarint(idx, uint64(x.usize))
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	tail = append(tail, idx...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	foot = append(foot, 0, checkCRC64)
	tail = binary.LittleEndian.AppendUint32(tail, crc32.ChecksumIEEE(foot))
	tail = append(tail, foot...)
	tail = append(tail, 'Y', 'Z')
	if _, err := x.w.Write(tail); err != nil {
		x.err = err
	}
	return x.err
}
