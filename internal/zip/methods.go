package zip

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/deflate64"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/ppmd"
	"github.com/garc-dev/garc/internal/xz"
	"github.com/klauspost/compress/zstd"
)

// Compression methods (APPNOTE 4.4.5).
const (
	methodStore     = 0
	methodShrink    = 1
	methodReduce1   = 2
	methodReduce4   = 5
	methodImplode   = 6
	methodDeflate   = 8
	methodDeflate64 = 9
	methodBZip2     = 12
	methodLZMA      = 14
	methodZstd      = 93
	methodXZ        = 95
	methodPPMd      = 98
)

// methodName returns the display name of a compression method.
func methodName(m uint16) string {
	switch m {
	case methodStore:
		return "Store"
	case methodShrink:
		return "Shrink"
	case methodImplode:
		return "Implode"
	case methodDeflate:
		return "Deflate"
	case methodDeflate64:
		return "Deflate64"
	case methodBZip2:
		return "BZip2"
	case methodLZMA:
		return "LZMA"
	case methodZstd:
		return "ZSTD"
	case methodXZ:
		return "XZ"
	case methodPPMd:
		return "PPMd"
	case 7:
		return "Tokenize"
	case 10:
		return "PKImploding"
	case 16:
		return "IBM-CMPSC"
	case 18:
		return "IBM-TERSE"
	case 19:
		return "IBM-LZ77"
	case 96:
		return "JPEG"
	case 97:
		return "WavPack"
	}
	if m >= methodReduce1 && m <= methodReduce4 {
		return fmt.Sprintf("Reduce:%d", m-1)
	}
	return fmt.Sprintf("%d", m)
}

// methodString is the Method of an entry, as 7-Zip shows it: the
// encryption first, then the compression method.
func methodString(f *file) string {
	s := methodName(f.realMethod)
	// Flag bits 1 and 2 give the Deflate level, or LZMA's end marker, as
	// 7-Zip shows them.
	if level := (f.flags >> 1) & 3; level != 0 {
		switch f.realMethod {
		case methodDeflate:
			s += ":" + [...]string{"Normal", "Maximum", "Fast", "Fastest"}[level]
			level = 0
		case methodLZMA:
			if level&1 != 0 {
				s += ":eos"
			}
			level &^= 1
		}
		if level != 0 {
			s += fmt.Sprintf(":v%d", level)
		}
	}
	switch {
	case f.aes.present && f.method == methodAES:
		s = fmt.Sprintf("AES-%d %s", 64*(int(f.aes.strength)+1), s)
	case f.flags&flagStrong != 0:
		s = "Strong " + s
	case f.flags&flagEncrypted != 0:
		s = "ZipCrypto " + s
	}
	return s
}

// decoders holds one reusable decoder per method, for the entries of one
// Extract run (entries are decoded one after the other).
type decoders struct {
	flate *deflate64.Decompressor
	bz    *bzip2.Reader
	lz    *lzma.Reader
	zs    *zstd.Decoder
	xz    *xz.Reader
	ppmd  *ppmd.Reader8
	br    *bufio.Reader
}

func (d *decoders) close() {
	if d.zs != nil {
		d.zs.Close()
	}
	*d = decoders{}
}

// keepOnly drops the decoders with archive-sized memory (LZMA, XZ,
// Zstandard, PPMd) that method m does not use, so that one Extract holds at
// most one such window at a time, whatever mix of methods the archive
// has.
func (d *decoders) keepOnly(m uint16) {
	if m != methodLZMA {
		d.lz = nil
	}
	if m != methodXZ {
		d.xz = nil
	}
	if m != methodPPMd {
		d.ppmd = nil
	}
	if m != methodZstd && d.zs != nil {
		d.zs.Close()
		d.zs = nil
	}
}

// buffered returns r behind the shared read-ahead buffer.
func (d *decoders) buffered(r io.Reader) *bufio.Reader {
	if d.br == nil {
		d.br = bufio.NewReaderSize(r, 64<<10)
	} else {
		d.br.Reset(r)
	}
	return d.br
}

// newDecoder returns a reader over the decompressed data of f, reading
// the compressed (decrypted) stream src.
func (rd *Reader) newDecoder(f *file, src io.Reader, packed int64) (io.Reader, error) {
	d := &rd.dec
	d.keepOnly(f.realMethod)
	switch m := f.realMethod; {
	case m == methodStore:
		return src, nil
	case m == methodDeflate || m == methodDeflate64:
		// internal/deflate64 in plain mode is also our Deflate decoder:
		// faster than compress/flate and klauspost's flate here (see
		// BenchmarkExtractDeflate), and it allocates nothing per entry.
		// It reads ahead, which is harmless on a bounded stream.
		if d.flate == nil {
			d.flate = deflate64.New(src, m == methodDeflate64)
		} else {
			d.flate.ResetMode(src, m == methodDeflate64)
		}
		return d.flate, nil
	case m == methodBZip2:
		if d.bz == nil {
			d.bz = bzip2.NewReader(src)
		} else if err := d.bz.Reset(src); err != nil {
			return nil, err
		}
		return d.bz, nil
	case m == methodLZMA:
		return rd.newLZMA(f, src, packed)
	case m == methodZstd:
		limit := uint64(rd.opts.Limit())
		if d.zs == nil {
			z, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(min(limit, zstd.MaxWindowSize)))
			if err != nil {
				return nil, fmt.Errorf("zstd: %v: %w", err, archive.ErrFormat)
			}
			d.zs = z
		} else if err := d.zs.Reset(src); err != nil {
			return nil, fmt.Errorf("zstd: %v: %w", err, archive.ErrFormat)
		}
		return &zstdReader{dec: d.zs, limit: int64(limit)}, nil
	case m == methodXZ:
		// internal/xz buffers its input itself.
		if d.xz == nil {
			d.xz = xz.NewReader(src, rd.opts.Limit())
		} else {
			d.xz.Reset(src, rd.opts.Limit())
		}
		return d.xz, nil
	case m == methodShrink:
		return newShrinkReader(d.buffered(src)), nil
	case m >= methodReduce1 && m <= methodReduce4:
		return newReduceReader(d.buffered(src), int(m-1), f.usize), nil
	case m == methodImplode:
		return newImplodeReader(d.buffered(src), f.flags, f.usize), nil
	case m == methodPPMd:
		if d.ppmd == nil {
			d.ppmd = &ppmd.Reader8{}
		}
		if err := d.ppmd.Reset(d.buffered(src), f.usize, rd.opts.Limit()); err != nil {
			return nil, err
		}
		return d.ppmd, nil
	default:
		return nil, &archive.UnsupportedError{What: "ZIP method " + methodName(m)}
	}
}

// newLZMA reads ZIP's LZMA header (APPNOTE 5.8.8: major and minor version
// of the LZMA SDK, the properties size (5) and the 5 property bytes) and
// starts the decoder. packed is the length of the header and stream.
// Flag bit 1 says the stream ends with an end marker;
// otherwise it stops at the declared size.
func (rd *Reader) newLZMA(f *file, src io.Reader, packed int64) (io.Reader, error) {
	if packed < 9+5 {
		// The header, then at least the range coder's 5 initial bytes.
		return nil, fmt.Errorf("LZMA stream of %d bytes: %w", packed, archive.ErrFormat)
	}
	var hdr [9]byte
	if _, err := io.ReadFull(src, hdr[:4]); err != nil {
		return nil, fmt.Errorf("LZMA header: %w", archive.ErrFormat)
	}
	if n := int(hdr[2]) | int(hdr[3])<<8; n != 5 {
		return nil, fmt.Errorf("LZMA properties of %d bytes: %w", n, archive.ErrFormat)
	}
	if _, err := io.ReadFull(src, hdr[4:]); err != nil {
		return nil, fmt.Errorf("LZMA header: %w", archive.ErrFormat)
	}
	size := f.usize
	if f.flags&flagLZMAEOS != 0 {
		size = -1
	}
	src = rd.dec.buffered(src)
	if rd.dec.lz == nil {
		z, err := lzma.NewReader(src, hdr[4:], size, rd.opts.Limit())
		if err != nil {
			return nil, err
		}
		rd.dec.lz = z
		return z, nil
	}
	if err := rd.dec.lz.Reset(src, hdr[4:], size); err != nil {
		return nil, err
	}
	return rd.dec.lz, nil
}

// zstdReader reports a frame window above the limit as a LimitError and
// other decoding failures as ErrFormat.
type zstdReader struct {
	dec   *zstd.Decoder
	limit int64
}

func (z *zstdReader) Read(p []byte) (int, error) {
	n, err := z.dec.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded):
		err = &archive.LimitError{What: "Zstandard window size", Need: z.limit + 1, Limit: z.limit}
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("zstd: truncated: %w", archive.ErrFormat)
	default:
		err = fmt.Errorf("zstd: %v: %w", err, archive.ErrFormat)
	}
	return n, err
}
