package sevenzip

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/garc-dev/garc/internal/lzma"
)

// Parallel decoding: with Options.Threads > 1, Extract decodes the wanted
// part of upcoming folders in background goroutines into memory while the
// caller consumes the current one. Memory is bounded by a byte budget; a
// folder whose wanted part does not fit the budget is decoded in the
// foreground, streaming, as without threads.

// prefetchBudget bounds the decoded bytes held in memory by prefetching.
// Decoder memory is bounded by the reader's budget (Options.Limit, plus
// the header's slack): prefetched data comes on top, and with the slack
// and the runtime must stay within the 256 MiB the process may use beyond
// the limit.
const prefetchBudget = 128 << 20

// maxAhead bounds the folders decoded ahead, per thread.
const maxAhead = 4

// prefetched is the background decoding of one folder.
type prefetched struct {
	folder  int
	need    int64 // bytes decoded: up to the end of the last wanted entry
	done    chan struct{}
	data    []byte
	openErr error // the folder could not be opened
	readErr error // decoding failed after len(data) bytes
}

// prefetcher runs the background decoding.
type prefetcher struct {
	rd       *Reader
	jobs     map[int]*prefetched
	order    []*prefetched
	mu       sync.Mutex
	cond     *sync.Cond
	budget   int64
	free     [][]byte // released buffers
	inFlight int      // jobs dispatched and not yet released
	stopped  bool
	wg       sync.WaitGroup
	cancel   context.CancelFunc
}

// errStopped ends background decoding when Extract returns.
var errStopped = errors.New("extraction stopped")

// startPrefetch plans and starts background decoding of the folders in
// need (folder index → bytes needed), in archive order.
func (rd *Reader) startPrefetch(ctx context.Context, folders []int, need map[int]int64, threads int) *prefetcher {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{rd: rd, jobs: map[int]*prefetched{}, budget: prefetchBudget, cancel: cancel}
	p.cond = sync.NewCond(&p.mu)
	for _, fo := range folders {
		n := need[fo]
		if n > prefetchBudget || rd.segmented(fo) {
			continue
		}
		j := &prefetched{folder: fo, need: n, done: make(chan struct{})}
		p.jobs[fo] = j
		p.order = append(p.order, j)
	}
	sem := make(chan struct{}, threads)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for _, j := range p.order {
			// Wait for budget and a free worker, in order.
			p.mu.Lock()
			for !p.stopped && (p.budget < j.need || p.inFlight >= maxAhead*threads) {
				p.cond.Wait()
			}
			p.inFlight++
			if p.stopped {
				p.mu.Unlock()
				p.failRest(j)
				return
			}
			p.budget -= j.need
			p.mu.Unlock()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				p.failRest(j)
				return
			}
			p.wg.Add(1)
			go func(j *prefetched) {
				defer p.wg.Done()
				defer func() { <-sem }()
				p.decode(ctx, j)
			}(j)
		}
	}()
	return p
}

// minSegmentedFolder is the smallest folder that segmented looks into:
// 7-Zip's multithreaded LZMA2 blocks and garc's are at least 1 MiB, and a
// Reader2 decodes in parallel only from the second segment on.
const minSegmentedFolder = 2 << 20

// segmented reports whether folder fo is an LZMA2 stream (under filters
// or none) that its decoder splits at dictionary resets and decodes on
// the threads itself (lzma.Reader2.SetThreads), streaming, in memory of a
// few of its blocks. Such a folder is decoded in the foreground, not
// prefetched whole into memory: two folders of 66 and 39 MB (a source
// tree, 7zz -mx1 -mmt2) held 141 MiB, and the fresh buffers' page faults
// cost a fifth of the CPU time.
func (rd *Reader) segmented(fo int) bool {
	f := &rd.hdr.main.folders[fo]
	if len(f.packed) != 1 || folderEncrypted(f) {
		return false
	}
	in := f.packed[0]
	for i := range f.coders {
		c := &f.coders[i]
		if in < c.inStart || in >= c.inStart+c.numIn {
			continue
		}
		if c.id != methodLZMA2 || c.numOut != 1 || c.outStart >= len(f.unpackSizes) ||
			f.unpackSizes[c.outStart] < minSegmentedFolder {
			return false
		}
		start := signatureHeaderSize + f.packOffset
		return lzma.Segmented(rd.ra, start, int64(rd.hdr.main.packSizes[f.firstPack()]))
	}
	return false
}

// failRest marks jobs from j on as stopped.
func (p *prefetcher) failRest(from *prefetched) {
	started := false
	for _, j := range p.order {
		if j == from {
			started = true
		}
		if started {
			j.openErr = errStopped
			close(j.done)
		}
	}
}

// decode runs one job.
func (p *prefetcher) decode(ctx context.Context, j *prefetched) {
	defer close(j.done)
	fs, err := p.rd.openFolderContext(ctx, j.folder)
	if err != nil {
		j.openErr = err
		return
	}
	defer fs.close()
	j.data = p.buffer(j.need)
	r := &ctxReader{ctx: ctx, r: fs.r}
	n, err := io.ReadFull(r, j.data)
	j.data = j.data[:n]
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = errShort
		}
		j.readErr = err
	}
}

// take returns the job of folder fo, waiting for it, or nil if the folder
// is not prefetched.
func (p *prefetcher) take(fo int) *prefetched {
	if p == nil {
		return nil
	}
	j := p.jobs[fo]
	if j == nil {
		return nil
	}
	<-j.done
	return j
}

// maxFreeBuffers bounds the released buffers kept for reuse.
const maxFreeBuffers = 8

// buffer returns a buffer of n bytes, reusing a released one if possible.
func (p *prefetcher) buffer(n int64) []byte {
	p.mu.Lock()
	for i, b := range p.free {
		if int64(cap(b)) >= n {
			p.free = append(p.free[:i], p.free[i+1:]...)
			p.mu.Unlock()
			return b[:n]
		}
	}
	p.mu.Unlock()
	return make([]byte, n)
}

// release returns a finished job's memory to the budget.
func (p *prefetcher) release(j *prefetched) {
	p.mu.Lock()
	p.budget += j.need
	p.inFlight--
	if j.data != nil && len(p.free) < maxFreeBuffers {
		p.free = append(p.free, j.data[:0])
	}
	j.data = nil
	p.cond.Broadcast()
	p.mu.Unlock()
}

// stop ends background decoding and waits for the goroutines.
func (p *prefetcher) stop() {
	p.cancel()
	p.mu.Lock()
	p.stopped = true
	p.cond.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
}

// ctxReader stops reading when the context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, errStopped
	}
	return c.r.Read(p)
}

// dataThenError yields data and then err (io.EOF when err is nil).
type dataThenError struct {
	data []byte
	err  error
}

func (d *dataThenError) Read(p []byte) (int, error) {
	if len(d.data) == 0 {
		if d.err == nil {
			return 0, io.EOF
		}
		return 0, d.err
	}
	n := copy(p, d.data)
	d.data = d.data[n:]
	return n, nil
}
