package stream

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/hugemem"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// frameEncoder is what a zstdWriter needs of a frame's encoder: garc's
// own (internal/zstd) at the default levels, klauspost/compress's at the
// others.
type frameEncoder interface {
	Reset(w io.Writer)
	Write(p []byte) (int, error)
	Close() error
	EncodeAll(src, dst []byte) []byte
}

// newFrameEncoder returns the encoder of one thread at level.
func newFrameEncoder(level int) frameEncoder {
	l := ZstdLevel(level)
	if l == zstd.SpeedDefault {
		return ownzstd.NewEncoder(zstdWindow)
	}
	// The options are valid, so NewWriter cannot fail.
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true), zstd.WithWindowSize(zstdWindow), zstd.WithZeroFrames(true),
		zstd.WithAllLitEntropyCompression(true))
	return enc
}

// zstdWindow is the window at every level: 4 MiB. zstd -3 has 2 MiB, but
// klauspost/compress's encoder needs the larger window to come within 1 %
// of zstd -3's size on mixed data (on 100 MB: 2 MiB 1.013×, 4 MiB
// 1.009×); a larger one at the higher levels would enlarge the encoders'
// history, so the memory, for little. garc's own encoder (the default
// levels) takes the same.
const zstdWindow = 4 << 20

// zstdFrames is a frame's input size in windows: frames of 16 MiB, as
// `zstd -T` cuts its input into jobs of four windows.
const zstdFrames = 4

// zstdFrameSize is the input of one frame but the first, which has
// zstdFirstFrame; zstdChunk is the unit in which a zstdWriter hands its
// input to a frame's encoder and keeps the output of a frame that waits
// for the frames before it.
//
// The first frame is half the others, so that with two threads the
// second frame starts at once and ends half a frame after the first, as
// every frame after it does (the frames run half a frame apart): a second
// frame behind a whole one would start only once the writer had handed on
// all of the first, which it holds no more than 10 MiB of, leaving a core
// idle for a third of a frame.
const (
	zstdFrameSize  = zstdFrames * zstdWindow
	zstdFirstFrame = zstdFrameSize / 2
	zstdChunk      = 1 << 20
)

// zstdWriter writes a zstd stream as frames of zstdFrameSize bytes of
// input (the first zstdFirstFrame), each compressed by its own streaming encoder, up to --threads
// frames at once. The frames share no history (each starts with an empty
// window; on 100 MB of mixed data 0.14 % larger than klauspost's
// concurrent blocks, whose memory grows with the input), so that the
// stream is the same for any number of threads and a reader can decode
// the frames in parallel.
//
// Memory does not depend on the input's size, nor much on how
// compressible it is: the input goes to a frame's encoder in chunks of
// zstdChunk bytes, which it copies into its window and gives back, so
// that at most zstdInChunks chunks of input are held (10 MiB with two
// threads: the writer runs half a frame ahead, filling the next frame's
// encoder while the oldest works); a frame compressed before the frames
// ahead of it are written keeps its output in at most zstdOutChunks
// chunks per thread but one (the oldest frame writes straight to w), then
// waits for its turn: 14 MiB of chunks with two threads, made two to a
// huge page (chunkMemory) as they are needed. The encoders'
// windows come on top (8 MiB of history each). With one thread nothing is
// held: each chunk is compressed as it fills, straight to w.
//
// At the default levels (-mx3 to -mx5) the frames' encoders are garc's
// own (internal/zstd): on the bench's 100 MB classes against `tar c |
// zstd -T2 -3` mixed 0.994×, numbers 0.980×, logs 0.992×, source tree
// 0.985×, executables 0.999×, random 1.000×, runs 0.909×, UTF-16 1.008×
// (where the frames' boundaries fall moves these by up to half a percent:
// the half first frame took the source tree from 0.980× and executables
// from 1.005×; klauspost's SpeedDefault: 1.0065, 0.984, 0.9985, 0.992,
// 1.009, 1.000, 1.047, 1.022: it wrote ~80-byte blocks where a run makes
// zstd write RLE blocks of 4 bytes, and its tables lost on UTF-16), for
// 4 to 16 % less CPU time than klauspost's. At the other levels they are
// klauspost's, whose blocks without matches have their literals
// Huffman-coded, as zstd codes them at every level
// (WithAllLitEntropyCompression; below SpeedBetterCompression it would
// store them raw).
//
// A stream of less than one chunk is one frame compressed whole, with its
// content size (a small file needs no more window than its size to be
// decoded); a longer one has frames without their sizes, as zstd writes a
// stream it reads from a pipe.
type zstdWriter struct {
	w       io.Writer
	threads int
	chunk   []byte   // input being collected
	fill    int      // input of the current frame handed on
	frames  int      // frames ended
	job     *zstdJob // the frame being filled, nil between frames
	last    *zstdJob // the frame handed on last

	encs    chan frameEncoder // the idle encoders
	inPool  chan []byte       // input chunks: nil until made
	outPool chan []byte       // output chunks: nil until made
	made    atomic.Int64      // bytes of chunks made (the bound tests check)
	paired  bool              // chunks are made two to a huge page
	spareMu sync.Mutex
	spare   []byte // with paired: the second chunk of the last huge page

	mu  sync.Mutex
	err error // the first error of w or an encoder
}

func newZstdWriter(w io.Writer, o *WriterOptions) *zstdWriter {
	z := &zstdWriter{w: w, threads: max(o.Threads, 1)}
	z.encs = make(chan frameEncoder, z.threads)
	for range z.threads {
		z.encs <- newFrameEncoder(o.Level)
	}
	in, out := zstdPools(z.threads)
	z.paired = in+out > 1
	z.inPool, z.outPool = make(chan []byte, in), make(chan []byte, max(out, 1))
	for range in {
		z.inPool <- nil
	}
	for range out {
		z.outPool <- nil
	}
	return z
}

// zstdPools returns how many chunks of input and of output a writer of
// threads threads makes at most, whatever its input.
func zstdPools(threads int) (in, out int) {
	if threads <= 1 {
		return 1, 0
	}
	return zstdInChunks(threads), zstdOutChunks * (threads - 1)
}

// take takes a chunk from pool, making it the first time.
func (z *zstdWriter) take(pool chan []byte) []byte {
	return z.fresh(<-pool)
}

// fresh returns c, or a new chunk in place of nil.
func (z *zstdWriter) fresh(c []byte) []byte {
	if c == nil {
		c = z.chunkMemory()
		z.made.Add(zstdChunk)
	}
	return c
}

// chunkMemory returns a new empty chunk. A writer of several chunks
// makes them two to a huge page (hugemem), whose first touch is one page
// fault rather than 256 for a MiB.
func (z *zstdWriter) chunkMemory() []byte {
	if !z.paired {
		return make([]byte, 0, zstdChunk)
	}
	z.spareMu.Lock()
	defer z.spareMu.Unlock()
	if z.spare == nil {
		p := hugemem.Aligned(2 * zstdChunk)
		hugemem.Advise(p[:cap(p)])
		z.spare = p[zstdChunk : 2*zstdChunk : 2*zstdChunk]
		return p[:0:zstdChunk]
	}
	c := z.spare[:0]
	z.spare = nil
	return c
}

func (z *zstdWriter) failure() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.err
}

func (z *zstdWriter) fail(err error) {
	z.mu.Lock()
	if z.err == nil {
		z.err = err
	}
	z.mu.Unlock()
}

// write writes compressed bytes to w: only the frame whose turn it is
// calls it, once the frames before it are written.
func (z *zstdWriter) write(p []byte) error {
	if err := z.failure(); err != nil {
		return err
	}
	if _, err := z.w.Write(p); err != nil {
		z.fail(err)
		return err
	}
	return nil
}

func (z *zstdWriter) Write(p []byte) (int, error) {
	if err := z.failure(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		if z.chunk == nil {
			z.chunk = z.take(z.inPool)
		}
		k := min(zstdChunk-len(z.chunk), z.frameSize()-z.fill-len(z.chunk), len(p))
		z.chunk = append(z.chunk, p[:k]...)
		p = p[k:]
		if len(z.chunk) == zstdChunk || z.fill+len(z.chunk) == z.frameSize() {
			z.handOn()
		}
	}
	if err := z.failure(); err != nil {
		if z.job != nil {
			z.end() // its goroutine ends; Close waits for it
		}
		return 0, err
	}
	return n, nil
}

// handOn gives the collected chunk to the current frame's encoder,
// starting the frame first, and ends the frame when it is full.
func (z *zstdWriter) handOn() {
	if z.job == nil {
		z.job = z.start()
	}
	z.fill += len(z.chunk)
	if z.threads == 1 {
		z.job.encode(z.chunk)
		z.inPool <- z.chunk[:0]
	} else {
		z.job.in <- z.chunk
	}
	z.chunk = nil
	if z.fill == z.frameSize() {
		z.end()
	}
}

// frameSize is the input of the current frame.
func (z *zstdWriter) frameSize() int {
	if z.frames == 0 {
		return zstdFirstFrame
	}
	return zstdFrameSize
}

// start begins a frame with the next idle encoder: frames take the
// encoders in their order, so that the oldest frame always has one.
func (z *zstdWriter) start() *zstdJob {
	j := &zstdJob{z: z, enc: <-z.encs, done: make(chan struct{})}
	if z.last != nil {
		j.prev = z.last.done
	}
	j.turn = j.prev == nil
	j.enc.Reset(j)
	if z.threads > 1 {
		j.in = make(chan []byte, zstdFrameSize/zstdChunk)
		go j.run()
	}
	return j
}

// end ends the current frame.
func (z *zstdWriter) end() {
	j := z.job
	if z.threads == 1 {
		j.finish()
	} else {
		close(j.in)
	}
	z.last, z.job, z.fill = j, nil, 0
	z.frames++
}

// Close writes the last frame and waits for every frame; an empty input
// is one empty frame, as zstd writes it.
func (z *zstdWriter) Close() error {
	if z.last == nil && z.job == nil && z.failure() == nil {
		enc := <-z.encs
		err := z.write(enc.EncodeAll(z.chunk, nil))
		z.encs <- enc
		z.chunk = nil
		return err
	}
	if len(z.chunk) > 0 {
		z.handOn()
	}
	if z.job != nil {
		z.end()
	}
	if z.last != nil {
		<-z.last.done
	}
	return z.failure()
}

// zstdJob is one frame being compressed; it is the io.Writer its encoder
// writes to.
type zstdJob struct {
	z    *zstdWriter
	enc  frameEncoder
	in   chan []byte     // with threads: the frame's input, closed at its end
	prev <-chan struct{} // closed when the frame before is written
	done chan struct{}   // closed when this frame is written
	turn bool            // the frames before are written: write to w
	out  [][]byte        // output kept until the turn comes
	err  error
}

// run compresses the frame's input as it comes, giving each chunk back.
func (j *zstdJob) run() {
	for c := range j.in {
		j.encode(c)
		j.z.inPool <- c[:0]
	}
	j.finish()
}

// encode compresses the next input of the frame; after an error the
// input is only passed over.
func (j *zstdJob) encode(p []byte) {
	if j.err == nil {
		_, j.err = j.enc.Write(p)
	}
}

// finish ends the frame, gives the encoder back, waits for the turn and
// writes what was kept.
func (j *zstdJob) finish() {
	if j.err == nil {
		j.err = j.enc.Close()
	}
	j.z.encs <- j.enc
	j.enc = nil
	if !j.turn {
		<-j.prev
		j.flush()
	}
	if j.err != nil {
		j.z.fail(j.err)
	}
	close(j.done)
}

// flush writes the output kept before the turn came.
func (j *zstdJob) flush() {
	j.turn = true
	for _, c := range j.out {
		if err := j.z.write(c); err != nil && j.err == nil {
			j.err = err
		}
		j.z.outPool <- c[:0]
	}
	j.out = nil
}

// Write takes the encoder's output: to w once the frames before are
// written, else kept in chunks; when none is free it waits for the turn.
func (j *zstdJob) Write(p []byte) (int, error) {
	n := len(p)
	if !j.turn {
		select {
		case <-j.prev:
			j.flush()
		default:
		}
	}
	for !j.turn && len(p) > 0 {
		if k := len(j.out); k > 0 && len(j.out[k-1]) < zstdChunk {
			c := j.out[k-1]
			m := min(zstdChunk-len(c), len(p))
			j.out[k-1] = append(c, p[:m]...)
			p = p[m:]
			continue
		}
		select {
		case <-j.prev: // the turn first, when both are ready
			j.flush()
			continue
		default:
		}
		select {
		case <-j.prev:
			j.flush()
		case c := <-j.z.outPool:
			j.out = append(j.out, j.z.fresh(c))
		}
	}
	if len(p) > 0 {
		if err := j.z.write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// zstdOutChunks is how many chunks of output the frames may keep, per
// thread but one, while the frames before them are compressed: of the
// frames at work the oldest writes to w. On two threads the frames run
// half a frame apart, so the second keeps what it compresses from 8 MiB
// of input while the first ends: four chunks hold that on data that
// compresses to half, and made only as they are needed, they cost memory
// only on such data (2 MiB more than two chunks, which made the second
// frame wait for its turn on data compressing to more than a quarter: on
// 100 MB of a CSV table of numbers, 40 %, the coders waited 0.85 s of a
// 4.8 s run, under a load average of 15, and both ran 58 % of the time;
// with four chunks and the half first frame, 85 %).
const zstdOutChunks = 4

// zstdInChunks is how many chunks of input a writer of threads threads
// holds: the writer runs ahead of the oldest frame's encoder by up to
// (threads-1)/threads of a frame, so that the frames start that much of a
// frame apart (which also shortens the time a frame waits with its
// output for the one before it), and one chunk per thread.
func zstdInChunks(threads int) int {
	if threads <= 1 {
		return 1
	}
	return (threads-1)*zstdFrameSize/zstdChunk/threads + threads
}
