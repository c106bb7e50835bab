package sevenzip

import (
	"bufio"
	"errors"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/deflate64"
	"github.com/klauspost/compress/zstd"
)

// addStdMethods adds the file's methods to the registry (see methods).
func addStdMethods(register func(uint64, *method)) {
	register(methodBZip2, &method{name: "BZip2", numIn: 1, newDecoder: newBZip2Decoder})
	register(methodDeflate, &method{name: "Deflate", numIn: 1, newDecoder: newDeflateDecoder})
	register(methodZstd, &method{name: "ZSTD", numIn: 1, newDecoder: newZstdDecoder, memory: zstdMemory})
}

// newBZip2Decoder uses internal/bzip2, which also reads the concatenated
// streams 7-Zip may write with multithreaded BZip2 compression, and
// verifies block and stream CRCs.
func newBZip2Decoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	return bzip2.NewReader(in[0]), nil
}

// newDeflateDecoder uses internal/deflate64 in plain Deflate mode: the
// same inflater as Deflate64, faster than compress/flate and without
// allocations per stream. Its read-ahead stays inside the packed stream,
// which the folder reader bounds.
func newDeflateDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	rc := deflate64.New(in[0], false)
	d.onClose(rc)
	return rc, nil
}

// zstdMemory estimates a Zstandard decoder's window: the frame header
// that sets it is only read while decoding, so the charge is the window of
// the 7-Zip-zstd levels up to 19 (8 MiB), or the output when smaller; the
// decoder itself refuses windows above the limit.
func zstdMemory(props []byte, size int64) memoryNeed {
	return memoryNeed{n: min(max(size, 0), 8<<20)}
}

// newZstdDecoder decodes the 7-Zip-zstd fork's Zstandard method (raw
// zstd frames; the properties only record the encoder version and level).
func newZstdDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	limit := uint64(d.opts.Limit())
	dec, err := zstd.NewReader(in[0], zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(min(limit, zstd.MaxWindowSize)))
	if err != nil {
		return nil, wrapDecodeError(err)
	}
	d.onClose(closerFunc(func() error { dec.Close(); return nil }))
	return &zstdReader{dec: dec, limit: int64(limit)}, nil
}

// zstdReader reports a frame window above the limit as a LimitError.
type zstdReader struct {
	dec   *zstd.Decoder
	limit int64
}

func (z *zstdReader) Read(p []byte) (int, error) {
	n, err := z.dec.Read(p)
	if err != nil && errors.Is(err, zstd.ErrWindowSizeExceeded) {
		err = &archive.LimitError{What: "Zstandard window size", Need: z.limit + 1, Limit: z.limit}
	}
	return n, err
}

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// asByteReader returns r if it is an io.ByteReader, else a buffered reader.
func asByteReader(r io.Reader) io.Reader {
	if _, ok := r.(io.ByteReader); ok {
		return r
	}
	return bufio.NewReaderSize(r, 32<<10)
}
