package stream

import (
	"sync"
	"time"
)

// Read-ahead: with several threads, NewDecoder runs the decoder on a
// goroutine of its own that decodes into a ring of buffers ahead of the
// reader, so that while one processor decodes a .tar.zst, .tar.gz or
// .tar.xz the other creates the files (GNU tar gets the same from its
// decompressor process). readAheadBufs buffers of readAheadSize bytes
// are in flight at most, a ring in one piece of memory (ringMemory: one
// transparent huge page on Linux) that a closed reader leaves to the next.
// Four buffers of 512 KiB: the ring's 2 MiB are one huge page, whose
// first touch is one page fault (four buffers of 1 MiB in 4 KiB pages
// had cost 4.5 % more CPU time than four of 256 KiB on garc t of the
// srctree .tar.zst, about 4 ms of CPU time per MiB touched on this
// machine under load); against four of 256 KiB in the same huge page
// they halve the hand-overs between the goroutines: garc x of
// random.tar.gz to tmpfs 1.24x bsdtar's CPU time against 1.35x (2 s.e.
// 0.06 and 0.09, 12 alternating rounds, load 28), utf16.tar.gz 1.12x
// against 1.14x.
const (
	readAheadSize = 512 << 10
	readAheadBufs = 4
)

// raRing is the buffers of one read-ahead, in one piece of memory
// (ringMemory).
type raRing [readAheadBufs]*[readAheadSize]byte

// readAheadRings keeps the rings of closed read-aheads for the next ones
// (a .tar.gz is opened twice: once to see whether it holds a tar).
var readAheadRings struct {
	sync.Mutex
	free []*raRing
}

// getRing returns a ring from readAheadRings, or a new one.
func getRing() *raRing {
	readAheadRings.Lock()
	defer readAheadRings.Unlock()
	if n := len(readAheadRings.free); n > 0 {
		ring := readAheadRings.free[n-1]
		readAheadRings.free = readAheadRings.free[:n-1]
		return ring
	}
	b := ringMemory(readAheadBufs * readAheadSize)
	ring := new(raRing)
	for i := range ring {
		ring[i] = (*[readAheadSize]byte)(b[i*readAheadSize:])
	}
	return ring
}

// putRing gives a ring back to readAheadRings.
func putRing(ring *raRing) {
	readAheadRings.Lock()
	defer readAheadRings.Unlock()
	readAheadRings.free = append(readAheadRings.free, ring)
}

// raChunk is one filled buffer, or the decoder's final error (io.EOF
// included) after the data before it.
type raChunk struct {
	buf *[readAheadSize]byte
	n   int
	err error
}

// readAheadDirect is how many bytes a readAhead reads from its decoder
// itself before it decides whether to start the goroutine: a stream that
// ends before (a tiny .zst, .gz or .xz) costs no goroutine and no
// buffers, whose allocation and first touch were about a tenth of the
// CPU time of a 2-byte .zst's test (issue 27).
//
// The goroutine starts at the end of readAheadBusy windows of direct
// reads in a row in each of which the reader took data by ReadChunk (an
// extractor writing files from the read-ahead's buffers) and spent at
// least 1/readAheadWorth of the decoder's time on work of its own between
// its reads; a window short of it starts the count again. A reader that
// only calls Read (garc t, whose reader discards the data; a listing) is
// never read ahead and never timed: its windows were taken for busy
// whenever the processor was taken away from it between two Reads (the
// wall clock counts that time too), and under load the goroutine started
// in most runs of garc t of the srctree .tar.zst, at 1.11x the CPU time
// of reading directly. One window is not enough: an entry's set-up, or the processor
// taken away from the reader on a loaded machine, fill one now and then
// (a third of garc t's runs of a 100 MB .tar.zst started the goroutine
// at a load average of 25). Decoding ahead costs CPU time, a
// tenth of a zstd decoder's: a second copy of the data, which then
// arrives from the other processor's cache, and the hand-overs. It buys
// wall time only when the reader has work to overlap; `t` of a .tar.zst,
// whose reader does next to nothing, ran at 1.13-1.19x the CPU time of
// reading directly.
const (
	readAheadDirect = 1 << 20
	readAheadWorth  = 4
	readAheadBusy   = 2
)

// readAheadClock times the windows of direct reads; tests replace it.
var readAheadClock = time.Now

// readAhead is a Decoder that reads src on its own goroutine, started
// once the reader has read readAheadDirect bytes and does work worth
// overlapping (so that a decoder opened only for its header decodes
// nothing ahead, and a small stream, or one read by a reader that does
// nothing with it, is read directly). It passes src's data and then
// src's error unchanged.
type readAhead struct {
	src     Decoder
	full    chan raChunk              // filled by the goroutine, in order
	free    chan *[readAheadSize]byte // buffers the reader is done with
	quit    chan struct{}             // closed by Close
	done    chan struct{}             // closed when the goroutine has returned
	cur     raChunk                   // the chunk being read from
	pos     int                       // read position in cur
	err     error                     // sticky: src's final error
	started bool
	closed  bool
	// ring is the buffers, taken from readAheadRings when first needed.
	// lent is the one ReadChunk reads into while reading directly, which
	// joins the others once the goroutine has started.
	ring *raRing
	lent *[readAheadSize]byte

	// Before the goroutine starts: the bytes read directly in the
	// current window, whether ReadChunk was called in it (the reads are
	// timed from then on), the time spent in src's Read and between
	// timed Reads, when the last timed Read returned, and the busy
	// windows before this one.
	direct          int
	lending         bool
	decode, consume time.Duration
	last            time.Time
	busy            int
}

// newReadAhead returns src read ahead on a goroutine.
func newReadAhead(src Decoder) *readAhead {
	return &readAhead{src: src}
}

func (r *readAhead) start() {
	r.started = true
	r.full = make(chan raChunk, readAheadBufs)
	r.free = make(chan *[readAheadSize]byte, readAheadBufs)
	r.quit = make(chan struct{})
	r.done = make(chan struct{})
	if r.ring == nil {
		r.ring = getRing()
	}
	for _, buf := range r.ring {
		if buf != r.lent { // the buffer lent joins them at the next call
			r.free <- buf
		}
	}
	go r.run()
}

// run fills free buffers from src and hands them over in order until src
// ends or fails, or Close asks it to stop.
func (r *readAhead) run() {
	defer close(r.done)
	for {
		var buf *[readAheadSize]byte
		select {
		case buf = <-r.free:
		case <-r.quit:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.src.Read(buf[n:])
			n += k
		}
		select {
		case r.full <- raChunk{buf: buf, n: n, err: err}:
		case <-r.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the decoded data in order, then the decoder's error.
func (r *readAhead) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.giveBack()
	if !r.started {
		return r.readDirect(p, false)
	}
	b, err := r.next(len(p))
	return copy(p, b), err
}

// ReadChunk is Read without the copy: it returns the next decoded bytes,
// at most max of them (max > 0), in the read-ahead's own buffer, where
// they stay until the next call of ReadChunk, Read or Close; after the
// last bytes it returns the decoder's error (io.EOF at the end) and no
// bytes. An extractor writes a file's content straight from the buffers
// the decoding goroutine filled (bsdtar, too, writes from its
// decompressor's output buffer), rather than copying it into a buffer of
// its own first.
func (r *readAhead) ReadChunk(max int) ([]byte, error) {
	r.giveBack()
	if !r.started {
		if r.lent == nil {
			if r.ring == nil {
				r.ring = getRing()
			}
			r.lent = r.ring[0]
		}
		n, err := r.readDirect(r.lent[:min(max, readAheadSize)], true)
		return r.lent[:n], err
	}
	return r.next(max)
}

// giveBack returns the buffer ReadChunk lent while reading directly to
// the goroutine's ring, once the goroutine has started.
func (r *readAhead) giveBack() {
	if r.started && r.lent != nil {
		r.free <- r.lent
		r.lent = nil
	}
}

// next returns up to max bytes of the chunk being read, taking the next
// one from the goroutine when it is used up (and giving the used one
// back), or the decoder's error after the last.
func (r *readAhead) next(max int) ([]byte, error) {
	for r.pos == r.cur.n {
		if r.err != nil {
			return nil, r.err
		}
		if r.cur.buf != nil {
			r.free <- r.cur.buf
			r.cur.buf = nil
		}
		r.cur = <-r.full
		r.pos = 0
		r.err = r.cur.err
	}
	b := r.cur.buf[r.pos:min(r.cur.n, r.pos+max)]
	r.pos += len(b)
	return b, nil
}

// readDirect reads from the decoder itself, before the goroutine starts,
// and starts it at the end of readAheadBusy busy windows. chunk says the
// read is ReadChunk's: from then on to the end of the window the reads
// are timed, and the time between two timed reads in a row is the
// reader's.
func (r *readAhead) readDirect(p []byte, chunk bool) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.lending = r.lending || chunk
	var began time.Time
	if r.lending {
		began = readAheadClock()
		if !r.last.IsZero() {
			r.consume += began.Sub(r.last)
		}
	} else {
		r.last = time.Time{} // the time since the last timed read is not the reader's alone
	}
	n, err := r.src.Read(p)
	if r.lending {
		r.last = readAheadClock()
		r.decode += r.last.Sub(began)
	}
	r.direct += n
	r.err = err
	if r.direct >= readAheadDirect && err == nil {
		r.busy++
		if !r.lending || r.consume*readAheadWorth < r.decode {
			r.busy = 0
		}
		if r.busy == readAheadBusy {
			r.start()
		}
		r.direct, r.decode, r.consume = 0, 0, 0
		r.lending = false
	}
	return n, err
}

// Close stops the goroutine, waiting for the decoder call it may be in,
// leaves the ring to the next read-ahead and closes the decoder.
func (r *readAhead) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.started {
		close(r.quit)
		<-r.done
	}
	if r.ring != nil {
		putRing(r.ring)
		r.ring, r.lent, r.cur.buf = nil, nil, nil
	}
	return r.src.Close()
}
