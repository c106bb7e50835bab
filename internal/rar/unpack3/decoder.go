package unpack3

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/ppmd"
	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// Params describes the file Reset starts (see lzcore.Params).
type Params = lzcore.Params

const (
	mainSyms = 299
	distSyms = 60
	lowSyms  = 17
	lenSyms  = 28
	blSyms   = lzcore.PrecodeSyms
	nLens    = mainSyms + distSyms + lowSyms + lenSyms

	// maxMatch bounds the bytes one symbol writes (PPMd: 255+32).
	maxMatch = 300
	// copySlack is the window space past a match that the 8-byte copy
	// loop may scribble on.
	copySlack = 16
	// ringExtra keeps the bytes scribbled past a match (< copySlack)
	// beyond the longest allowed distance.
	ringExtra = 32
)

var (
	lengthBase  [lenSyms]uint8
	lengthBits  [lenSyms]uint8
	distBase    [distSyms]uint32
	distBits    [distSyms]uint8
	shortBase   = [8]uint32{0, 4, 8, 16, 32, 64, 128, 192}
	shortBits   = [8]uint8{2, 2, 3, 4, 5, 6, 6, 6}
	errNoReader = errors.New("unpack3: Read before Reset")
)

func init() {
	// length slots: 8 single values, then 4 slots per extra-bit count
	base := 0
	for i := range lenSyms {
		b := 0
		if i >= 8 {
			b = i/4 - 1
		}
		lengthBase[i], lengthBits[i] = uint8(base), uint8(b)
		base += 1 << b
	}
	// distance slots: two per bit count up to 16 bits, sixteen more with 16
	// bits, then twelve with 18 bits
	dbase := uint32(0)
	for i := range distSyms {
		var b int
		switch {
		case i < 4:
			b = 0
		case i < 36:
			b = i/2 - 1
		case i < 48:
			b = 16
		default:
			b = 18
		}
		distBase[i], distBits[i] = dbase, uint8(b)
		dbase += 1 << b
	}
}

// corrupt returns the error of damaged packed data (lzcore.DataError).
func corrupt(what string) error {
	return &lzcore.DataError{Method: "rar3", What: what}
}

var (
	errTruncated = corrupt("unexpected end of packed data")
	errTable     = corrupt("bad Huffman table")
	errDistance  = corrupt("match distance beyond the data decoded")
	errFilter    = corrupt("bad filter")
	errTooMany   = corrupt("too many filters")
	errPPM       = corrupt("bad PPMd block header")
)

type filterDesc struct {
	start  int64
	length int64
	kind   uint8
	r0, r1 uint32
}

// Decoder decodes RAR 2.9–4.x packed streams. Create it once with
// NewDecoder and Reset it for each file; it reuses its buffers.
type Decoder struct {
	br lzcore.BitReader

	winp      *[]byte
	win       []byte // circular window, ringExtra bytes longer than dict
	dict      int    // longest distance allowed
	wpos      int
	total     int64 // stream position of the next byte written
	histStart int64 // oldest stream position still in the window
	rpos      int64 // stream position of the next byte to hand out or filter

	fileStart int64
	fileEnd   int64 // -1 unknown
	emitted   int64

	started    bool
	streamDone bool
	err        error

	needHeader bool // a block header comes next
	ppmMode    bool
	tablesOK   bool
	lens       [nLens]byte
	mainH      lzcore.Huffman
	distH      lzcore.Huffman
	lowH       lzcore.Huffman
	lenH       lzcore.Huffman
	blH        lzcore.Huffman
	dists      [4]uint32
	lastLen    int
	lowDist    uint32
	lowRep     int

	model  *ppmd.Model
	ppm    ppmd.RARDecoder
	esc    byte
	maxMem int64 // Params.MaxMem of the current file

	progs         []vmProgram
	fnum          int
	queue         []filterDesc
	qhead         int
	lastFilterEnd int64
	fbuf, fout    []byte
	foutPos       int
	rec           []byte // filter record being read
	codeBuf       []byte
}

// NewDecoder returns a Decoder ready to be Reset.
func NewDecoder() *Decoder { return &Decoder{} }

// Reset prepares to decode the next file's packed stream from src. With
// p.Solid the state carries over from the previous file (whose remaining
// output, if any, is decoded and discarded first).
func (d *Decoder) Reset(src io.Reader, p Params) error {
	switch p.Version {
	case 29:
	case 36:
		// RAR 3.6 betas wrote version 36 for a variant that current unrar
		// refuses too.
		d.err = &archive.UnsupportedError{What: "RAR unpack version 36"}
		return d.err
	default:
		d.err = &archive.UnsupportedError{What: fmt.Sprintf("RAR unpack version %d", p.Version)}
		return d.err
	}
	if p.DictSize <= 0 || p.DictSize > math.MaxInt {
		d.err = corrupt("bad dictionary size")
		return d.err
	}
	solid := p.Solid && d.started && d.win != nil
	if solid {
		if d.err == nil {
			d.drain()
		}
		if d.err != nil {
			return d.err
		}
	}
	need := lzcore.WindowSize(p.DictSize, p.UnpackedSize, p.Solid)
	if !solid {
		// A window at least as large is kept (windows are sized
		// exactly, so another file's rarely has the same size); the
		// dictionary, the longest distance, is the file's own.
		if d.win != nil && int64(len(d.win)-ringExtra) < need {
			lzcore.PutWindow(d.winp)
			d.winp, d.win = nil, nil
		}
		if d.win == nil {
			d.winp = lzcore.GetWindow(int(need) + ringExtra)
			d.win = *d.winp
		}
		d.dict = int(need)
		d.wpos, d.total, d.histStart = 0, 0, 0
		d.needHeader = true
		d.ppmMode = false
		d.tablesOK = false
		clear(d.lens[:])
		d.dists = [4]uint32{}
		d.lastLen = 0
		d.lowDist, d.lowRep = 0, 0
		d.esc = 2
		if d.model != nil {
			// forget the model: a PPMd block must restart it
			d.model.Init(0, 0)
		}
		d.progs = d.progs[:0]
		d.fnum = 0
	} else if int64(d.dict) < need {
		if int64(len(d.win)-ringExtra) >= need {
			d.dict = int(need)
		} else {
			d.growWindow(int(need))
		}
	}
	d.maxMem = p.MaxMem
	d.br.ResetSize(src, p.PackedSize)
	d.rpos = d.total
	d.fileStart = d.total
	d.fileEnd = -1
	if p.UnpackedSize >= 0 {
		d.fileEnd = d.total + p.UnpackedSize
	}
	d.emitted = 0
	d.streamDone = false
	d.started = true
	d.err = nil
	d.queue = d.queue[:0]
	d.qhead = 0
	d.lastFilterEnd = d.total
	d.fbuf = d.fbuf[:0]
	d.fout = d.fout[:0]
	d.foutPos = 0
	return nil
}

func (d *Decoder) growWindow(size int) {
	np := lzcore.GetWindow(size + ringExtra)
	nw := *np
	n := lzcore.MoveHistory(nw, d.win, len(d.win), d.wpos, d.total-d.histStart)
	lzcore.PutWindow(d.winp)
	d.winp, d.win = np, nw
	d.dict = size
	d.wpos = n
	d.histStart = d.total - int64(n)
}

// Close returns the window to the pool and drops the PPMd model. The
// Decoder may be Reset again.
func (d *Decoder) Close() error {
	lzcore.PutWindow(d.winp)
	d.winp, d.win = nil, nil
	putModel(d.model)
	d.model = nil
	d.ppm = ppmd.RARDecoder{}
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

// Read reads decoded bytes: exactly UnpackedSize of them (or up to the
// end-of-file marker when the size is unknown), then io.EOF.
func (d *Decoder) Read(p []byte) (int, error) { return lzcore.Read((*output)(d), p) }

// WriteTo writes the rest of the file's decoded bytes to w.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) { return lzcore.WriteTo((*output)(d), w) }

// output is the Decoder as an lzcore.Source.
type output Decoder

// Next returns the next decoded bytes to hand out; before Reset, an
// error.
func (o *output) Next() ([]byte, error) {
	if !o.started {
		return nil, errNoReader
	}
	return (*Decoder)(o).next()
}

// Consume marks n bytes handed out: from the filter output buffer while
// it holds bytes (next hands those out first), else from the window.
func (o *output) Consume(n int) {
	if o.foutPos < len(o.fout) {
		o.foutPos += n
	} else {
		o.rpos += int64(n)
	}
	o.emitted += int64(n)
}

func (d *Decoder) winIndex(pos int64) int {
	i := d.wpos - int(d.total-pos)
	if i < 0 {
		i += len(d.win)
	}
	return i
}

// next returns the next decoded bytes ready to hand out, decoding more
// when needed.
func (d *Decoder) next() (b []byte, err error) {
	for {
		if d.err != nil {
			return nil, d.err
		}
		rem := int64(math.MaxInt64)
		if d.fileEnd >= 0 {
			rem = d.fileEnd - d.fileStart - d.emitted
			if rem <= 0 {
				if !d.streamDone && d.total >= d.fileEnd {
					d.readTailMarker()
					d.streamDone = true
				}
				return nil, io.EOF
			}
		}
		if d.foutPos < len(d.fout) {
			b = d.fout[d.foutPos:]
			if int64(len(b)) > rem {
				b = b[:rem]
			}
			return b, nil
		}
		lim := d.total
		var f *filterDesc
		if d.qhead < len(d.queue) {
			f = &d.queue[d.qhead]
			lim = min(lim, f.start)
		}
		if d.rpos < lim {
			i := d.winIndex(d.rpos)
			n := min(lim-d.rpos, int64(len(d.win)-i), rem)
			return d.win[i : i+int(n)], nil
		}
		if f != nil && d.rpos >= f.start && d.total > d.rpos {
			end := min(d.total, f.start+f.length)
			for d.rpos < end {
				i := d.winIndex(d.rpos)
				n := min(end-d.rpos, int64(len(d.win)-i))
				d.fbuf = append(d.fbuf, d.win[i:i+int(n)]...)
				d.rpos += n
			}
			if int64(len(d.fbuf)) == f.length {
				d.err = lzcore.Locate(d.applyFilters(), d.br.InputOffset())
			}
			continue
		}
		if d.streamDone {
			if f != nil {
				// the stream ended inside a filter block: hand the
				// collected bytes out unfiltered
				d.fbuf, d.fout = d.fout[:0], d.fbuf
				d.foutPos = 0
				d.qhead++
				continue
			}
			if d.fileEnd >= 0 {
				d.err = lzcore.Locate(errTruncated, d.br.InputOffset())
				continue
			}
			return nil, io.EOF
		}
		d.err = lzcore.Locate(d.decode(), d.br.InputOffset())
	}
}

// applyFilters runs the filter at the head of the queue on the collected
// block, then any filters chained on the same block.
func (d *Decoder) applyFilters() error {
	f := d.queue[d.qhead]
	d.qhead++
	for {
		if err := d.applyFilter(&f); err != nil {
			return err
		}
		if d.qhead == len(d.queue) {
			return nil
		}
		g := d.queue[d.qhead]
		if g.start != f.start || g.length != f.length {
			return nil
		}
		d.qhead++
		d.fbuf, d.fout = d.fout, d.fbuf[:0]
		f = g
	}
}

func (d *Decoder) applyFilter(f *filterDesc) error {
	off := f.start - d.fileStart
	n := len(d.fbuf)
	d.foutPos = 0
	switch f.kind {
	case fltE8, fltE8E9:
		filters.RARE8(d.fbuf, off, f.kind == fltE8E9)
		d.fbuf, d.fout = d.fout[:0], d.fbuf
		return nil
	case fltItanium:
		filters.RARItanium(d.fbuf, off)
		d.fbuf, d.fout = d.fout[:0], d.fbuf
		return nil
	}
	if cap(d.fout) < n {
		d.fout = make([]byte, n, max(n, 64<<10))
	}
	d.fout = d.fout[:n]
	var err error
	switch f.kind {
	case fltDelta:
		filters.RARDelta(d.fout, d.fbuf, int(f.r0))
	case fltRGB:
		// odd widths make the predictor read output not yet produced:
		// start from zeros so that the result is reproducible
		clear(d.fout)
		if e := filters.RARRGB(d.fout, d.fbuf, int(min(f.r0, 1<<30)), int(min(f.r1, 3))); e != nil {
			err = fmt.Errorf("rar3 data: %w", e)
		}
	case fltAudio:
		filters.RARAudio(d.fout, d.fbuf, int(f.r0))
	}
	d.fbuf = d.fbuf[:0]
	return err
}
