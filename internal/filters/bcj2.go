package filters

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// BCJ2 decoder (7z method 0303011B).
//
// The encoder splits x86 code into four streams: the main stream holds every
// byte except the 32-bit operands of the CALL (E8), JMP (E9) and Jcc
// (0F 80..8F) instructions it chose to convert; those operands, made
// absolute, go big-endian to the call stream (E8) or the jump stream (E9 and
// Jcc). For every such opcode byte in the main stream a range-coded bit says
// whether its operand was moved out. The bit's probability is selected by
// the opcode: one for each possible preceding byte for E8, one for E9 and
// one for Jcc (2 + 256 models of 11 bits, adapted with shift 5, as in LZMA).

const (
	bcj2TopValue   = 1 << 24
	bcj2ModelBits  = 11
	bcj2ModelTotal = 1 << bcj2ModelBits
	bcj2MoveBits   = 5
	bcj2StreamBuf  = 16 << 10
)

// byteStream is a small buffered reader over one BCJ2 input stream.
type byteStream struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	err  error
	name string
}

func (s *byteStream) reset(r io.Reader, name string) {
	s.r, s.name = r, name
	s.pos, s.end, s.err = 0, 0, nil
	if s.buf == nil {
		s.buf = make([]byte, bcj2StreamBuf)
	}
}

// fill reads more input; it returns false at the end or on an error.
func (s *byteStream) fill() bool {
	if s.err != nil {
		return false
	}
	if s.pos == s.end {
		s.pos, s.end = 0, 0
	} else if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	for empty := 0; empty < 100; empty++ {
		n, err := s.r.Read(s.buf[s.end:])
		if n < 0 || n > len(s.buf)-s.end {
			n, err = 0, errors.New("invalid read count")
		}
		s.end += n
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.err = io.ErrNoProgress
	return false
}

// failure returns the error to report when the stream ended early.
func (s *byteStream) failure() error {
	if s.err == nil || s.err == io.EOF {
		return fmt.Errorf("bcj2: %w: %s stream truncated", archive.ErrFormat, s.name)
	}
	return fmt.Errorf("bcj2: %s stream: %w", s.name, s.err)
}

func (s *byteStream) readByte() (byte, error) {
	if s.pos == s.end && !s.fill() {
		return 0, s.failure()
	}
	b := s.buf[s.pos]
	s.pos++
	return b, nil
}

func (s *byteStream) readBE32() (uint32, error) {
	for s.end-s.pos < 4 {
		if !s.fill() {
			return 0, s.failure()
		}
	}
	v := binary.BigEndian.Uint32(s.buf[s.pos:])
	s.pos += 4
	return v, nil
}

// BCJ2Reader decodes a BCJ2 stream set. It reads each input through its own
// buffer, allocated once; Reset reuses them.
type BCJ2Reader struct {
	main, call, jump, rc byteStream

	outSize int64 // -1: until the main stream ends
	written int64 // bytes produced so far
	err     error

	started bool
	rng     uint32
	code    uint32
	probs   [2 + 256]uint16
	prev    byte // the byte before the next main byte

	pending  [4]byte // operand bytes not yet returned
	pendPos  int
	pendEnd  int
	needsBit bool // op was output and its bit is not decoded yet
	op       byte
}

// NewBCJ2Reader returns a reader of outSize bytes decoded from the four BCJ2
// streams (7z coder inputs 0..3: main, call, jump, range coder). outSize -1
// decodes until the main stream ends. Corrupt or truncated input gives
// errors wrapping archive.ErrFormat.
func NewBCJ2Reader(main, call, jump, rc io.Reader, outSize int64) (io.Reader, error) {
	if main == nil || call == nil || jump == nil || rc == nil {
		return nil, errors.New("bcj2: nil input stream")
	}
	if outSize < -1 {
		return nil, fmt.Errorf("bcj2: %w: negative size %d", archive.ErrFormat, outSize)
	}
	d := &BCJ2Reader{}
	d.Reset(main, call, jump, rc, outSize)
	return d, nil
}

// Reset prepares d to decode a new stream set, reusing its buffers.
func (d *BCJ2Reader) Reset(main, call, jump, rc io.Reader, outSize int64) {
	d.main.reset(main, "main")
	d.call.reset(call, "call")
	d.jump.reset(jump, "jump")
	d.rc.reset(rc, "range coder")
	d.outSize = outSize
	d.written = 0
	d.err = nil
	d.started = false
	d.prev = 0
	d.pendPos, d.pendEnd = 0, 0
	d.needsBit = false
	for i := range d.probs {
		d.probs[i] = bcj2ModelTotal / 2
	}
}

// start reads the five initial range coder bytes.
func (d *BCJ2Reader) start() error {
	d.started = true
	var code uint32
	for i := 0; i < 5; i++ {
		b, err := d.rc.readByte()
		if err != nil {
			return err
		}
		if i == 0 && b != 0 {
			return fmt.Errorf("bcj2: %w: bad range coder start", archive.ErrFormat)
		}
		code = code<<8 | uint32(b)
	}
	if code == 0xFFFFFFFF {
		return fmt.Errorf("bcj2: %w: bad range coder start", archive.ErrFormat)
	}
	d.code = code
	d.rng = 0xFFFFFFFF
	return nil
}

// decodeBit decodes the "operand was converted" bit for opcode b.
func (d *BCJ2Reader) decodeBit(b byte) (bool, error) {
	var prob *uint16
	switch {
	case b == 0xE8:
		prob = &d.probs[2+int(d.prev)]
	case b == 0xE9:
		prob = &d.probs[1]
	default:
		prob = &d.probs[0]
	}
	if d.rng < bcj2TopValue {
		c, err := d.rc.readByte()
		if err != nil {
			return false, err
		}
		d.rng <<= 8
		d.code = d.code<<8 | uint32(c)
	}
	p := uint32(*prob)
	bound := (d.rng >> bcj2ModelBits) * p
	if d.code < bound {
		d.rng = bound
		*prob = uint16(p + (bcj2ModelTotal-p)>>bcj2MoveBits)
		return false, nil
	}
	d.rng -= bound
	d.code -= bound
	*prob = uint16(p - p>>bcj2MoveBits)
	return true, nil
}

// Read implements io.Reader.
func (d *BCJ2Reader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !d.started {
		if err := d.start(); err != nil {
			d.err = err
			return 0, err
		}
	}
	n, err := d.decode(p)
	if err != nil {
		d.err = err
		if n > 0 {
			return n, nil
		}
	}
	return n, err
}

func (d *BCJ2Reader) remaining() int64 {
	if d.outSize < 0 {
		return 1 << 62
	}
	return d.outSize - d.written
}

func (d *BCJ2Reader) decode(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if d.pendPos < d.pendEnd {
			k := copy(p[n:], d.pending[d.pendPos:d.pendEnd])
			d.pendPos += k
			n += k
			continue
		}
		rem := d.remaining()
		if rem <= 0 {
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		if d.needsBit {
			d.needsBit = false
			b := d.op
			jump, err := d.decodeBit(b)
			if err != nil {
				return n, err
			}
			if !jump {
				d.prev = b
				continue
			}
			src := &d.jump
			if b == 0xE8 {
				src = &d.call
			}
			v, err := src.readBE32()
			if err != nil {
				return n, err
			}
			v -= uint32(d.written) + 4
			binary.LittleEndian.PutUint32(d.pending[:], v)
			d.prev = byte(v >> 24)
			k := int64(4)
			if rem < k {
				k = rem
			}
			d.pendPos, d.pendEnd = 0, int(k)
			d.written += k
			continue
		}
		// Copy plain main-stream bytes up to the next opcode.
		if d.main.pos == d.main.end && !d.main.fill() {
			if d.outSize < 0 && (d.main.err == io.EOF) {
				d.outSize = d.written
				continue
			}
			return n, d.main.failure()
		}
		src := d.main.buf[d.main.pos:d.main.end]
		dst := p[n:]
		if int64(len(dst)) > rem {
			dst = dst[:rem]
		}
		if len(src) > len(dst) {
			src = src[:len(dst)]
		}
		prev := d.prev
		i := 0
		for ; i < len(src); i++ {
			// Opcodes whose operand the encoder may have moved out:
			// E8 CALL, E9 JMP, 0F 80..8F Jcc.
			b := src[i]
			if b&0xFE == 0xE8 || prev == 0x0F && b&0xF0 == 0x80 {
				break
			}
			prev = b
		}
		if i < len(src) {
			d.needsBit = true
			d.op = src[i]
			i++
		}
		copy(dst, src[:i])
		d.prev = prev
		d.main.pos += i
		n += i
		d.written += int64(i)
	}
	return n, nil
}
