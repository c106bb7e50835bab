package filters

import (
	"errors"
	"io"
)

// bufferSize is the working buffer of Reader and Writer.
const bufferSize = 64 << 10

// Reader decodes (or encodes) the bytes of an underlying reader with a
// Converter. It owns one buffer, allocated once.
type Reader struct {
	r    io.Reader
	c    Converter
	buf  []byte
	pos  int // buf[pos:conv] is converted and not yet returned
	conv int // buf[conv:end] is read but not converted
	end  int
	err  error // sticky error of r (io.EOF at the end)
}

// NewReader returns a reader that passes the bytes of r through c. The
// converter should be fresh or Reset. At the end of r the tail that c did
// not convert is passed through unchanged, as 7-Zip does.
func NewReader(r io.Reader, c Converter) io.Reader {
	return &Reader{r: r, c: c, buf: make([]byte, bufferSize)}
}

// Reset makes the reader read from r with the converter reset.
func (f *Reader) Reset(r io.Reader) {
	f.r = r
	f.c.Reset()
	f.pos, f.conv, f.end = 0, 0, 0
	f.err = nil
}

// Read implements io.Reader.
func (f *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for f.pos == f.conv {
		if f.err != nil {
			if f.err == io.EOF && f.conv < f.end {
				// End of input: convert what the converter still
				// accepts, then pass the rest through.
				n := f.c.Convert(f.buf[f.conv:f.end])
				if n <= 0 {
					n = f.end - f.conv
				}
				f.conv += n
				continue
			}
			return 0, f.err
		}
		f.fill()
	}
	n := copy(p, f.buf[f.pos:f.conv])
	f.pos += n
	return n, nil
}

// fill moves the unconverted tail to the front, reads more and converts.
func (f *Reader) fill() {
	if f.conv > 0 {
		f.end = copy(f.buf, f.buf[f.conv:f.end])
		f.pos, f.conv = 0, 0
	}
	empty := 0
	for f.err == nil && f.conv == 0 {
		if f.end == len(f.buf) {
			// Cannot happen with this package's converters, which
			// leave less than 16 bytes; never stall on a full buffer.
			f.conv = f.end
			break
		}
		n, err := f.r.Read(f.buf[f.end:])
		if n < 0 || n > len(f.buf)-f.end {
			err = errors.New("filters: invalid read count")
			n = 0
		}
		f.end += n
		if err != nil {
			f.err = err
			break
		}
		if n == 0 {
			if empty++; empty >= 100 {
				f.err = io.ErrNoProgress
			}
			continue
		}
		f.conv = f.c.Convert(f.buf[:f.end])
		if f.conv < 0 || f.conv > f.end {
			f.conv = 0
		}
	}
}

// Writer passes the bytes written to it through a Converter to an
// underlying writer.
type Writer struct {
	w   io.Writer
	c   Converter
	buf []byte
	end int
	err error
}

// NewWriter returns a writer that converts with c and writes to w. Close
// converts and writes the tail; it does not close w.
func NewWriter(w io.Writer, c Converter) io.WriteCloser {
	return &Writer{w: w, c: c, buf: make([]byte, bufferSize)}
}

// Reset makes the writer write to w with the converter reset.
func (f *Writer) Reset(w io.Writer) {
	f.w = w
	f.c.Reset()
	f.end = 0
	f.err = nil
}

// Write implements io.Writer.
func (f *Writer) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	written := 0
	for len(p) > 0 {
		n := copy(f.buf[f.end:], p)
		f.end += n
		p = p[n:]
		written += n
		if f.end == len(f.buf) {
			conv := f.c.Convert(f.buf)
			if conv <= 0 || conv > f.end {
				conv = f.end
			}
			if err := f.flush(conv); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// flush writes buf[:n] and moves the rest to the front.
func (f *Writer) flush(n int) error {
	if _, err := f.w.Write(f.buf[:n]); err != nil {
		f.err = err
		return err
	}
	f.end = copy(f.buf, f.buf[n:f.end])
	return nil
}

// Close converts and writes the buffered tail. It does not close the
// underlying writer.
func (f *Writer) Close() error {
	if f.err != nil {
		return f.err
	}
	for f.end > 0 {
		n := f.c.Convert(f.buf[:f.end])
		if n <= 0 || n > f.end {
			n = f.end
		}
		if err := f.flush(n); err != nil {
			return err
		}
	}
	f.err = errors.New("filters: write after Close")
	return nil
}
