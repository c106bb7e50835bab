package unpack20

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
	mainSyms  = 298
	distSyms  = 48
	lenSyms   = 28
	audioSyms = 257
	blSyms    = 19
	lzLens    = mainSyms + distSyms + lenSyms
	maxLens   = 4 * audioSyms

	// maxDist is the longest distance the format can code.
	maxDist = 1 << 20
	// maxMatch bounds the bytes one symbol writes (258 + 3).
	maxMatch = 264
)

var (
	lengthBase [lenSyms]uint8
	lengthBits [lenSyms]uint8
	distBase   [distSyms]uint32
	distBits   [distSyms]uint8
	shortBase  = [8]uint32{0, 4, 8, 16, 32, 64, 128, 192}
	shortBits  = [8]uint8{2, 2, 3, 4, 5, 6, 6, 6}
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
	// distance slots: four single values, two slots per bit count up to
	// 15 bits, then 16-bit slots up to 1 MiB
	dbase := uint32(0)
	for i := range distSyms {
		b := 0
		if i >= 4 {
			b = min(i/2-1, 16)
		}
		distBase[i], distBits[i] = dbase, uint8(b)
		dbase += 1 << b
	}
}

// corrupt returns the error of damaged packed data (lzcore.DataError).
func corrupt(what string) error {
	return &lzcore.DataError{Method: "rar2", What: what}
}

var (
	errTruncated = corrupt("unexpected end of packed data")
	errTable     = corrupt("bad Huffman table")
	errNoTables  = corrupt("solid file without tables")
	errDistance  = corrupt("match distance beyond the data decoded")
	errSolid     = corrupt("solid file follows a failed one")
	errNoReader  = errors.New("unpack20: Read before Reset")
)

// audioState is one channel's predictor.
type audioState struct {
	k         [5]int // weights K1..K5
	d         [4]int // last deltas D1..D4
	lastDelta int
	lastByte  int
	count     uint32
	err       [11]int
}

// Decoder decodes RAR 2.0 packed streams. Create it once with NewDecoder
// and Reset it for each file; it reuses its window and tables.
type Decoder struct {
	br  lzcore.BitReader
	win lzcore.Window

	fileStart int64
	fileEnd   int64 // -1 unknown
	started   bool
	done      bool // the file's bytes are decoded and the tail handled
	err       error

	needTables bool
	tablesOK   bool
	audio      bool
	channels   int
	channel    int
	chDelta    int
	audioSt    [4]audioState

	lens  [maxLens]byte
	mainH lzcore.Huffman
	distH lzcore.Huffman
	lenH  lzcore.Huffman
	blH   lzcore.Huffman
	audH  [4]lzcore.Huffman

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
	if p.Version != 20 && p.Version != 26 {
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
	need := lzcore.WindowSize(min(p.DictSize, maxDist), p.UnpackedSize, p.Solid)
	if !solid {
		d.win.Reset(need)
		d.needTables = true
		d.tablesOK = false
		d.audio = false
		d.channels, d.channel, d.chDelta = 1, 0, 0
		d.audioSt = [4]audioState{}
		clear(d.lens[:])
		d.dists = [4]uint32{}
		d.distPtr = 0
		d.lastDst, d.lastLen = 0, 0
	} else {
		d.win.Grow(need)
		d.win.Skip()
	}
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
		if rem <= 0 || (d.done && d.win.ReadPos() >= d.win.Total()) {
			if !d.done {
				d.tail()
				d.done = true
			}
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

// decode decodes until the window holds as much pending output as it
// safely can or the file's size is reached.
func (d *Decoder) decode() error {
	limit := d.win.Total() + d.win.Room() - maxMatch
	if d.fileEnd >= 0 && limit > d.fileEnd {
		limit = d.fileEnd
	}
	if limit <= d.win.Total() {
		return corrupt("internal window state")
	}
	br := &d.br
	if d.fileEnd < 0 {
		return d.decodeUnsized(limit)
	}
	for d.win.Total() < limit {
		if d.needTables {
			if err := d.readTables(); err != nil {
				return err
			}
			continue
		}
		if !d.tablesOK {
			return errNoTables
		}
		var err error
		if d.audio {
			err = d.decodeAudio(limit)
		} else {
			err = d.decodeLZ(limit)
		}
		if err != nil {
			return err
		}
		if br.Err() != nil {
			return corrupt(br.Err().Error())
		}
		if br.Truncated() {
			return errTruncated
		}
	}
	return nil
}

// decodeUnsized decodes a stream of unknown size symbol by symbol: the
// format has no end marker, so the stream ends where its input does, and
// a symbol that needed bits past the end (padding) is taken back.
func (d *Decoder) decodeUnsized(limit int64) error {
	br := &d.br
	for d.win.Total() < limit {
		if br.BitsLeft() == 0 {
			break
		}
		before := d.win.Total()
		var err error
		switch {
		case d.needTables:
			err = d.readTables()
		case !d.tablesOK:
			return errNoTables
		case d.audio:
			err = d.decodeAudio(before + 1)
		default:
			err = d.decodeLZ(before + 1)
		}
		if br.Err() != nil {
			return corrupt(br.Err().Error())
		}
		if br.Truncated() {
			d.win.Truncate(before)
			break
		}
		if err != nil {
			return err
		}
	}
	if d.win.Total() < limit {
		d.done = true
		d.fileEnd = d.win.Total()
	}
	return nil
}

// readTables reads a table block.
func (d *Decoder) readTables() error {
	br := &d.br
	br.Refill()
	d.audio = br.ReadBits(1) == 1
	if br.ReadBits(1) == 0 {
		clear(d.lens[:])
	}
	count := lzLens
	if d.audio {
		d.channels = int(br.ReadBits(2)) + 1
		if d.channel >= d.channels {
			d.channel = 0
		}
		count = d.channels * audioSyms
	}
	var bl [blSyms]byte
	for i := range bl {
		bl[i] = byte(br.ReadBits(4))
	}
	d.blH.Init(bl[:])
	lens := d.lens[:count]
	for i := 0; i < count; {
		br.Refill()
		s := d.blH.Decode(br)
		switch {
		case s < 16:
			lens[i] = (lens[i] + byte(s)) & 15
			i++
		case s == 16:
			if i == 0 {
				return errTable
			}
			n := 3 + int(br.ReadBits(2))
			v := lens[i-1]
			for ; n > 0 && i < count; n-- {
				lens[i] = v
				i++
			}
		default:
			var n int
			if s == 17 {
				n = 3 + int(br.ReadBits(3))
			} else {
				n = 11 + int(br.ReadBits(7))
			}
			for ; n > 0 && i < count; n-- {
				lens[i] = 0
				i++
			}
		}
	}
	if br.Err() != nil {
		return corrupt(br.Err().Error())
	}
	if br.Truncated() {
		return errTruncated
	}
	if d.audio {
		for c := range d.channels {
			d.audH[c].Init(lens[c*audioSyms : (c+1)*audioSyms])
		}
	} else {
		d.mainH.Init(lens[:mainSyms])
		d.distH.Init(lens[mainSyms : mainSyms+distSyms])
		d.lenH.Init(lens[mainSyms+distSyms:])
	}
	d.needTables = false
	d.tablesOK = true
	return nil
}

// tail runs after a file's last byte: the encoder may have placed the
// next solid file's tables there.
func (d *Decoder) tail() {
	if d.needTables || !d.tablesOK || d.err != nil {
		return
	}
	br := &d.br
	left := br.BitsLeft()
	if left+int64(br.BitPos()&7) < 5*8 {
		return
	}
	if d.audio {
		if d.audH[d.channel].Decode(br) == 256 {
			d.readTail()
		}
	} else if d.mainH.Decode(br) == 269 {
		d.readTail()
	}
}

func (d *Decoder) readTail() {
	if err := d.readTables(); err != nil {
		// the next solid file fails for want of tables
		d.tablesOK = false
	}
}
