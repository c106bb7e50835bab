package deflate64

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

const (
	windowSize = 1 << 16 // Deflate64 history; plain deflate uses 32 KiB of it
	windowMask = windowSize - 1
	// inputSize is the input read at a time: zlib stores incompressible
	// data in blocks of about 16 KiB, and reads of that size cost a system
	// call per block (TestInputReads).
	inputSize = 64 << 10
	// windowSlack follows the window in memory: fastLoop's word copies
	// may write up to 7 bytes past a match that ends at the window's
	// end. Nothing reads those bytes.
	windowSlack = 8

	litPrimaryBits  = 10
	distPrimaryBits = 8
	numLitLen       = 288
	numDist         = 32
	numCodeLen      = 19
)

// Stream states between calls.
const (
	stateHeader  = iota // next: a block header
	stateStored         // inside a stored block
	stateHuffman        // inside a Huffman block
	stateDone           // after the final block
)

var (
	lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase = [32]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
		32769, 49153}
	distExtra = [32]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
		7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14}
	codeLenOrder = [numCodeLen]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// Decompressor inflates a Deflate64 (or, in plain mode, Deflate) stream. It
// holds a 64 KiB window, a 64 KiB input buffer and its Huffman tables, all
// allocated once; Reset starts a new stream with them.
//
// It reads its input in chunks and may consume bytes past the end of the
// compressed stream; give it a reader bounded to the packed size.
type Decompressor struct {
	r         io.Reader
	deflate64 bool

	in     []byte
	inPos  int
	inEnd  int
	inErr  error // error from r, io.EOF at its end
	inBase int64 // input offset of in[0]
	bitBuf uint64
	nbits  uint

	win   *[windowSize + windowSlack]byte
	wpos  int   // next write position in win
	rpos  int   // next unread position in win
	avail int   // unread bytes in win
	total int64 // bytes produced by the stream so far (bounded check of distances)

	state      int
	final      bool
	storedLeft int
	copyLen    int
	copyDist   int

	lit, dist, codeLen huffman
	lens               [numLitLen + numDist]uint8
	litTab, distTab    *huffman // the current block's tables
	paired             bool     // litTab has its pair entries (pairLiterals)
	pairAt             int64    // total at which a dynamic block's lit gets them
	err                error
}

// NewReader returns a Deflate64 decompressor reading from r (7z method
// 040109). The dynamic type is *Decompressor.
func NewReader(r io.Reader) io.ReadCloser { return New(r, true) }

// New returns a decompressor for Deflate64 (deflate64 = true) or plain
// Deflate (false) reading from r.
func New(r io.Reader, deflate64 bool) *Decompressor {
	d := &Decompressor{
		in:      make([]byte, inputSize, inputSize+8), // see loadInput
		win:     new([windowSize + windowSlack]byte),
		lit:     newHuffman(litPrimaryBits, numLitLen, maxCodeLen),
		dist:    newHuffman(distPrimaryBits, numDist, maxCodeLen),
		codeLen: newHuffman(7, numCodeLen, 7),
	}
	d.ResetMode(r, deflate64)
	return d
}

// fixedCodes holds the codes of RFC 1951 section 3.2.6 for Deflate (index
// 0) and Deflate64 (1), shared read-only by all decompressors. They are
// built by the first block that uses them (fixedTables), not at init: most
// garc processes decode no Deflate.
var (
	fixedOnce  [2]sync.Once
	fixedCodes [2]*[2]huffman // literal/length, distance
)

// modeValsTab holds the entry values of the symbols (symbolVals) of
// Deflate (index 0) and Deflate64 (1). The first modeVals builds it, not
// the package's initialization (issue 27): most garc processes decode no
// Deflate.
var (
	modeValsOnce sync.Once
	modeValsTab  *[2]symVals
)

// modeVals returns modeValsTab, building it on the first call.
func modeVals() *[2]symVals {
	modeValsOnce.Do(func() {
		v := new([2]symVals)
		for m := range v {
			v[m].lit, v[m].dist = symbolVals(m == 1)
		}
		modeValsTab = v
	})
	return modeValsTab
}

// symVals holds the entry values of one mode's symbols.
type symVals struct {
	lit  [numLitLen]uint32
	dist [numDist]uint32
}

// fixedTables returns the fixed literal/length and distance codes of the
// mode, building them on the first call.
func fixedTables(deflate64 bool) (lit, dist *huffman) {
	m := 0
	if deflate64 {
		m = 1
	}
	fixedOnce[m].Do(func() {
		lit, dist := buildFixed(&modeVals()[m])
		fixedCodes[m] = &[2]huffman{lit, dist}
	})
	return &fixedCodes[m][0], &fixedCodes[m][1]
}

func buildFixed(vals *symVals) (lit, dist huffman) {
	lit = newHuffman(litPrimaryBits, numLitLen, maxCodeLen)
	dist = newHuffman(distPrimaryBits, numDist, maxCodeLen)
	var lens [numLitLen]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	if !lit.build(lens[:], vals.lit[:]) {
		panic("deflate64: fixed literal/length code")
	}
	lit.pairLiterals()
	for i := 0; i < numDist; i++ {
		lens[i] = 5
	}
	if !dist.build(lens[:numDist], vals.dist[:]) {
		panic("deflate64: fixed distance code")
	}
	return lit, dist
}

// Reset starts decoding a new stream from r in the same mode.
func (d *Decompressor) Reset(r io.Reader) { d.ResetMode(r, d.deflate64) }

// ResetMode starts decoding a new stream from r, Deflate64 or plain Deflate.
func (d *Decompressor) ResetMode(r io.Reader, deflate64 bool) {
	d.r = r
	d.deflate64 = deflate64
	d.inPos, d.inEnd, d.inErr = 0, 0, nil
	d.inBase = 0
	d.bitBuf, d.nbits = 0, 0
	d.wpos, d.rpos, d.avail, d.total = 0, 0, 0, 0
	d.state = stateHeader
	d.final = false
	d.storedLeft, d.copyLen, d.copyDist = 0, 0, 0
	d.err = nil
}

// Close releases nothing and makes further reads fail; it does not close
// the underlying reader.
func (d *Decompressor) Close() error {
	if d.err == nil || d.err == io.EOF {
		d.err = errClosed
	}
	return nil
}

var errClosed = errors.New("deflate64: read after Close")

func (d *Decompressor) name() string {
	if d.deflate64 {
		return "deflate64"
	}
	return "deflate"
}

// CorruptInputError reports corrupt or truncated Deflate or Deflate64 data
// at an offset of the compressed input, counted from the first byte the
// Decompressor read since it was made or Reset: the byte holding the next
// unread bit where decoding stopped, or the end of the input for a
// truncation. It wraps archive.ErrFormat, and also io.ErrUnexpectedEOF for
// a truncation.
type CorruptInputError struct {
	Method    string // "deflate" or "deflate64"
	Offset    int64  // packed offset at which decoding failed
	Reason    string // what was wrong, e.g. "invalid distance code"
	Truncated bool   // the input ended inside the stream
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("%s: corrupt data at packed offset %d (%s)", e.Method, e.Offset, e.Reason)
}

// Unwrap returns archive.ErrFormat, and io.ErrUnexpectedEOF for a
// truncation.
func (e *CorruptInputError) Unwrap() []error {
	if e.Truncated {
		return []error{archive.ErrFormat, io.ErrUnexpectedEOF}
	}
	return []error{archive.ErrFormat}
}

func (d *Decompressor) corrupt(what string) error {
	off := d.inBase + int64(d.inPos) - int64((d.nbits+7)/8)
	return &CorruptInputError{Method: d.name(), Offset: off, Reason: what}
}

// truncated reports that the input ended (or failed) inside the stream.
func (d *Decompressor) truncated() error {
	if d.inErr != nil && d.inErr != io.EOF {
		return fmt.Errorf("%s: %w", d.name(), d.inErr)
	}
	return &CorruptInputError{Method: d.name(), Offset: d.inBase + int64(d.inEnd), Reason: "unexpected end of input", Truncated: true}
}

// directMin is the least room left in a Read's buffer for which a stored
// block's bytes are copied there straight from the input rather than
// through the window.
const directMin = 4 << 10

// Read implements io.Reader.
//
// A stored block's bytes go from the input buffer straight into p when
// the window holds nothing unread and p has room (readStored).
func (d *Decompressor) Read(p []byte) (int, error) {
	n := 0
	for {
		if d.avail > 0 && n < len(p) {
			k := min(d.avail, windowSize-d.rpos, len(p)-n)
			copy(p[n:], d.win[d.rpos:d.rpos+k])
			n += k
			d.rpos = (d.rpos + k) & windowMask
			d.avail -= k
			continue
		}
		if n == len(p) {
			return n, nil
		}
		if d.err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, d.err
		}
		if d.state == stateStored && d.storedLeft > 0 && len(p)-n >= directMin {
			n += d.readStored(p[n:])
			continue
		}
		d.err = d.step()
	}
}

// readStored copies stored blocks, the current one and those that follow
// it, straight into p while it has directMin bytes of room, and then
// their last window of bytes into the window, for the matches of later
// blocks (keep). The window must hold nothing unread. It returns the
// bytes copied; an error is left in d.err.
func (d *Decompressor) readStored(p []byte) int {
	n := 0
	for d.state == stateStored && d.storedLeft > 0 && len(p)-n >= directMin {
		k, err := d.storedDirect(p[n:])
		n += k
		if err != nil {
			d.err = err
			break
		}
		if d.state == stateHeader && !d.final && len(p)-n >= directMin {
			if err := d.blockHeader(); err != nil {
				d.err = err
				break
			}
		}
	}
	d.keep(p[:n])
	return n
}

// storedDirect copies the stored block's bytes into p, as many as fit
// and the input buffer holds (reading more when it is empty); the window
// must hold nothing unread. The caller adds the bytes to the window
// (keep).
func (d *Decompressor) storedDirect(p []byte) (int, error) {
	k := min(d.storedLeft, len(p))
	n := 0
	// Whole bytes still in the bit buffer come first.
	for ; n < k && d.nbits >= 8; n++ {
		p[n] = byte(d.bitBuf)
		d.bitBuf >>= 8
		d.nbits -= 8
	}
	if n < k {
		// As in stored: the bit buffer may hold copies of the input
		// bytes that follow, above bit 0.
		d.bitBuf, d.nbits = 0, 0
		if d.inPos == d.inEnd && !d.fillInput() {
			d.storedLeft -= n
			d.total += int64(n)
			return n, d.truncated()
		}
		c := copy(p[n:k], d.in[d.inPos:d.inEnd])
		d.inPos += c
		n += c
	}
	d.storedLeft -= n
	d.total += int64(n)
	if d.storedLeft == 0 {
		d.state = stateHeader
	}
	return n, nil
}

// keep adds to the window output that Read wrote straight into its
// buffer (the window holds nothing unread): its last windowSize bytes.
func (d *Decompressor) keep(b []byte) {
	b = b[max(0, len(b)-windowSize):]
	for len(b) > 0 {
		c := copy(d.win[d.wpos:windowSize], b)
		b = b[c:]
		d.wpos = (d.wpos + c) & windowMask
	}
	d.rpos = d.wpos
}

// step decodes until the window holds no free space, a block ends, or an
// error or the end of the stream is reached.
func (d *Decompressor) step() error {
	switch d.state {
	case stateHeader:
		if d.final {
			d.state = stateDone
			return io.EOF
		}
		return d.blockHeader()
	case stateStored:
		return d.stored()
	case stateHuffman:
		return d.huffmanBlock()
	}
	return io.EOF
}

// fillInput reads more input into d.in, keeping unread bytes. It returns
// false when no byte was added (end of input or error).
func (d *Decompressor) fillInput() bool {
	if d.inErr != nil {
		return false
	}
	if d.inPos > 0 {
		d.inBase += int64(d.inPos)
		d.inEnd = copy(d.in, d.in[d.inPos:d.inEnd])
		d.inPos = 0
	}
	for empty := 0; empty < 100; empty++ {
		n, err := d.r.Read(d.in[d.inEnd:])
		if n < 0 || n > len(d.in)-d.inEnd {
			n, err = 0, errors.New("invalid read count")
		}
		d.inEnd += n
		if err != nil {
			d.inErr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	d.inErr = io.ErrNoProgress
	return false
}

// refill tops the bit buffer up to at least 56 bits when input allows.
func (d *Decompressor) refill() {
	for {
		if d.inEnd-d.inPos >= 8 {
			v := binary.LittleEndian.Uint64(d.in[d.inPos:])
			k := (63 - d.nbits) >> 3
			d.bitBuf |= v << d.nbits
			d.inPos += int(k)
			d.nbits += k << 3
			return
		}
		for d.nbits <= 56 && d.inPos < d.inEnd {
			d.bitBuf |= uint64(d.in[d.inPos]) << d.nbits
			d.inPos++
			d.nbits += 8
		}
		if d.nbits > 56 || !d.fillInput() {
			return
		}
	}
}

// bits removes and returns the next n (<= 32) bits.
func (d *Decompressor) bits(n uint) (uint32, error) {
	if d.nbits < n {
		d.refill()
		if d.nbits < n {
			return 0, d.truncated()
		}
	}
	v := uint32(d.bitBuf & (1<<n - 1))
	d.bitBuf >>= n
	d.nbits -= n
	return v, nil
}

// decode reads one code with table h and returns its entry, whose value
// and extra bit count are the symbol's (see huffman.go).
func (d *Decompressor) decode(h *huffman) (uint32, error) {
	if d.nbits < maxCodeLen {
		d.refill()
	}
	e := h.primary[d.bitBuf&(1<<h.bits-1)]
	n := uint(e & entryLenMask)
	if e&entryPair != 0 {
		// The careful path takes a pair's first literal only.
		e = e&0xFFF | entryLiteral
	} else if e&entryLink != 0 {
		w := (e >> 21) & 0xF
		base := (e >> 4) & 0xFFFF
		e = h.links[base+uint32(d.bitBuf>>h.bits)&(1<<w-1)]
		n = h.bits + uint(e&entryLenMask)
		if e&entryLenMask == 0 {
			n = 0
		}
	}
	if n == 0 {
		if d.nbits == 0 {
			return 0, d.truncated()
		}
		return 0, d.corrupt("invalid Huffman code")
	}
	if n > d.nbits {
		return 0, d.truncated()
	}
	d.bitBuf >>= n
	d.nbits -= n
	return e, nil
}

func (d *Decompressor) blockHeader() error {
	h, err := d.bits(3)
	if err != nil {
		return err
	}
	d.final = h&1 != 0
	switch h >> 1 {
	case 0:
		// Stored: skip to a byte boundary, then LEN and NLEN.
		if _, err := d.bits(d.nbits & 7); err != nil {
			return err
		}
		v, err := d.bits(32)
		if err != nil {
			return err
		}
		if uint16(v) != ^uint16(v>>16) {
			return d.corrupt("stored block length check failed")
		}
		d.storedLeft = int(v & 0xFFFF)
		d.state = stateStored
		return nil
	case 1:
		d.state = stateHuffman
		d.litTab, d.distTab = fixedTables(d.deflate64)
		d.paired = true
		return nil
	case 2:
		if err := d.dynamicHeader(); err != nil {
			return err
		}
		d.state = stateHuffman
		d.litTab, d.distTab = &d.lit, &d.dist
		return nil
	}
	return d.corrupt("invalid block type 3")
}

// dynamicHeader reads the code length code and the literal/length and
// distance code lengths of a dynamic block and builds the tables.
func (d *Decompressor) dynamicHeader() error {
	v, err := d.bits(14)
	if err != nil {
		return err
	}
	nlit := int(v&0x1F) + 257
	ndist := int(v>>5&0x1F) + 1
	nclen := int(v>>10) + 4
	if nlit > 286 && !d.deflate64 {
		return d.corrupt("too many literal/length codes")
	}
	var clens [numCodeLen]uint8
	for i := 0; i < nclen; i++ {
		l, err := d.bits(3)
		if err != nil {
			return err
		}
		clens[codeLenOrder[i]] = uint8(l)
	}
	if !d.codeLen.build(clens[:], nil) {
		return d.corrupt("invalid code length code")
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		e, err := d.decode(&d.codeLen)
		if err != nil {
			return err
		}
		sym := int(e>>4) & 0xFFFF
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return d.corrupt("repeat of a missing code length")
			}
			val = lens[i-1]
			x, err := d.bits(2)
			if err != nil {
				return err
			}
			rep = 3 + int(x)
		case 17:
			x, err := d.bits(3)
			if err != nil {
				return err
			}
			rep = 3 + int(x)
		default:
			x, err := d.bits(7)
			if err != nil {
				return err
			}
			rep = 11 + int(x)
		}
		if i+rep > len(lens) {
			return d.corrupt("code lengths overflow")
		}
		for ; rep > 0; rep-- {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 {
		return d.corrupt("no end-of-block code")
	}
	vals := &modeVals()[0]
	if d.deflate64 {
		vals = &modeVals()[1]
	}
	if !d.lit.build(lens[:nlit], vals.lit[:]) {
		return d.corrupt("invalid literal/length code")
	}
	d.paired = false
	d.pairAt = d.total + pairAfter
	if !d.dist.build(lens[nlit:], vals.dist[:]) {
		return d.corrupt("invalid distance code")
	}
	return nil
}

// stored copies a stored block's bytes into the window.
func (d *Decompressor) stored() error {
	for d.storedLeft > 0 {
		room := windowSize - d.avail
		if room == 0 {
			return nil
		}
		// Whole bytes still in the bit buffer come first.
		if d.nbits >= 8 {
			d.win[d.wpos] = byte(d.bitBuf)
			d.bitBuf >>= 8
			d.nbits -= 8
			d.put(1)
			d.storedLeft--
			continue
		}
		// The bit buffer is empty; refill may have left copies of
		// the following input bytes above bit 0, which must go before
		// those bytes are consumed here directly.
		d.bitBuf, d.nbits = 0, 0
		if d.inPos == d.inEnd && !d.fillInput() {
			return d.truncated()
		}
		k := min(d.storedLeft, room, windowSize-d.wpos, d.inEnd-d.inPos)
		copy(d.win[d.wpos:], d.in[d.inPos:d.inPos+k])
		d.inPos += k
		d.put(k)
		d.storedLeft -= k
	}
	d.state = stateHeader
	return nil
}

// put accounts for k bytes written at wpos.
func (d *Decompressor) put(k int) {
	d.wpos = (d.wpos + k) & windowMask
	d.avail += k
	d.total += int64(k)
}

// copyMatch copies up to the pending match length from copyDist back,
// limited by the free room; it returns false when the window is full.
func (d *Decompressor) copyMatch() bool {
	for d.copyLen > 0 {
		room := windowSize - d.avail
		if room == 0 {
			return false
		}
		src := (d.wpos - d.copyDist) & windowMask
		k := min(d.copyLen, room, windowSize-d.wpos, windowSize-src)
		dst := d.win[d.wpos : d.wpos+k]
		if src < d.wpos && d.wpos-src < k {
			// Overlapping: the output repeats with period copyDist;
			// copy the growing repeated part forward.
			n := 0
			for n < k {
				n += copy(dst[n:], d.win[src:d.wpos+n])
			}
		} else {
			copy(dst, d.win[src:src+k])
		}
		d.put(k)
		d.copyLen -= k
	}
	return true
}

// huffmanBlock decodes symbols until the block ends or the window is full.
func (d *Decompressor) huffmanBlock() error {
	if !d.copyMatch() {
		return nil
	}
	lit, dist := d.litTab, d.distTab
	maxDist := int64(windowSize)
	if !d.deflate64 {
		maxDist = 32768
	}
	for {
		if d.avail == windowSize {
			return nil
		}
		if d.inEnd-d.inPos >= fastInput && d.avail <= windowSize-fastRoom {
			if !d.paired && d.total >= d.pairAt {
				d.lit.pairLiterals()
				d.paired = true
			}
			end, err := d.fastLoop(maxDist)
			if end || err != nil {
				return err
			}
			if d.copyLen > 0 || d.avail == windowSize {
				return nil
			}
			continue
		}
		e, err := d.decode(lit)
		if err != nil {
			return err
		}
		if e&entryLiteral != 0 {
			d.win[d.wpos] = byte(e >> 4)
			d.wpos = (d.wpos + 1) & windowMask
			d.avail++
			d.total++
			continue
		}
		length := int(e>>4) & 0xFFFF
		if length == 0 {
			if e>>extraShift == 0 {
				d.state = stateHeader
				return nil
			}
			return d.corrupt("invalid length code")
		}
		if n := uint(e >> extraShift); n > 0 {
			x, err := d.bits(n)
			if err != nil {
				return err
			}
			length += int(x)
		}
		e, err = d.decode(dist)
		if err != nil {
			return err
		}
		distance := int(e>>4) & 0xFFFF
		if int64(distance) > maxDist {
			return d.corrupt("invalid distance code")
		}
		if n := uint(e >> extraShift); n > 0 {
			x, err := d.bits(n)
			if err != nil {
				return err
			}
			distance += int(x)
		}
		if int64(distance) > d.total || int64(distance) > maxDist {
			return d.corrupt("distance beyond the start of the stream")
		}
		d.copyLen, d.copyDist = length, distance
		if !d.copyMatch() {
			return nil
		}
	}
}

// fastInput is the input that fastLoop needs buffered to decode a whole
// symbol: two refills of at most 8 bytes each.
const fastInput = 16

// fastRoom is the free window room fastLoop needs: a pair of literals.
const fastRoom = 2

// pairAfter is the output of a dynamic block after which its literal
// table gets its pair entries. Making them costs about as much as
// decoding a kilobyte or two, which a small block (a small file's only
// block) would not win back; a large block does many times over.
const pairAfter = 16 << 10

// fastLoop decodes symbols with the state in local variables while at
// least fastInput bytes of input are buffered, so that the bit buffer can
// be refilled eight bytes at a time without checks, and the window has
// fastRoom bytes free. It stops at the end of the block (end = true), when
// the window is (nearly) full, when a match did not fit, or when input
// runs low; the caller continues with the careful path.
//
// In plain Deflate, matches that fit before the window's end with 8 bytes
// to spare are copied 8 bytes at a time; the last word may run past the
// match into free room (history more than 32 KiB back, which Deflate
// cannot reference, unlike Deflate64) or the slack after the window. A match closer than 8 bytes
// repeats with its distance's period: its first bytes are copied one by
// one up to a multiple of the distance that is at least 8, and the rest
// word by word from that distance.
func (d *Decompressor) fastLoop(maxDist int64) (end bool, err error) {
	// Few variables stay live in the loop, so that they stay in
	// registers: the tables' index widths are constants, the primary
	// tables and the window are arrays (no bounds checks on masked
	// indexes), and total is avail plus a constant.
	bitBuf, nbits := d.bitBuf, d.nbits
	in, inPos := (*[inputSize + 8]byte)(d.in[:inputSize+8]), d.inPos
	inLast := d.inEnd - fastInput // the loop runs while inPos <= inLast
	win, wpos, avail := d.win, d.wpos, d.avail
	base := d.total - int64(avail) // total = base + avail
	lit, dist := d.litTab, d.distTab
	litPrimary := (*[1 << litPrimaryBits]uint32)(lit.primary)
	distPrimary := (*[1 << distPrimaryBits]uint32)(dist.primary)
	// Without pair entries yet, stop where the block has given pairAfter
	// bytes (avail and total grow together), to add them.
	limit := windowSize - fastRoom
	if !d.paired {
		limit = min(limit, avail+int(d.pairAt-d.total))
	}
	// Matches are copied in words while the window has room for a word
	// after them (plain Deflate only, see above).
	wordRoom := windowSize - 8
	if maxDist > windowSize-8 {
		wordRoom = 0
	}
	bad := "" // the corruption found, reported once the state is saved
	for inPos <= inLast && avail <= limit {
		// Refill without a branch: the whole bytes that fit, which
		// leaves 56 to 63 bits. The bits above those counted are the
		// next input bits, which the next refill ORs in again.
		bitBuf |= loadInput(in, inPos) << (nbits & 63)
		inPos += int((63 - nbits) >> 3)
		nbits = nbits&7 | 56
		e := litPrimary[bitBuf&(1<<litPrimaryBits-1)]
		if e&entryPair != 0 {
			// Pairs in a row, while the buffered bits hold a whole
			// pair (at most litPrimaryBits) and room allows.
			for {
				win[wpos&windowMask] = byte(e >> 4)
				win[(wpos+1)&windowMask] = byte(e >> 12)
				n := uint(e&entryLenMask) + uint(e>>21&0xF)
				bitBuf >>= n & 63
				nbits -= n
				wpos = (wpos + 2) & windowMask
				avail += 2
				if nbits < litPrimaryBits || avail > limit {
					break
				}
				if e = litPrimary[bitBuf&(1<<litPrimaryBits-1)]; e&entryPair == 0 {
					break
				}
			}
			continue
		}
		n := uint(e & entryLenMask)
		if e&entryLiteral != 0 {
			// A single literal of at most litPrimaryBits bits (a
			// longer code's primary entry is a link).
			bitBuf >>= n & 63
			nbits -= n
			win[wpos&windowMask] = byte(e >> 4)
			wpos = (wpos + 1) & windowMask
			avail++
			continue
		}
		if e&entryLink != 0 {
			w := (e >> 21) & 0xF
			e = lit.links[(e>>4)&0xFFFF+uint32(bitBuf>>litPrimaryBits)&(1<<w-1)]
			n = 0
			if e&entryLenMask != 0 {
				n = litPrimaryBits + uint(e&entryLenMask)
			}
		}
		if n == 0 {
			bad = "invalid Huffman code"
			break
		}
		bitBuf >>= n & 63
		nbits -= n
		if e&entryLiteral != 0 {
			win[wpos&windowMask] = byte(e >> 4)
			wpos = (wpos + 1) & windowMask
			avail++
			continue
		}
		length := int(e>>4) & 0xFFFF
		x := uint(e >> extraShift)
		if length == 0 {
			if x == 0 {
				end = true
				d.state = stateHeader
			} else {
				bad = "invalid length code"
			}
			break
		}
		// At most 15+16 bits are taken from the 32 or more buffered.
		length += int(bitBuf & (1<<x - 1))
		bitBuf >>= x & 63
		nbits -= x
		if nbits < 32 {
			bitBuf |= loadInput(in, inPos) << (nbits & 63)
			k := (63 - nbits) >> 3
			inPos += int(k)
			nbits += k << 3
		}
		e = distPrimary[bitBuf&(1<<distPrimaryBits-1)]
		n = uint(e & entryLenMask)
		if e&entryLink != 0 {
			w := (e >> 21) & 0xF
			e = dist.links[(e>>4)&0xFFFF+uint32(bitBuf>>distPrimaryBits)&(1<<w-1)]
			n = 0
			if e&entryLenMask != 0 {
				n = distPrimaryBits + uint(e&entryLenMask)
			}
		}
		if n == 0 {
			bad = "invalid Huffman code"
			break
		}
		bitBuf >>= n & 63
		nbits -= n
		distance := int(e>>4) & 0xFFFF
		x = uint(e >> extraShift)
		distance += int(bitBuf & (1<<x - 1))
		bitBuf >>= x & 63
		nbits -= x
		if int64(distance) > min(base+int64(avail), maxDist) {
			bad = "distance beyond the start of the stream"
			if int64(distance) > maxDist {
				bad = "invalid distance code"
			}
			break
		}
		// The source may lie before the window's start, at its end:
		// the copy takes the fast paths unless it crosses the end.
		src := wpos - distance
		if src < 0 {
			src += windowSize
		}
		if max(src, wpos)+length <= windowSize && avail+length <= wordRoom {
			// The bytes just after the match are free room, or history
			// more than 32 KiB back that plain Deflate cannot reference.
			// The words are addressed through masked positions (the
			// same positions, all below windowSize here), which
			// needs no bounds checks.
			end := wpos + length
			if distance < 8 {
				// Widen the period to a multiple of distance >= 8.
				period := distance
				for period < 8 {
					period += distance
				}
				head := min(period, length)
				for i := 0; i < head; i++ {
					win[(wpos+i)&windowMask] = win[(src+i)&windowMask]
				}
				src = wpos + head - period
				for t := wpos + head; t < end; t += 8 {
					storeWord(win, t, loadWord(win, src))
					src += 8
				}
			} else {
				for t := wpos; t < end; t += 8 {
					storeWord(win, t, loadWord(win, src))
					src += 8
				}
			}
			wpos = (wpos + length) & windowMask
			avail += length
			continue
		}
		if src+length <= windowSize && wpos+length <= windowSize && length <= windowSize-avail {
			// Deflate64 (exact copies), or close to the window's end.
			// A Deflate64 source up to 64 KiB back may lie just after
			// wpos: the forward copies read it before overwriting it.
			if distance >= length {
				copy(win[wpos:wpos+length], win[src:src+length])
			} else {
				for i := 0; i < length; i++ {
					win[wpos+i] = win[src+i]
				}
			}
			wpos = (wpos + length) & windowMask
			avail += length
			continue
		}
		d.wpos, d.avail, d.total = wpos, avail, base+int64(avail)
		d.copyLen, d.copyDist = length, distance
		full := !d.copyMatch()
		wpos, avail = d.wpos, d.avail
		base = d.total - int64(avail)
		if full {
			break
		}
	}
	d.bitBuf, d.nbits = bitBuf, nbits
	d.inPos = inPos
	d.wpos, d.avail, d.total = wpos, avail, base+int64(avail)
	if bad != "" {
		err = d.corrupt(bad)
	}
	return end, err
}

// loadInput returns the 8 bytes of the input buffer at i&(inputSize-1),
// from the buffer's capacity: 8 bytes follow its length, so that no
// bounds check is needed.
func loadInput(in *[inputSize + 8]byte, i int) uint64 {
	i &= inputSize - 1
	return binary.LittleEndian.Uint64(in[i : i+8])
}

// loadWord returns the 8 bytes of the window at i&windowMask.
func loadWord(win *[windowSize + windowSlack]byte, i int) uint64 {
	i &= windowMask
	return binary.LittleEndian.Uint64(win[i : i+8])
}

// storeWord puts v in the 8 bytes of the window at i&windowMask.
func storeWord(win *[windowSize + windowSlack]byte, i int, v uint64) {
	i &= windowMask
	binary.LittleEndian.PutUint64(win[i:i+8], v)
}

// AppendUnread appends to dst the input the decompressor read past the
// end of the stream, once Read has returned io.EOF: the whole bytes left
// in its bit buffer after the final block (whose last byte's padding bits
// are dropped), then its unread input buffer. A container format that
// follows the compressed data with more of its own (the gzip trailer and
// next member) continues from these bytes.
func (d *Decompressor) AppendUnread(dst []byte) []byte {
	bb := d.bitBuf >> (d.nbits & 7)
	for n := d.nbits >> 3; n > 0; n-- {
		dst = append(dst, byte(bb))
		bb >>= 8
	}
	return append(dst, d.in[d.inPos:d.inEnd]...)
}
