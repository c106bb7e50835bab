package stream

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/flate"

	"github.com/garc-dev/garc/internal/deflate"
)

// blockCoder compresses one block of a stream cut into blocks: data, with
// hist (the input just before it) as its dictionary, appended to dst;
// last says it ends the stream.
type blockCoder interface {
	code(dst *bytes.Buffer, hist, data []byte, last bool) error
}

// blockJob is one block being compressed.
type blockJob struct {
	buf  []byte // history, then the block's input
	hist int
	last bool
	out  bytes.Buffer
	err  error
	done chan struct{}
}

// blockPool cuts a stream into blocks of size bytes and compresses up to
// threads of them at once, each with the window bytes before it as
// history, writing their output to w in order. With one thread the
// blocks are compressed by the caller, to the same bytes.
//
// With more threads the caller runs ahead of the coders: a block it
// submits waits for whichever coder comes free first, and the caller
// goes on filling the next one; it waits only when inFlight blocks are
// submitted and not yet written (its memory stays bounded), and writes
// finished blocks in order as it passes. A pool that made the caller wait
// for the oldest block whenever threads were in flight left a core idle
// whenever the younger block finished first (blocks of a source tree
// differ in speed) and while the caller read the next block's files: on
// 100 MB of Go sources `garc a -so x.tar.gz` ran one goroutine alone
// about 9 % of its time.
type blockPool struct {
	w       io.Writer
	size    int
	window  int
	threads int
	cur     *blockJob
	queue   []*blockJob
	spare   []*blockJob
	coders  chan blockCoder
	newCode func() blockCoder
	err     error
}

func newBlockPool(w io.Writer, threads, size, window int, newCoder func() blockCoder) *blockPool {
	p := &blockPool{w: w, size: size, window: window, threads: max(threads, 1), newCode: newCoder}
	p.coders = make(chan blockCoder, p.threads)
	for range p.threads {
		p.coders <- newCoder()
	}
	p.cur = p.job(nil)
	return p
}

// job returns an empty job whose history is hist.
func (p *blockPool) job(hist []byte) *blockJob {
	var j *blockJob
	if n := len(p.spare); n > 0 {
		j, p.spare = p.spare[n-1], p.spare[:n-1]
		j.buf, j.last, j.err = j.buf[:0], false, nil
		j.out.Reset()
	} else {
		j = &blockJob{buf: make([]byte, 0, p.window+p.size)}
	}
	j.buf = append(j.buf, hist...)
	j.hist = len(hist)
	return j
}

// write adds p to the stream.
func (p *blockPool) write(b []byte) error {
	for len(b) > 0 && p.err == nil {
		room := p.cur.hist + p.size - len(p.cur.buf)
		n := min(room, len(b))
		p.cur.buf = append(p.cur.buf, b[:n]...)
		b = b[n:]
		if n == room {
			p.submit(false)
		}
	}
	return p.err
}

// submit starts compressing the current block and begins the next.
func (p *blockPool) submit(last bool) {
	j := p.cur
	j.last = last
	if !last {
		data := j.buf[j.hist:]
		p.cur = p.job(data[max(0, len(data)-p.window):])
	} else {
		p.cur = nil
	}
	if p.threads == 1 {
		c := <-p.coders
		j.err = c.code(&j.out, j.buf[:j.hist], j.buf[j.hist:], j.last)
		p.coders <- c
		p.finish(j)
		return
	}
	j.done = make(chan struct{})
	go func() {
		c := <-p.coders
		j.err = c.code(&j.out, j.buf[:j.hist], j.buf[j.hist:], j.last)
		p.coders <- c
		close(j.done)
	}()
	p.queue = append(p.queue, j)
	for len(p.queue) > 0 && (len(p.queue) >= p.inFlight() || p.queue[0].finished()) {
		p.retire()
	}
}

// inFlight is how many blocks may be submitted and not yet written: the
// threads' and as many more waiting for a coder or to be written.
func (p *blockPool) inFlight() int { return 2 * p.threads }

// finished reports whether the job's coding is done.
func (j *blockJob) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// retire waits for the oldest block in flight and writes it.
func (p *blockPool) retire() {
	j := p.queue[0]
	p.queue = p.queue[1:]
	<-j.done
	p.finish(j)
}

// finish writes a compressed block's output.
func (p *blockPool) finish(j *blockJob) {
	if p.err == nil {
		p.err = j.err
	}
	if p.err == nil {
		_, p.err = p.w.Write(j.out.Bytes())
	}
	p.spare = append(p.spare, j)
}

// close compresses the last block and waits for every block.
func (p *blockPool) close() error {
	if p.cur != nil && p.err == nil {
		p.submit(true)
	}
	for len(p.queue) > 0 {
		p.retire()
	}
	return p.err
}

// deflateCoder compresses blocks of a Deflate stream: each ends with a
// sync flush (an empty stored block, so the next starts on a byte
// boundary), the last with the final block.
type deflateCoder struct {
	level int
	fw    *flate.Writer
}

// newDeflateBlocks returns the block coders of gzip at -mx level: from
// -mx6 garc's own encoder (gzipChain), below klauspost/compress's flate
// at the same level.
func newDeflateBlocks(level int) func() blockCoder {
	if c, ok := gzipChain(level); ok {
		return func() blockCoder { return &ownDeflateCoder{chain: c} }
	}
	return func() blockCoder { return &deflateCoder{level: level} }
}

// gzipChain is the parse of garc's own Deflate encoder at -mx6 … -mx9, a
// lazy parse over hash chains as zlib's (and so pigz's) levels 6 to 9
// have, with fewer candidates: at -mx6 32 per position (zlib -6: 128),
// lazy below 24 bytes (zlib: 16), a quarter of the walk once the match in
// hand has 8. Against `tar c | pigz -p2 -6` on the 100 MB classes of
// scripts/bench-matrix -mx6 is 0.979× (srctree) to 1.001× (mixed) its
// size for 0.78× (exec) to 0.95× (numbers) its CPU time, where
// klauspost/compress's flate level 8 (garc's -mx6 before) was 1.023× on
// exec, and its level 9 1.021× for twice the CPU time. -mx7 to -mx9
// take more candidates and longer lazy lengths: on 30 MB of each class,
// one run each, within 0.6 % of pigz's size at the same level, for 0.90
// to 0.96× its CPU time at -mx7 and 0.5 to 0.9× at -mx8 and -mx9;
// klauspost's level 9, which they used before, was 3 % larger than pigz
// -9 on executables and took up to 1.8× pigz -7's CPU time.
func gzipChain(level int) (deflate.Chain, bool) {
	switch level {
	case 6:
		return deflate.Chain{Depth: 32, Lazy: 24, Good: 8, Nice: 128}, true
	case 7:
		return deflate.Chain{Depth: 96, Lazy: 48, Good: 8, Nice: 258}, true
	case 8:
		return deflate.Chain{Depth: 128, Lazy: 128, Good: 16, Nice: 258}, true
	case 9:
		return deflate.Chain{Depth: 256, Lazy: 258, Good: 16, Nice: 258}, true
	}
	return deflate.Chain{}, false
}

func (d *deflateCoder) code(dst *bytes.Buffer, hist, data []byte, last bool) error {
	if d.fw == nil {
		fw, err := flate.NewWriterDict(dst, d.level, hist)
		if err != nil {
			return err
		}
		d.fw = fw
	} else {
		d.fw.ResetDict(dst, hist)
	}
	if _, err := d.fw.Write(data); err != nil {
		return err
	}
	if last {
		return d.fw.Close()
	}
	return d.fw.Flush()
}

// ownDeflateCoder compresses blocks as deflateCoder does, with garc's own
// encoder (internal/deflate): each block a fresh stream whose matches
// reach into the history (deflate.Writer.ResetDict), ended with a sync
// flush (Flush) or the final block (Close).
type ownDeflateCoder struct {
	chain deflate.Chain
	w     *deflate.Writer
}

func (d *ownDeflateCoder) code(dst *bytes.Buffer, hist, data []byte, last bool) error {
	if d.w == nil {
		w, err := deflate.NewWriterChain(dst, d.chain)
		if err != nil {
			return err
		}
		d.w = w
	}
	d.w.ResetDict(dst, hist)
	if _, err := d.w.Write(data); err != nil {
		return err
	}
	if last {
		return d.w.Close()
	}
	return d.w.Flush()
}
