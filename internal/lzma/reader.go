package lzma

import (
	"encoding/binary"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// windowSize returns the window (less windowSlack) that a dictionary of
// dictSize bytes and an unpacked size (or -1) need, the length to which
// the window grows: the smaller of the two, at least
// minDictSize for streams of unknown size, rounded up to a multiple of 16
// so that buffer positions agree with stream positions modulo 2^pb and 2^lp.
func windowSize(dictSize uint32, size int64) int64 {
	w := int64(dictSize)
	if w < minDictSize {
		w = minDictSize
	}
	if size >= 0 && size < w {
		w = size
	}
	w = (w + 15) &^ 15
	if w == 0 {
		w = 16
	}
	return w
}

// windowSlack is the number of bytes the window holds beyond the
// dictionary: run copies a short match as 16 bytes whatever its length,
// and the bytes it overwrites past the match are then either not yet
// decoded or older than any distance a valid stream can reach.
const windowSlack = 16

// The window grows with the output: a stream of a few bytes that declares
// a dictionary of 64 MiB (and no size) must not cost 64 MiB. Its lengths
// are d.window (the window's full length, windowSlack included) divided by
// a power of windowGrowth, starting at the first that is at least
// firstWindow; it grows when the output reaches its end, before it would
// wrap for the first time, so only bytes of the current stream are
// copied. A factor of 8 keeps the copying below 1/7 of the output and the
// memory held while the last step copies (the old window and the new) to
// 9/8 of the full window. A stream of known size fills its window (the
// smaller of its dictionary and its size) unless it is damaged: its first
// window grows to the full one at once, which spares the copies and the
// page faults of the steps between (a 100 MiB run of zeros at -mx9 had
// 14 MiB of them) and holds no old window beside it.
const (
	windowGrowth = 8
	firstWindow  = 16 << 10
)

// allocWindow prepares d's window for a dictionary of n bytes plus
// windowSlack, reusing its storage when possible: all of it when it holds
// the full window, else a first window that decode grows. The limit
// applies to n. sized says the stream's size is known (see windowGrowth).
func (d *decoder) allocWindow(n int64, maxDict int64, sized bool) error {
	if maxDict <= 0 {
		maxDict = archive.DefaultMaxDict
	}
	if n > maxDict {
		return &archive.LimitError{What: "LZMA dictionary size", Need: n, Limit: maxDict}
	}
	n += windowSlack
	d.window = int(n)
	d.sized = sized
	first := d.nextWindow(firstWindow - 1)
	switch {
	case cap(d.dict) >= d.window:
		d.dict = d.dict[:d.window]
	case cap(d.dict) >= first:
		d.dict = d.dict[:d.nextWindow(cap(d.dict))/windowGrowth]
	default:
		d.dict = make([]byte, first)
	}
	d.resetDict()
	return nil
}

// nextWindow returns the smallest window length above n: d.window divided
// by a power of windowGrowth (d.window itself when n is above its first
// fraction).
func (d *decoder) nextWindow(n int) int {
	w := d.window
	for w/windowGrowth > n {
		w /= windowGrowth
	}
	return w
}

// hugeWindowMin is the smallest full window backed by huge pages:
// hugeBytes allocates up to two huge pages (4 MiB) more than asked for
// alignment, which a small window (a 7z header's) would pay for with
// little TLB gain: with it, the heap an open 7z archive of 101,000
// entries holds grew by 27 bytes an entry (internal/cli TestEntryMemory).
const hugeWindowMin = 8 << 20

// wrap is called when the window has been filled to its end and all of
// it returned. A window shorter than d.window grows, keeping what it
// holds; a full one starts again at 0, all of it now history.
func (d *decoder) wrap() {
	if len(d.dict) < d.window {
		n := d.window
		if !d.sized {
			n = d.nextWindow(len(d.dict))
		}
		if cap(d.dict) >= n {
			d.dict = d.dict[:n]
			return
		}
		var dict []byte
		if n == d.window && n >= hugeWindowMin {
			// The full window is read at random by the matches:
			// huge pages spare most TLB misses and page faults.
			dict = hugeBytes(n)
		} else {
			dict = make([]byte, n)
		}
		copy(dict, d.dict[:d.pos])
		d.dict = dict
		return
	}
	d.pos = 0
	d.full = true
}

// Reader decompresses a raw LZMA stream as 7z stores it (method 030101):
// no header, the properties given separately.
type Reader struct {
	d         decoder
	in        inBuffer
	size      int64 // declared unpacked size, -1 when unknown
	remaining int64 // bytes still to produce when size is known
	flushed   int   // d.dict[flushed:d.pos] is decoded but not yet returned
	maxDict   int64
	started   bool
	err       error // sticky; io.EOF at the end of the stream
}

// NewReader returns a Reader decoding the LZMA stream r. props is the
// 5-byte 7z coder property (lc/lp/pb byte, dictionary size uint32 LE).
// size is the exact unpacked size or -1 when unknown, in which case the
// stream must end with an end marker. maxDict bounds the window allocated
// (min(dictionary size, size)); above it an error wrapping archive.ErrLimit
// is returned. maxDict <= 0 means archive.DefaultMaxDict.
func NewReader(r io.Reader, props []byte, size int64, maxDict int64) (*Reader, error) {
	z := &Reader{maxDict: maxDict}
	if err := z.Reset(r, props, size); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset prepares z to decode a new stream, reusing its buffers. The
// dictionary limit given to NewReader still applies.
func (z *Reader) Reset(r io.Reader, props []byte, size int64) error {
	z.err = nil
	if len(props) != 5 {
		return errProps
	}
	lc, lp, pb, ok := decodeProps(props[0])
	if !ok {
		return errProps
	}
	dictSize := binary.LittleEndian.Uint32(props[1:])
	if err := z.d.allocWindow(windowSize(dictSize, size), z.maxDict, size >= 0); err != nil {
		return err
	}
	z.d.setProps(lc, lp, pb)
	z.d.resetState()
	z.in.reset(r)
	z.size = size
	z.remaining = size
	z.flushed = 0
	z.started = false
	return nil
}

// fill decodes more output into the window. It is called only when all
// decoded bytes have been returned (flushed == pos). Damage is reported
// with its input offset.
func (z *Reader) fill() error {
	err := z.decode()
	if err != nil {
		at := z.in.rp
		if z.started {
			at = max(at, z.d.ip)
		}
		if err == errTruncated {
			at = z.in.wp
		}
		err = locate(err, z.in.offset(at))
	}
	return err
}

func (z *Reader) decode() error {
	d := &z.d
	if d.pos == len(d.dict) {
		d.wrap()
		z.flushed = d.pos
	}
	if z.started && z.size >= 0 && z.remaining == 0 {
		return io.EOF
	}
	if d.eos {
		return io.EOF
	}
	if !z.started {
		if z.in.ensure(5) < 5 {
			return z.in.failure(errTruncated)
		}
		d.in = z.in.buf
		d.ip = z.in.rp
		if err := d.initRange(); err != nil {
			return err
		}
		z.started = true
		if z.size == 0 {
			return z.finishKnownSize()
		}
	}
	limit := len(d.dict)
	if z.size >= 0 && z.remaining < int64(limit-d.pos) {
		limit = d.pos + int(z.remaining)
	}
	for d.pos < limit {
		if z.in.wp-d.ip <= maxSymbolInput && !z.in.eof && z.in.err == nil {
			z.in.rp = d.ip
			z.in.fillMore()
			d.in = z.in.buf
			d.ip = z.in.rp
		}
		inLimit := z.in.wp - maxSymbolInput
		if z.in.eof || z.in.err != nil {
			inLimit = z.in.wp + 1
		}
		start, ipStart := d.pos, d.ip
		err := d.run(limit, inLimit)
		if err == nil && d.pos == start && d.ip == ipStart && !d.eos && d.pendLen == 0 {
			// No progress is only possible when input is missing.
			return z.in.failure(errTruncated)
		}
		if d.ip > z.in.wp {
			return z.in.failure(errTruncated)
		}
		if z.size >= 0 {
			z.remaining -= int64(d.pos - start)
		}
		if err != nil {
			return err
		}
		if d.eos {
			if z.size >= 0 && z.remaining > 0 {
				return errEarlyEnd
			}
			if !d.finishRange() || d.ip > z.in.wp {
				return errTrailing
			}
			break
		}
		if z.size >= 0 && z.remaining == 0 {
			return z.finishKnownSize()
		}
		if (z.in.eof || z.in.err != nil) && d.pos < limit && d.ip >= inLimit {
			return z.in.failure(errTruncated)
		}
	}
	return nil
}

// finishKnownSize checks the end of a stream whose declared size has been
// decoded, as 7-Zip and XZ Utils do: the range decoder must be finished
// (code == 0 after the final normalisation) or an end marker must follow.
// Anything else means the data goes on past the declared size.
func (z *Reader) finishKnownSize() error {
	d := &z.d
	if d.pendLen > 0 {
		return errPastSize
	}
	if z.in.wp-d.ip <= maxSymbolInput && !z.in.eof && z.in.err == nil {
		z.in.rp = d.ip
		z.in.fillMore()
		d.in = z.in.buf
		d.ip = z.in.rp
	}
	finished := d.finishRange()
	if d.ip > z.in.wp {
		return z.in.failure(errTruncated)
	}
	if finished {
		return nil
	}
	if !d.endMarkerNext() {
		return errPastSize
	}
	if d.ip > z.in.wp {
		return z.in.failure(errTruncated)
	}
	if !d.finishRange() || d.ip > z.in.wp {
		return errTrailing
	}
	d.eos = true
	return nil
}

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) { return readWindow(&z.d, &z.flushed, &z.err, z.fill, p) }

// WriteTo implements io.WriterTo, writing straight from the window.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	return writeWindow(&z.d, &z.flushed, &z.err, z.fill, w)
}

// readWindow serves Read for Reader and Reader2: the bytes decoded into
// d's window and not yet returned (d.dict[*flushed:d.pos]) first, then
// fill for more, until the sticky error *errp (io.EOF at the end).
func readWindow(d *decoder, flushed *int, errp *error, fill func() error, p []byte) (int, error) {
	for {
		if *flushed < d.pos {
			n := copy(p, d.dict[*flushed:d.pos])
			*flushed += n
			return n, nil
		}
		if *errp != nil {
			return 0, *errp
		}
		if len(p) == 0 {
			return 0, nil
		}
		*errp = fill()
	}
}

// writeWindow serves WriteTo for Reader and Reader2 as readWindow serves
// Read, writing straight from the window.
func writeWindow(d *decoder, flushed *int, errp *error, fill func() error, w io.Writer) (int64, error) {
	var total int64
	for {
		if *flushed < d.pos {
			n, err := w.Write(d.dict[*flushed:d.pos])
			*flushed += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if *errp != nil {
			if *errp == io.EOF {
				return total, nil
			}
			return total, *errp
		}
		*errp = fill()
	}
}

// Reader2 decompresses an LZMA2 stream (7z method 21).
type Reader2 struct {
	d         decoder
	in        inBuffer
	size      int64
	remaining int64
	flushed   int
	maxDict   int64
	err       error

	// Current chunk: kind is 0 between chunks, 1 inside an uncompressed
	// chunk, 2 inside an LZMA chunk whose packed bytes end at in.buf[chunkEnd].
	kind      int
	chunkLeft int
	chunkEnd  int
	needDict  bool  // the next chunk must reset the dictionary
	needProps bool  // the next LZMA chunk must set properties
	chunkOff  int64 // input offset of the current chunk's header

	props byte       // the dictionary-size property given to Reset
	par   *parallel2 // segment-parallel decoding, nil without SetThreads
}

// NewReader2 returns a Reader2 decoding the LZMA2 stream r. props is the
// 7z coder property byte (dictionary size code), size the unpacked size or
// -1, and maxDict bounds the window allocation as for NewReader.
func NewReader2(r io.Reader, props byte, size int64, maxDict int64) (*Reader2, error) {
	z := &Reader2{maxDict: maxDict}
	if err := z.Reset(r, props, size); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset prepares z to decode a new stream, reusing its buffers.
func (z *Reader2) Reset(r io.Reader, props byte, size int64) error {
	z.err = nil
	dictSize, ok := lzma2DictSize(props)
	if !ok {
		return errProps
	}
	if err := z.d.allocWindow(windowSize(dictSize, size), z.maxDict, size >= 0); err != nil {
		return err
	}
	z.in.reset(r)
	z.size = size
	z.remaining = size
	z.flushed = 0
	z.kind = 0
	z.chunkLeft = 0
	z.needDict = true
	z.needProps = true
	z.d.eos = false
	z.d.pendLen = 0
	z.props = props
	if z.par != nil {
		z.par.restart(size)
	}
	return nil
}

// startChunk parses the next chunk header. It returns io.EOF at the end
// byte.
func (z *Reader2) startChunk() error {
	d := &z.d
	z.chunkOff = z.in.offset(z.in.rp)
	if z.in.ensure(1) < 1 {
		return z.in.failure(errTruncated)
	}
	c := z.in.buf[z.in.rp]
	z.in.rp++
	switch {
	case c == 0:
		if z.size >= 0 && z.remaining > 0 {
			return errEarlyEnd
		}
		return io.EOF
	case c == 1 || c == 2:
		if z.in.ensure(2) < 2 {
			return z.in.failure(errTruncated)
		}
		n := int(binary.BigEndian.Uint16(z.in.buf[z.in.rp:])) + 1
		z.in.rp += 2
		if c == 1 {
			d.resetDict()
			z.flushed = 0
			z.needDict = false
			z.needProps = true
		} else if z.needDict {
			return errCorrupt
		}
		z.kind = 1
		z.chunkLeft = n
		return nil
	case c < 0x80:
		return errCorrupt
	}
	reset := (c >> 5) & 3
	hdr := 4
	if reset >= 2 {
		hdr = 5
	}
	if z.in.ensure(hdr) < hdr {
		return z.in.failure(errTruncated)
	}
	h := z.in.buf[z.in.rp : z.in.rp+hdr]
	unpacked := int(c&0x1F)<<16 + int(binary.BigEndian.Uint16(h)) + 1
	packed := int(binary.BigEndian.Uint16(h[2:])) + 1
	if reset == 3 {
		d.resetDict()
		z.flushed = 0
		z.needDict = false
	} else if z.needDict {
		return errCorrupt
	}
	if reset >= 2 {
		lc, lp, pb, ok := decodeProps(h[4])
		if !ok || lc+lp > 4 {
			return errProps
		}
		d.setProps(lc, lp, pb)
		z.needProps = false
	} else if z.needProps {
		return errCorrupt
	}
	if reset >= 1 {
		d.resetState()
	}
	z.in.rp += hdr
	if packed < 5 {
		return errCorrupt
	}
	if z.in.ensure(packed) < packed {
		return z.in.failure(errTruncated)
	}
	d.in = z.in.buf
	d.ip = z.in.rp
	z.chunkEnd = z.in.rp + packed
	if err := d.initRange(); err != nil {
		return err
	}
	z.kind = 2
	z.chunkLeft = unpacked
	return nil
}

// fill decodes more output into the window; called when flushed == pos.
// Damage is reported with its input offset.
func (z *Reader2) fill() error {
	err := z.decode()
	if err != nil {
		// Damage in a chunk header is reported at the header, damage
		// inside LZMA data where the decoder stopped, a truncation at
		// the end of the input.
		off := z.chunkOff
		switch {
		case err == errTruncated:
			off = z.in.offset(z.in.wp)
		case z.kind == 1:
			off = z.in.offset(z.in.rp)
		case z.kind == 2:
			off = z.in.offset(max(z.in.rp, z.d.ip))
		}
		err = locate(err, off)
	}
	return err
}

func (z *Reader2) decode() error {
	d := &z.d
	if d.pos == len(d.dict) {
		d.wrap()
		z.flushed = d.pos
	}
	for {
		if z.size >= 0 && z.remaining == 0 {
			return io.EOF
		}
		if z.kind == 0 {
			if z.par != nil && z.par.resume && !z.needDict && z.in.ensure(1) >= 1 {
				if c := z.in.buf[z.in.rp]; c == 1 || c >= 0xE0 {
					return errResume
				}
			}
			if err := z.startChunk(); err != nil {
				return err
			}
		}
		limit := len(d.dict)
		if limit-d.pos > z.chunkLeft {
			limit = d.pos + z.chunkLeft
		}
		if z.size >= 0 && z.remaining < int64(limit-d.pos) {
			limit = d.pos + int(z.remaining)
		}
		start := d.pos
		if z.kind == 1 {
			if !z.in.readFull(d.dict[d.pos:limit]) {
				return z.in.failure(errTruncated)
			}
			d.pos = limit
		} else {
			err := d.run(limit, z.chunkEnd+1)
			if err != nil {
				return err
			}
			if d.ip > z.chunkEnd || d.eos {
				return errCorrupt
			}
		}
		n := d.pos - start
		z.chunkLeft -= n
		if z.size >= 0 {
			z.remaining -= int64(n)
		}
		if z.kind == 2 && z.chunkLeft == 0 {
			if d.pendLen > 0 || !d.finishRange() || d.ip != z.chunkEnd {
				return errCorrupt
			}
			z.in.rp = z.chunkEnd
		}
		if z.chunkLeft == 0 {
			z.kind = 0
		}
		if n > 0 {
			return nil
		}
		if z.kind == 2 && d.pos < limit {
			// No progress with input left in the chunk: impossible for
			// valid data.
			return errCorrupt
		}
	}
}

// Read implements io.Reader.
func (z *Reader2) Read(p []byte) (int, error) {
	for {
		if z.par != nil && z.par.on {
			if n, ok, err := z.parRead(p); ok {
				return n, err
			}
		}
		n, err := readWindow(&z.d, &z.flushed, &z.err, z.fill, p)
		if err != errResume {
			return n, err
		}
		z.resumeParallel()
	}
}

// WriteTo implements io.WriterTo, writing straight from the window.
func (z *Reader2) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if z.par != nil && z.par.on {
			m, ok, err := z.parWriteTo(w)
			n += m
			if ok {
				return n, err
			}
		}
		m, err := writeWindow(&z.d, &z.flushed, &z.err, z.fill, w)
		n += m
		if err != errResume {
			return n, err
		}
		z.resumeParallel()
	}
}
