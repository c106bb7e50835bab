package lzma

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// WriterOptions configure the LZMA and LZMA2 encoders. LevelOptions gives
// 7-Zip's presets; zero fields of options passed to NewWriter/NewWriter2
// are filled from the preset of Level.
type WriterOptions struct {
	Level       int    // 0..9 preset (0 behaves as 1; storing is the container's business)
	DictSize    uint32 // dictionary size in bytes (MinDictSize .. MaxDictSize)
	LC, LP, PB  int    // literal context bits, literal position bits, position bits
	FastBytes   int    // "nice" match length at which searching stops (5..273)
	MatchFinder string // as 7-Zip spells it: "hc4", "hc5", "bt4" or "bt5" (see ParseMatchFinder)
	Cycles      int    // match finder steps per position
	Threads     int    // LZMA2: blocks compressed in parallel
	BlockSize   int64  // LZMA2: block size, the unit of parallel work (0: 4×DictSize clamped to [2 MiB, 256 MiB])
	// EOSMarker makes the LZMA Writer end the stream with an end marker
	// (needed when the unpacked size is not stored elsewhere).
	EOSMarker bool
	// Algorithm chooses the parser: AlgorithmByLevel (levels 1–4 fast,
	// 5–9 optimal), AlgorithmFast or AlgorithmOptimal (7-Zip's a=0/a=1).
	Algorithm int
	// Context, when not nil, stops the encoder once it is done: the
	// encoders and their match-finder goroutines poll it every 64 KiB of
	// input, and Write and Close then return an error wrapping its Err
	// (after every goroutine of the writer has ended).
	Context context.Context

	finder MatchFinderKind // MatchFinder parsed by normalize
}

// MatchFinderKind is a kind of match finder: a hash chain or a binary
// tree, over hashes of 4 or 5 bytes.
type MatchFinderKind uint8

// The match finders of 7-Zip's mf= parameter.
const (
	HC4 MatchFinderKind = iota + 1 // hash chain, 4-byte hashes
	HC5                            // hash chain, 5-byte hashes
	BT4                            // binary tree, 4-byte hashes
	BT5                            // binary tree, 5-byte hashes
)

var finderNames = [...]string{HC4: "hc4", HC5: "hc5", BT4: "bt4", BT5: "bt5"}

// ParseMatchFinder parses a match finder name as 7-Zip writes it ("bt4",
// case-insensitive).
func ParseMatchFinder(s string) (MatchFinderKind, error) {
	for k, name := range finderNames {
		if name != "" && strings.EqualFold(s, name) {
			return MatchFinderKind(k), nil
		}
	}
	return 0, fmt.Errorf("lzma: unknown match finder %q (want hc4, hc5, bt4 or bt5)", s)
}

// String returns the name of k as 7-Zip writes it.
func (k MatchFinderKind) String() string {
	if int(k) < len(finderNames) && finderNames[k] != "" {
		return finderNames[k]
	}
	return fmt.Sprintf("MatchFinderKind(%d)", uint8(k))
}

// binaryTree reports whether k is a binary-tree finder.
func (k MatchFinderKind) binaryTree() bool { return k == BT4 || k == BT5 }

// hashBytes is the number of bytes k hashes for its main table.
func (k MatchFinderKind) hashBytes() int {
	if k == HC5 || k == BT5 {
		return 5
	}
	return 4
}

// The dictionary sizes the encoders accept. MaxDictSize is 7-Zip's limit
// for LZMA and LZMA2 encoding on 64-bit systems (3<<29, 1.5 GiB: LzmaEnc.c
// refuses more), so that every archive garc writes can be written and
// read back by 7-Zip with the same settings; it is the one limit the
// format packages and the command line check -md against. The decoders
// accept any size the formats can express (up to 4 GiB − 1), bounded only
// by the caller's memory limit.
const (
	MinDictSize = minDictSize
	MaxDictSize = 3 << 29
)

// The parsers of WriterOptions.Algorithm.
const (
	AlgorithmByLevel = iota // greedy below level 5, optimal from 5
	AlgorithmFast           // greedy with one position of lookahead
	AlgorithmOptimal        // price-based optimal parsing
)

// LevelOptions returns 7-Zip's -mx0..9 settings for LZMA/LZMA2, those of
// its current versions on 64-bit systems (Get_Lzma_DicSize since 7-Zip
// 23): a dictionary of 2^(2·level+16) bytes up to level 4 (256 KiB, 1, 4
// and 16 MiB), 2^(level+20) at levels 5 to 8 (32 to 256 MiB) and 256 MiB
// at level 9. Level 0 has level 1's dictionary.
func LevelOptions(level int) WriterOptions {
	if level < 0 {
		level = 0
	}
	if level > 9 {
		level = 9
	}
	o := WriterOptions{Level: level, LC: 3, LP: 0, PB: 2, Threads: 1}
	switch {
	case level <= 4:
		o.DictSize = 1 << (max(level, 1)*2 + 16)
	case level <= 8:
		o.DictSize = 1 << (level + 20)
	default:
		o.DictSize = 1 << 28
	}
	if level < 7 {
		o.FastBytes = 32
	} else {
		o.FastBytes = 64
	}
	if level < 5 {
		// hc5 with 16 chain steps, as 7-Zip (docs/PERFORMANCE.md,
		// "Compression speed against 7zz").
		o.MatchFinder = "hc5"
		o.Cycles = 16
	} else {
		o.MatchFinder = "bt4"
		o.Cycles = 16 + o.FastBytes/2
	}
	o.BlockSize = defaultBlockSize(o.DictSize)
	return o
}

// defaultBlockSize is 4×dict, clamped to [2 MiB, 256 MiB], as 7-Zip
// sizes its blocks (it clamps at 1 MiB). Each block after the first resets
// the model, which costs a little size, and is a unit of parallel work,
// which at the fast levels decides the wall time and the memory: at mx1
// (2 MiB blocks) on 32 MiB of mixed-data, against 8 MiB blocks, the
// output is 0.13 % larger and -mmt2 takes 0.46 s instead of 0.61 s
// (7zz 0.42 s) in 28 MiB instead of 48 MiB (docs/PERFORMANCE.md).
func defaultBlockSize(dict uint32) int64 {
	b := int64(dict) * 4
	if b < 2<<20 {
		b = 2 << 20
	}
	if b > 256<<20 {
		b = 256 << 20
	}
	return b
}

// normalize fills zero fields from the level preset and validates.
func (o *WriterOptions) normalize() error {
	d := LevelOptions(o.Level)
	if o.DictSize == 0 {
		o.DictSize = d.DictSize
	}
	if o.FastBytes == 0 {
		o.FastBytes = d.FastBytes
	}
	if o.MatchFinder == "" {
		o.MatchFinder = d.MatchFinder
	}
	finder, err := ParseMatchFinder(o.MatchFinder)
	if err != nil {
		return err
	}
	o.finder = finder
	o.MatchFinder = finder.String()
	if o.Cycles == 0 {
		o.Cycles = d.Cycles
		if o.MatchFinder != d.MatchFinder {
			o.Cycles = 16 + o.FastBytes/2
			if !finder.binaryTree() {
				o.Cycles >>= 1
			}
		}
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.BlockSize == 0 {
		o.BlockSize = defaultBlockSize(o.DictSize)
	}
	switch {
	case o.DictSize < MinDictSize || o.DictSize > MaxDictSize:
		return fmt.Errorf("lzma: dictionary size %d out of range", o.DictSize)
	case o.LC < 0 || o.LC > 8 || o.LP < 0 || o.LP > 4 || o.PB < 0 || o.PB > 4:
		return errors.New("lzma: lc/lp/pb out of range")
	case o.FastBytes < 5 || o.FastBytes > maxMatchLen:
		return errors.New("lzma: fast bytes out of range")
	case o.Cycles < 1:
		return errors.New("lzma: cycles out of range")
	case o.BlockSize < 1<<16:
		return errors.New("lzma: block size too small")
	case o.Algorithm < AlgorithmByLevel || o.Algorithm > AlgorithmOptimal:
		return errors.New("lzma: unknown algorithm")
	}
	return nil
}

// contextErr returns ctx's error, wrapped, once ctx is done (nil for a nil
// ctx).
func contextErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("lzma: encoding stopped: %w", ctx.Err())
	default:
		return nil
	}
}

// Writer compresses to a raw LZMA stream as 7z stores it: no header, and
// no end marker unless EOSMarker is set.
type Writer struct {
	w      io.Writer
	opts   WriterOptions
	e      *encoder
	stage  []byte // input gathered before the encoder is created
	buf    []byte // window storage once streaming
	err    error
	closed bool
}

// streamExtra is the window space beyond the dictionary used by the
// streaming Writer.
const streamExtra = 1 << 21

// NewWriter returns a Writer compressing to w.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	return &Writer{w: w, opts: opts}, nil
}

// Props returns the 5-byte 7z coder properties.
func (z *Writer) Props() []byte {
	p := make([]byte, 5)
	p[0] = byte((z.opts.PB*5+z.opts.LP)*9 + z.opts.LC)
	binary.LittleEndian.PutUint32(p[1:], z.opts.DictSize)
	return p
}

// Reset discards state and starts a new stream to w with the same options.
func (z *Writer) Reset(w io.Writer) {
	z.w = w
	z.stage = z.stage[:0]
	if z.e != nil {
		if z.e.dictSize != z.opts.DictSize {
			z.e = nil // sized for a small stream
		} else {
			z.e.mf.buf = nil
		}
	}
	z.err = nil
	z.closed = false
}

func (z *Writer) startStreaming() {
	if z.e == nil || z.e.dictSize != z.opts.DictSize {
		z.e = newEncoder(&z.opts)
	}
	if z.buf == nil {
		z.buf = hugeBytes(int(z.opts.DictSize) + streamExtra + lookahead)
	}
	z.e.resetStream(z.buf[:0])
	z.e.mf.buf = z.buf
	z.e.mf.end = copy(z.buf, z.stage)
	z.stage = z.stage[:0]
}

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, errors.New("lzma: write after close")
	}
	if err := contextErr(z.opts.Context); err != nil {
		z.err = err
		return 0, err
	}
	n := len(p)
	if z.e == nil || z.e.mf.buf == nil {
		room := int(z.opts.DictSize) + streamExtra - len(z.stage)
		if len(p) < room {
			z.stage = append(z.stage, p...)
			return n, nil
		}
		z.stage = append(z.stage, p[:room]...)
		p = p[room:]
		z.startStreaming()
	}
	for len(p) > 0 {
		mf := z.e.mf
		if mf.end == len(z.buf) {
			if err := z.makeRoom(); err != nil {
				z.err = err
				return n - len(p), err
			}
		}
		k := copy(z.buf[mf.end:], p)
		mf.end += k
		p = p[k:]
	}
	return n, nil
}

// makeRoom encodes what the lookahead allows, writes the output and slides
// the window.
func (z *Writer) makeRoom() error {
	e := z.e
	mf := e.mf
	if err := e.encodeSome(1<<62, math.MaxInt, false); err != nil {
		return err
	}
	if err := z.flushOut(); err != nil {
		return err
	}
	s := e.ep - int(z.opts.DictSize) - 8
	if s <= 0 {
		return errors.New("lzma: internal error: window too small")
	}
	copy(z.buf, z.buf[s:mf.end])
	mf.end -= s
	mf.pos -= s
	e.ep -= s
	e.checkAt -= s
	mf.delta += uint32(s)
	if mf.delta > normalizeAt {
		mf.normalize()
	}
	return nil
}

func (z *Writer) flushOut() error {
	out := z.e.rc.out
	if len(out) == 0 {
		return nil
	}
	_, err := z.w.Write(out)
	z.e.rc.out = out[:0]
	return err
}

// Close finishes the stream (it does not close the underlying writer).
func (z *Writer) Close() error {
	if z.err != nil {
		return z.err
	}
	if z.closed {
		return nil
	}
	z.closed = true
	if z.e == nil || z.e.mf.buf == nil {
		// Everything fits in memory: size the match finder to the data.
		need := uint32(min(max(len(z.stage), minDictSize), int(z.opts.DictSize)))
		if z.e == nil || z.e.dictSize < need {
			o := z.opts
			if len(z.stage) < int(o.DictSize) {
				o.DictSize = uint32(max(len(z.stage), minDictSize))
			}
			z.e = newEncoder(&o)
		}
		z.e.resetStream(z.stage)
		z.e.mf.buf = z.stage
	}
	e := z.e
	if err := e.encodeSome(1<<62, math.MaxInt, true); err != nil {
		z.err = err
		e.mf.buf = nil
		return err
	}
	if z.opts.EOSMarker {
		e.encodeEndMarker()
	}
	e.rc.flush()
	z.err = z.flushOut()
	e.mf.buf = nil
	return z.err
}

// Writer2 compresses to an LZMA2 stream: chunks of at most 2 MiB unpacked
// and 64 KiB packed, in blocks of BlockSize bytes compressed by up to
// Threads goroutines, and the end byte 0x00. The first block resets the
// dictionary; each later one resets only the model and keeps the
// dictionary, its encoder preloaded with the DictSize bytes before it, so
// that its matches reach back into the previous blocks as a single
// stream's would. The output depends only on the options and the input,
// not on the number of threads.
type Writer2 struct {
	w       io.Writer
	opts    WriterOptions
	block   []byte // history (histLen bytes) then the input of the block being filled
	histLen int
	spos    int64 // stream position of the filling block's first input byte
	jobs    []*job2
	// running is the number of jobs in jobs still being compressed as
	// far as the writer has seen (reap); finished, with room for one
	// value, wakes a Write waiting for a slot when a block ends.
	running  int
	finished chan struct{}
	free     chan *encoder
	nEnc     int
	// mtOK: blocks may run the parallel binary-tree finder (Threads >= 2).
	mtOK bool
	// maxBlocks is the number of blocks compressed at once: Threads,
	// or half of it (rounded up) when blocks run the parallel finder.
	maxBlocks int
	spare     [][]byte
	// spareOut holds the output buffers of written blocks, for reuse.
	spareOut [][]byte
	// blockBytes is the capacity of the block buffers the writer holds
	// (filling, in flight and spare), the bulk of its memory beside the
	// encoders.
	blockBytes int
	// stream, when not nil, codes the blocks as the input arrives, in
	// a sliding window instead of block buffers (fast_stream.go).
	stream *blockStream
	err    error
	closed bool
}

type job2 struct {
	data []byte // nil once the block is done and its buffer is spare
	hist int
	spos int64
	out  []byte
	err  error // set when the block was cancelled
	done chan struct{}
}

// blockStarted, when not nil, is called by each block's goroutine of a
// Writer2 before the block is compressed (for tests).
var blockStarted func(spos int64)

// NewWriter2 returns a Writer2 compressing to w.
func NewWriter2(w io.Writer, opts WriterOptions) (*Writer2, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	if opts.LC+opts.LP > 4 {
		return nil, errors.New("lzma: LZMA2 needs lc+lp <= 4")
	}
	z := &Writer2{w: w, opts: opts, free: make(chan *encoder, opts.Threads), finished: make(chan struct{}, 1)}
	z.mtOK = opts.Threads >= 2 && opts.finder.binaryTree()
	z.maxBlocks = opts.Threads
	if z.mtOK {
		z.maxBlocks = (opts.Threads + 1) / 2
	}
	z.stream = newBlockStream(z)
	return z, nil
}

// Props returns the 7z coder property byte (dictionary size code).
func (z *Writer2) Props() byte { return lzma2PropFor(z.opts.DictSize) }

func lzma2PropFor(n uint32) byte {
	for p := byte(0); p < 40; p++ {
		if s, _ := lzma2DictSize(p); s >= n {
			return p
		}
	}
	return 40
}

// Reset starts a new stream to w with the same options, keeping encoders.
func (z *Writer2) Reset(w io.Writer) {
	z.waitAll()
	z.w = w
	if z.stream != nil {
		z.stream.reset()
	}
	if z.block != nil {
		z.spare = append(z.spare, z.block)
	}
	z.block = nil
	z.histLen = 0
	z.spos = 0
	z.err = nil
	z.closed = false
}

// outBuffer returns an empty output buffer for a block of size bytes,
// recycled when one is spare, with room for the block's largest output (its
// bytes stored, with a chunk header per 64 KiB) up to maxOutRoom, so that
// appending to it does not reallocate: a buffer grown by doubling leaves
// as much garbage behind as it holds (at mx1 -mmt2, 8 to 13 MiB of peak
// RSS), while the pages of room that a block does not use are never
// touched. Beyond maxOutRoom (the large blocks of the binary-tree levels)
// the buffer grows as needed, so that the heap does not count room of
// hundreds of megabytes.
func (z *Writer2) outBuffer(size int) []byte {
	need := min(size+size>>10+64, maxOutRoom)
	var b []byte
	if n := len(z.spareOut); n > 0 {
		b = z.spareOut[n-1][:0]
		z.spareOut = z.spareOut[:n-1]
	}
	if cap(b) < need {
		b = make([]byte, 0, need)
	}
	return b
}

// maxOutRoom is the most room outBuffer gives an output buffer ahead.
const maxOutRoom = 16 << 20

// buffer returns an empty block buffer, recycled when one is spare.
func (z *Writer2) buffer() []byte {
	if n := len(z.spare); n > 0 {
		b := z.spare[n-1][:0]
		z.spare = z.spare[:n-1]
		return b
	}
	return nil
}

// reserve returns b with room for n more bytes. A block buffer grows by
// doubling while it is small (so that small streams take little memory)
// and then straight to its largest size, DictSize+BlockSize bytes, so that
// big streams leave no garbage of intermediate sizes behind and every
// recycled buffer fits any block. No intermediate size reaches 1 MiB,
// from which hugeBytes (on Linux) backs a buffer with huge pages: a 1 MiB
// step took a whole 2 MiB page that stayed resident once the buffer had
// grown past it (at mx1 -mmt2, three of them: 6 of 34 MiB of peak RSS).
func (z *Writer2) reserve(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := int(z.opts.DictSize) + int(z.opts.BlockSize)
	if g := max(need, 2*cap(b), 64<<10); g < 1<<20 {
		c = min(c, g)
	}
	nb := hugeBytes(c)[:len(b)]
	z.blockBytes += cap(nb) - cap(b)
	copy(nb, b)
	return nb
}

// Write compresses p.
func (z *Writer2) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, errors.New("lzma: write after close")
	}
	if err := contextErr(z.opts.Context); err != nil {
		z.err = err
		return 0, err
	}
	if z.stream != nil {
		n, err := z.stream.write(p)
		z.err = err
		return n, err
	}
	n := len(p)
	for len(p) > 0 {
		if z.block == nil {
			z.block = z.buffer()
		}
		full := z.histLen + int(z.opts.BlockSize)
		k := min(full-len(z.block), len(p))
		z.block = append(z.reserve(z.block, k), p[:k]...)
		p = p[k:]
		if len(z.block) == full {
			if err := z.submit(false); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// getEncoder returns an idle encoder, creating one when fewer than maxBlocks
// exist. For a lone block smaller than the dictionary, the encoder is
// sized to the block.
func (z *Writer2) getEncoder(size int) *encoder {
	o := z.opts
	if size >= 0 && size < int(o.DictSize) {
		o.DictSize = uint32(max(size, minDictSize))
	}
	var e *encoder
	select {
	case e = <-z.free:
	default:
		if z.nEnc < z.maxBlocks {
			z.nEnc++
			return newEncoder(&o)
		}
		e = <-z.free
	}
	if e.dictSize < o.DictSize {
		// Made for a smaller stream before a Reset.
		mt := e.mt
		e = newEncoder(&o)
		e.mt = mt
	}
	return e
}

// submit hands the filled block to an encoder and, unless it is the last,
// starts the next block's buffer with its history.
func (z *Writer2) submit(last bool) error {
	data, hist, spos := z.block, z.histLen, z.spos
	z.spos += int64(len(data) - hist)
	z.block = nil
	h := int(min(int64(z.opts.DictSize), z.spos)) // the next block's history
	size := -1
	if last && spos == 0 {
		size = len(data)
	}
	if z.maxBlocks <= 1 {
		// One block at a time, compressed while Write waits (on the
		// parallel finder's threads when there are two): one buffer and
		// one output buffer serve every block, the history moving to the
		// front once the block is compressed.
		e := z.getEncoder(size)
		out, err := compressBlock(e, data, hist, spos, z.outBuffer(len(data)-hist), z.mtOK)
		z.free <- e
		if err != nil {
			z.err = err
			return err
		}
		if last {
			z.spare = append(z.spare, data)
		} else {
			z.block = append(data[:0], data[len(data)-h:]...)
			z.histLen = h
		}
		_, err = z.w.Write(out)
		z.spareOut = append(z.spareOut, out)
		if err != nil {
			z.err = err
		}
		return err
	}
	// Wait for a free slot: a slot is free as soon as any block is done,
	// not only the oldest, whose output may have to wait for an earlier,
	// slower block (blocks of one stream differ in cost by up to 4× on
	// mixed data). At most maxBlocks+1 blocks are unwritten, running or
	// done.
	if err := z.waitSlot(); err != nil {
		z.spare = append(z.spare, data)
		return err
	}
	j := &job2{data: data, hist: hist, spos: spos}
	// A block gets the parallel finder (a worker beside the parser)
	// when the threads leave room for it: Threads/2 blocks (rounded up)
	// run at once, all on two threads but, with an odd thread count, the
	// last on one (7-Zip's layout: one encoder per two threads; giving
	// every thread a block of its own was about 6 % faster with two
	// threads but held twice the encoders, docs/PERFORMANCE.md,
	// "Threads"). The choice changes the speed, not the output.
	useMT := z.mtOK && 2*(z.running+1) <= z.opts.Threads
	j.done = make(chan struct{})
	z.jobs = append(z.jobs, j)
	z.running++
	j.out = z.outBuffer(len(data) - hist)
	e := z.getEncoder(size)
	go func() {
		if blockStarted != nil {
			blockStarted(j.spos)
		}
		j.out, j.err = compressBlock(e, j.data, j.hist, j.spos, j.out, useMT)
		z.free <- e
		close(j.done)
		// After done is closed, so that a Write this wakes sees the
		// block done. A wake-up left over makes a later wait look
		// once more, no harm.
		select {
		case z.finished <- struct{}{}:
		default: // a wake-up is pending already
		}
	}()
	if last {
		return nil
	}
	// The next block's buffer is taken once a block is done, so that
	// the writer holds maxBlocks block buffers, as 7-Zip holds one input
	// block per coder, not one more being filled while they all run
	// (at mx3 -mmt2 one buffer is 20 MiB of 132). Filling a block from
	// the input costs little against compressing one, so a thread stays
	// idle only that long. The history comes from this block's buffer,
	// which the job only reads; when that block is the one done, its
	// buffer may be the one taken, and the history moves to its front.
	if err := z.waitRunning(); err != nil {
		return err
	}
	z.block = append(z.reserve(z.buffer(), h), data[len(data)-h:]...)
	z.histLen = h
	return nil
}

// waitRunning waits until fewer than maxBlocks blocks run, writing the
// output of done blocks in order.
func (z *Writer2) waitRunning() error {
	for {
		if err := z.reap(); err != nil {
			return err
		}
		if z.running < z.maxBlocks {
			return nil
		}
		<-z.finished
	}
}

// reap takes the buffers of the blocks that are done back as spare and
// writes the output of the done blocks at the front of jobs, in order.
// On an error it waits for every running block.
func (z *Writer2) reap() error {
	for _, j := range z.jobs {
		if j.data == nil {
			continue
		}
		select {
		case <-j.done:
			z.spare = append(z.spare, j.data)
			j.data = nil
			z.running--
		default:
		}
	}
	for len(z.jobs) > 0 && z.jobs[0].data == nil {
		if err := z.finishOldest(); err != nil {
			return err
		}
	}
	return nil
}

// waitSlot waits until fewer than maxBlocks blocks run and at most
// maxBlocks are unwritten, writing the output of done blocks in order.
func (z *Writer2) waitSlot() error {
	for {
		if err := z.reap(); err != nil {
			return err
		}
		if z.running < z.maxBlocks && len(z.jobs) <= z.maxBlocks {
			return nil
		}
		<-z.finished
	}
}

// finishOldest waits for the oldest block and writes its output. On an
// error (cancellation or the underlying writer's) it waits for every
// running block, so that no goroutine outlives the failed call.
func (z *Writer2) finishOldest() error {
	j := z.jobs[0]
	<-j.done
	copy(z.jobs, z.jobs[1:])
	z.jobs = z.jobs[:len(z.jobs)-1]
	if j.data != nil {
		z.spare = append(z.spare, j.data)
		z.running--
	}
	err := j.err
	if err == nil {
		_, err = z.w.Write(j.out)
	}
	z.spareOut = append(z.spareOut, j.out)
	if err != nil {
		z.err = err
		z.waitAll()
	}
	return err
}

// waitAll waits for the running blocks and discards their output.
func (z *Writer2) waitAll() {
	for _, j := range z.jobs {
		<-j.done
		if j.data != nil {
			z.spare = append(z.spare, j.data)
		}
		z.spareOut = append(z.spareOut, j.out)
	}
	z.jobs = z.jobs[:0]
	z.running = 0
}

// Close compresses the buffered input, writes the end byte and waits for
// the workers (it does not close the underlying writer).
func (z *Writer2) Close() error {
	if z.err != nil {
		return z.err
	}
	if z.closed {
		return nil
	}
	z.closed = true
	if z.stream != nil {
		if err := z.stream.close(); err != nil {
			z.err = err
			return err
		}
	}
	if len(z.block) > z.histLen {
		if err := z.submit(true); err != nil {
			return err
		}
	}
	for len(z.jobs) > 0 {
		if err := z.finishOldest(); err != nil {
			return err
		}
	}
	_, err := z.w.Write([]byte{0})
	z.err = err
	return err
}

// compressBlock encodes a block as LZMA2 chunks and appends them to out:
// data holds hist bytes of history, then the block, which starts at stream
// position spos. It uses the parallel match finder when useMT is set. The
// first chunk of
// the stream's first block resets the dictionary; a later block's first
// chunk resets the model only (and restates the properties).
//
// It returns an error (and out unfinished) only when the encoder's context
// is cancelled; the finder's goroutines have ended by then.
func compressBlock(e *encoder, data []byte, hist int, spos int64, out []byte, useMT bool) ([]byte, error) {
	if err := e.resetBlock(data, hist, spos); err != nil {
		return out, err
	}
	if useMT {
		if e.mt == nil {
			e.mt = newMTFinder()
		}
		e.mt.start(e.mf, e.mf.end-e.mf.hb+1)
		defer e.mt.stop()
	}
	// A later block cannot know whether an earlier one got as far as an
	// LZMA chunk (all of them may have been stored), so its first LZMA
	// chunk sends the properties again (one byte).
	needDict, needProps, needState := spos == 0, true, true
	propsByte := byte((int(e.pb)*5+int(e.lp))*9 + int(e.lc))
	for e.ep < len(data) {
		start := e.ep
		e.rc.reset()
		if err := e.encodeSome(chunkPacked-80, chunkUnpack, true); err != nil {
			return out, err
		}
		u := e.ep - start
		e.rc.flush()
		packed := e.rc.out
		if len(packed) < u && len(packed) <= chunkPacked {
			reset := 0
			switch {
			case needDict:
				reset = 3
			case needProps:
				reset = 2
			case needState:
				reset = 1
			}
			out = append(out, byte(0x80|reset<<5|(u-1)>>16), byte((u-1)>>8), byte(u-1),
				byte((len(packed)-1)>>8), byte(len(packed)-1))
			if reset >= 2 {
				out = append(out, propsByte)
			}
			out = append(out, packed...)
			needDict, needProps, needState = false, false, false
			continue
		}
		// Incompressible: store the bytes and restart the model, which
		// the decoder did not see update.
		for s := start; s < e.ep; {
			n := min(e.ep-s, 1<<16)
			c := byte(2)
			if needDict {
				c = 1
				needDict = false
				needProps = true
			}
			out = append(out, c, byte((n-1)>>8), byte(n-1))
			out = append(out, data[s:s+n]...)
			s += n
		}
		e.resetState()
		needState = true
	}
	return out, nil
}
