package unpack15

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// Params describes the file Reset starts (see lzcore.Params).
type Params = lzcore.Params

const (
	// maxDist is the longest distance the format can code.
	maxDist = 64 << 10
	// maxMatch bounds the bytes one step writes (255+3+1+8).
	maxMatch = 272
)

// corrupt returns the error of damaged packed data (lzcore.DataError).
func corrupt(what string) error {
	return &lzcore.DataError{Method: "rar1.5", What: what}
}

var (
	errTruncated = corrupt("unexpected end of packed data")
	errCode      = corrupt("invalid code")
	errDistance  = corrupt("match distance beyond the data decoded")
	errSolid     = corrupt("solid file follows a failed one")
	errNoReader  = errors.New("unpack15: Read before Reset")
)

// Decoder decodes RAR 1.5 packed streams. Create it once with NewDecoder
// and Reset it for each file; it reuses its window.
type Decoder struct {
	br  lzcore.BitReader
	win lzcore.Window

	fileStart int64
	fileEnd   int64 // -1 unknown
	started   bool
	done      bool
	err       error

	// sorted tables: value<<8 | count
	chSet  [256]uint16 // literals
	chSetB [256]uint16 // long distances (high bits)
	chSetC [256]uint16 // flag bytes
	chSetA [256]uint8  // short distances
	// first position of the entries with a count greater than the index
	nToPl  [256]uint8
	nToPlB [256]uint8
	nToPlC [256]uint8

	avrPlc, avrPlcB    uint32 // running averages of literal and distance positions
	avrLn1, avrLn2     uint32 // of short and long match lengths
	avrLn3             uint32 // of long matches below maxDist3
	numHuf             int    // literals in a row
	toggle             int    // short-code variant
	maxDist3           uint32
	nhfb, nlzb         uint32 // literal and long-match weights
	flagBuf, flagsLeft uint32
	stMode             bool
	lCount             int // consecutive repeats of the last match

	dists   [4]uint32
	distPtr int
	lastDst uint32
	lastLen int
}

// NewDecoder returns a Decoder ready to be Reset.
func NewDecoder() *Decoder { return &Decoder{} }

// Reset prepares to decode the next file's packed stream from src. With
// p.Solid the state carries over from the previous file, whose remaining
// output, if any, is decoded and discarded first.
func (d *Decoder) Reset(src io.Reader, p Params) error {
	buildTablesOnce.Do(buildTables)
	if p.Version < 10 || p.Version > 15 {
		d.err = &archive.UnsupportedError{What: fmt.Sprintf("RAR unpack version %d", p.Version)}
		return d.err
	}
	if p.DictSize <= 0 || p.DictSize > math.MaxInt {
		d.err = corrupt("bad dictionary size")
		return d.err
	}
	solid := p.Solid && d.started && d.win.Allocated()
	if solid {
		if d.err == nil {
			d.drain()
		}
		if d.err != nil {
			d.err = errSolid
			return d.err
		}
	}
	need := lzcore.WindowSize(maxDist, p.UnpackedSize, p.Solid)
	if !solid {
		d.win.Reset(need)
		d.initTables()
		d.avrPlcB, d.avrLn1, d.avrLn2, d.avrLn3 = 0, 0, 0, 0
		d.numHuf, d.toggle = 0, 0
		d.avrPlc = 0x3500
		d.maxDist3 = 0x2001
		d.nhfb, d.nlzb = 0x80, 0x80
		d.dists = [4]uint32{}
		d.distPtr = 0
		d.lastDst, d.lastLen = 0, 0
	} else {
		d.win.Grow(need)
		d.win.Skip()
	}
	d.flagBuf, d.flagsLeft = 0, 0
	d.stMode = false
	d.lCount = 0
	d.br.ResetSize(src, p.PackedSize)
	d.fileStart = d.win.Total()
	d.fileEnd = -1
	if p.UnpackedSize >= 0 {
		d.fileEnd = d.fileStart + p.UnpackedSize
	}
	d.started = true
	d.done = false
	d.err = nil
	return nil
}

// initTables sets the sorted tables to their initial order.
func (d *Decoder) initTables() {
	for i := range 256 {
		d.chSet[i] = uint16(i) << 8
		d.chSetB[i] = uint16(i) << 8
		d.chSetA[i] = uint8(i)
		d.chSetC[i] = uint16(uint8(-i)) << 8
	}
	clear(d.nToPl[:])
	clear(d.nToPlC[:])
	resetCounts(&d.chSetB, &d.nToPlB)
}

// resetCounts gives the entries of a sorted table the counts 7 (first 32
// entries) down to 0 (last 32).
func resetCounts(set *[256]uint16, nToPl *[256]uint8) {
	for i := range set {
		set[i] = set[i]&^0xff | uint16(7-i/32)
	}
	clear(nToPl[:])
	for c := range 7 {
		nToPl[c] = uint8((7 - c) * 32)
	}
}

// use returns the value at position pos of a sorted table and moves the
// entry up past those with its count, incrementing the count; a count
// reaching limit resets all counts first.
func use(set *[256]uint16, nToPl *[256]uint8, pos uint8, limit uint16) uint16 {
	e := set[pos]
	if e&0xff >= limit {
		resetCounts(set, nToPl)
		e = set[pos]
	}
	np := nToPl[uint8(e)]
	nToPl[uint8(e)]++
	set[pos] = set[np]
	set[np] = e + 1
	return e >> 8
}

// Close returns the window to the pool. The Decoder may be Reset again.
func (d *Decoder) Close() error {
	d.win.Release()
	d.started = false
	d.err = nil
	return nil
}

// drain decodes and discards the rest of the current file.
func (d *Decoder) drain() {
	if err := lzcore.Drain((*output)(d)); err != nil {
		d.err = err
	}
}

// Read reads decoded bytes: exactly UnpackedSize of them, then io.EOF.
func (d *Decoder) Read(p []byte) (int, error) { return lzcore.Read((*output)(d), p) }

// WriteTo writes the rest of the file's decoded bytes to w.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) { return lzcore.WriteTo((*output)(d), w) }

// output is the Decoder as an lzcore.Source: the decoded bytes are handed
// out of the window in place.
type output Decoder

// Next returns the next decoded bytes to hand out; before Reset, an
// error.
func (o *output) Next() ([]byte, error) {
	if !o.started {
		return nil, errNoReader
	}
	return (*Decoder)(o).next()
}

// Consume marks n bytes handed out.
func (o *output) Consume(n int) { o.win.Consume(n) }

// next returns the next decoded bytes to hand out, decoding more when
// needed.
func (d *Decoder) next() ([]byte, error) {
	for {
		if d.err != nil {
			return nil, d.err
		}
		rem := int64(math.MaxInt64)
		if d.fileEnd >= 0 {
			rem = d.fileEnd - d.win.ReadPos()
		}
		if rem <= 0 {
			d.done = true
			return nil, io.EOF
		}
		if b := d.win.Pending(rem); len(b) > 0 {
			return b, nil
		}
		if d.done {
			return nil, io.EOF
		}
		d.err = lzcore.Locate(d.decode(), d.br.InputOffset())
	}
}
