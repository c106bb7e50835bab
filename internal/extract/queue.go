package extract

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/garc-dev/garc/internal/archive"
)

// The queue lets a second goroutine create the files of small entries
// while the caller decodes the next ones (issue 13): WriteQueued reads an
// entry's content into memory and queues it; a writer goroutine runs
// writeEntry for the queued entries in order, exactly as Write would;
// their outcomes come back to the caller, in order, on the caller's
// goroutine. Entries travel in batches, so that the goroutines hand work
// over once per batch, not once per file.

// Queue limits: an entry whose content is larger is written at once, in
// the caller's goroutine; a batch is handed over at batchEntries entries
// or batchBytes of content; at most queueBatches batches exist, which
// bounds the memory held (about 4.3 MiB) and how far the writer lags.
const (
	maxQueuedContent = 64 << 10
	batchEntries     = 64
	batchBytes       = 1 << 20
	queueBatches     = 4
	// batchCap is the room of a batch's content, allocated whole when
	// the batch is first used: a batch is handed over as soon as it holds
	// batchBytes, so its content never outgrows it, and it is never
	// regrown (each regrowth copied the content and touched fresh pages:
	// a tenth of the CPU time of extracting a 300 KB .tar.gz).
	batchCap = batchBytes + maxQueuedContent + 1
)

// errAborted is the outcome of an entry queued when Abort or Rollback
// ran; such outcomes are not delivered.
var errAborted = errors.New("extraction aborted")

// queuedEntry is an entry waiting for the writer, then its outcome.
type queuedEntry struct {
	entry    archive.Entry
	off, end int // content: batch.data[off:end]
	done     func(*archive.Entry, error) error
	err      error
	warns    []warning // Options.Warn calls, made when delivered
}

type warning struct {
	name string
	err  error
}

type batch struct {
	entries []queuedEntry
	data    []byte
}

// queue is the state of WriteQueued. The caller's goroutine owns cur,
// free and inFlight; the writer owns rd and the Extractor while it holds
// batches (the caller touches the Extractor only when inFlight is 0).
type queue struct {
	cur      *batch
	free     []*batch
	inFlight int // batches handed to the writer and not yet back
	todo     chan *batch
	finished chan *batch
	stopped  chan struct{} // closed when the writer has ended
	abandon  atomic.Bool   // the writer skips what remains
	mu       sync.Mutex    // guards closed and the closing of todo
	closed   bool
	rd       bytes.Reader
}

// WriteQueued is Write for a caller that need not know an entry's
// outcome before going on to the next entry (an archive's Extract
// callback). It reads r to its end at once: the content reader's error,
// for example a checksum error, is found here. A small entry (content up
// to 64 KiB) without such an error is then queued, and a second goroutine
// creates its file, directory or link while the caller decodes the next
// entries; others are written at once, after the queued ones.
//
// Every entry's outcome, the error Write would have returned, is passed
// to done on the caller's goroutine, in the order of the entries, after
// the Options.Warn calls Write would have made for it: during this or a
// later WriteQueued, Write or Flush. The *archive.Entry passed to done is
// a copy, valid during the call. When a done call returns an error (the
// caller stops the run), WriteQueued returns it and leaves e alone
// (entries queued before e are still written); after Abort it returns an
// error wrapping ErrCreate.
//
// An entry is handled exactly as by Write (the same rules, in the same
// order), except that with OverwriteAsk every entry is written at once.
// Call Flush when the entries end, then Finish, Abort or Rollback, which
// also end the writer goroutine.
func (x *Extractor) WriteQueued(e *archive.Entry, r io.Reader, done func(*archive.Entry, error) error) error {
	if x.opts.Overwrite == OverwriteAsk || e.Size > maxQueuedContent {
		if err := x.Flush(); err != nil {
			return err
		}
		return done(e, x.writeEntry(e, r))
	}
	q := x.queue()
	if err := q.collect(x, false); err != nil {
		return err
	}
	b, err := q.batch(x)
	if err != nil {
		return err
	}
	start := len(b.data)
	var rerr error
	if r != nil {
		b.data, rerr = readUpTo(b.data, r, maxQueuedContent+1)
	}
	if rerr != nil || len(b.data)-start > maxQueuedContent {
		// A content error (which Write handles, KeepBroken included) or
		// more content than is queued: write now, after the queued
		// entries.
		head := bytes.Clone(b.data[start:])
		b.data = b.data[:start]
		if err := x.Flush(); err != nil {
			return err
		}
		var rest io.Reader = r
		if rerr != nil {
			rest = errorReader{rerr}
		}
		return done(e, x.writeEntry(e, io.MultiReader(bytes.NewReader(head), rest)))
	}
	b.entries = append(b.entries, queuedEntry{entry: *e, off: start, end: len(b.data), done: done})
	if len(b.entries) >= batchEntries || len(b.data) >= batchBytes {
		return q.submit(x)
	}
	return nil
}

// Flush waits until every queued entry is written and delivers the
// outcomes not yet delivered (see WriteQueued). It returns the first
// non-nil error a done call returned.
func (x *Extractor) Flush() error {
	q := x.q.Load()
	if q == nil {
		return nil
	}
	var first error
	if q.cur != nil && len(q.cur.entries) > 0 {
		first = q.submit(x)
	}
	if err := q.collect(x, true); first == nil {
		first = err
	}
	return first
}

// stopQueue ends the writer goroutine. With abandon, entries still queued
// are not written and their outcomes not delivered; otherwise they are
// written and delivered first (their done errors are dropped: the caller
// has said it is done). It may run in any goroutine when abandon is set.
func (x *Extractor) stopQueue(abandon bool) {
	q := x.q.Load()
	if q == nil {
		return
	}
	if abandon {
		q.abandon.Store(true)
	} else {
		x.Flush()
	}
	q.mu.Lock()
	wasClosed := q.closed
	if !q.closed {
		q.closed = true
		close(q.todo)
	}
	q.mu.Unlock()
	if !wasClosed {
		<-q.stopped
	}
}

// queue returns the queue, starting the writer goroutine on first use.
func (x *Extractor) queue() *queue {
	if q := x.q.Load(); q != nil {
		return q
	}
	q := &queue{
		todo:     make(chan *batch, queueBatches),
		finished: make(chan *batch, queueBatches),
		stopped:  make(chan struct{}),
	}
	for range queueBatches {
		q.free = append(q.free, &batch{})
	}
	x.q.Store(q)
	go x.runWriter(q)
	return q
}

// runWriter writes the entries of each batch in order and hands the
// batch back.
func (x *Extractor) runWriter(q *queue) {
	defer close(q.stopped)
	for b := range q.todo {
		for i := range b.entries {
			j := &b.entries[i]
			if q.abandon.Load() {
				j.err = errAborted
				continue
			}
			x.capture = &j.warns
			q.rd.Reset(b.data[j.off:j.end])
			j.err = x.writeEntry(&j.entry, &q.rd)
			x.capture = nil
		}
		q.finished <- b
	}
}

// batch returns the batch being filled, taking a free one (after waiting
// for the writer to hand one back, if needed). Its error is that of a
// done call, or ErrCreate after Abort.
func (q *queue) batch(x *Extractor) (*batch, error) {
	q.mu.Lock()
	closed := q.closed
	q.mu.Unlock()
	if closed {
		return nil, createErr("extract", errAborted)
	}
	if q.cur != nil {
		return q.cur, nil
	}
	for len(q.free) == 0 {
		if _, err := q.receive(x, true); err != nil {
			return nil, err
		}
	}
	q.cur = q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	if q.cur.data == nil {
		q.cur.data = make([]byte, 0, batchCap)
	}
	return q.cur, nil
}

// submit hands the current batch to the writer. The send never blocks:
// todo has room for every batch there is.
func (q *queue) submit(x *Extractor) error {
	b := q.cur
	q.cur = nil
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		b.entries, b.data = b.entries[:0], b.data[:0]
		q.free = append(q.free, b)
		return createErr("extract", errAborted)
	}
	q.inFlight++
	q.todo <- b
	return nil
}

// collect delivers the batches the writer has handed back: those ready,
// or with wait all of them. It returns the first error of a done call.
func (q *queue) collect(x *Extractor, wait bool) error {
	var first error
	for q.inFlight > 0 {
		ready, err := q.receive(x, wait)
		if !ready {
			break
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// receive takes one batch back from the writer (waiting for it with
// wait; ready is false when none is there without), delivers its
// outcomes and frees it. err is the first error of a done call.
func (q *queue) receive(x *Extractor, wait bool) (ready bool, err error) {
	var b *batch
	if wait {
		b = <-q.finished
	} else {
		select {
		case b = <-q.finished:
		default:
			return false, nil
		}
	}
	q.inFlight--
	var first error
	for i := range b.entries {
		j := &b.entries[i]
		if j.err == errAborted {
			continue
		}
		if x.opts.Warn != nil {
			for _, w := range j.warns {
				x.opts.Warn(w.name, w.err)
			}
		}
		if err := j.done(&j.entry, j.err); err != nil && first == nil {
			first = err
		}
	}
	clear(b.entries)
	b.entries, b.data = b.entries[:0], b.data[:0]
	q.free = append(q.free, b)
	return true, first
}

// readUpTo appends what r yields to buf until io.EOF, an error, or limit
// bytes appended.
func readUpTo(buf []byte, r io.Reader, limit int) ([]byte, error) {
	end := len(buf) + limit
	for len(buf) < end {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), end)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// errorReader returns err.
type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }
