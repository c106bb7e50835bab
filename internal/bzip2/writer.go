package bzip2

import (
	"errors"
	"fmt"
	"io"
)

// errWriterClosed is returned by Write after Close.
var errWriterClosed = errors.New("bzip2: write to a closed Writer")

// Writer compresses data into one bzip2 stream. Its buffers are allocated
// once and reused for every block and, after Reset, every stream: at
// level 9 about 11 MB of sorting buffers per thread, and 2 MB for each
// block collected or waiting to be written (threads + 1).
type Writer struct {
	w        io.Writer
	level    int
	maxBlock int // a block is complete once its RLE1 output reaches this
	threads  int

	cur   *blockEncoder   // collecting the current block
	queue []*blockEncoder // being encoded by other goroutines, in order
	spare []*blockEncoder
	// works are the encode buffers no block holds; a block takes one
	// for encode and gives it back once encoded, so there are never more
	// than threads of them (made counts them).
	works []*encodeWork
	made  int

	crc      uint32 // running CRC state of the current block
	runByte  int    // byte of the pending run, -1 for none
	runLen   int    // 0..255
	combined uint32 // stream CRC of the blocks emitted so far

	out    bitSink // stream bits not yet written to w
	err    error
	closed bool
}

// NewWriterThreads returns a Writer compressing into w with blocks of
// level × 100 000 bytes (level 1..9, as bzip2 -1 … -9; 9 compresses best),
// up to threads blocks at once by separate goroutines. The output is
// identical for any threads; each extra thread holds one more block
// encoder. threads < 2 means one goroutine. Nothing is written to w
// before the first block is complete or Close.
func NewWriterThreads(w io.Writer, level, threads int) (*Writer, error) {
	if level < 1 || level > 9 {
		return nil, fmt.Errorf("bzip2: invalid compression level %d (want 1..9)", level)
	}
	z := &Writer{
		level:    level,
		maxBlock: level*100000 - 19,
		threads:  max(threads, 1),
	}
	z.cur = newBlockEncoder(level * 100000)
	z.Reset(w)
	return z, nil
}

// Reset discards the Writer's state, including data not yet flushed, and
// makes it write a new stream to w with the same level and threads,
// keeping its buffers.
func (z *Writer) Reset(w io.Writer) {
	z.drain(false)
	z.w = w
	z.cur.block = z.cur.block[:0]
	clear(z.cur.inUse[:])
	z.crc = 0xffffffff
	z.runByte, z.runLen = -1, 0
	z.combined = 0
	z.out.reset()
	z.out.write(uint32('B')<<16|uint32('Z')<<8|uint32('h'), 24)
	z.out.write(uint32('0'+z.level), 8)
	z.err = nil
	z.closed = false
}

// Write compresses p. Data is buffered until a block is complete.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, errWriterClosed
	}
	// The initial run-length stage: a run of 4..255 equal bytes becomes
	// four copies and a count byte (0..251); shorter runs stay as they
	// are. A block is cut only after a complete run, so no run spans two
	// blocks.
	runByte, runLen := z.runByte, z.runLen
	for i, b := range p {
		if int(b) == runByte && runLen < 255 {
			runLen++
			continue
		}
		if runLen > 0 {
			z.addRun(byte(runByte), runLen)
			if len(z.cur.block) >= z.maxBlock {
				z.runByte, z.runLen = int(b), 1
				if err := z.endBlock(); err != nil {
					return i + 1, err
				}
			}
		}
		runByte, runLen = int(b), 1
	}
	z.runByte, z.runLen = runByte, runLen
	return len(p), nil
}

// addRun adds runLen copies of b to the current block and its CRC.
func (z *Writer) addRun(b byte, runLen int) {
	e := z.cur
	e.inUse[b] = true
	crc := z.crc
	t := &crcTables()[0]
	for range runLen {
		crc = crc<<8 ^ t[byte(crc>>24)^b]
	}
	z.crc = crc
	switch runLen {
	case 1:
		e.block = append(e.block, b)
	case 2:
		e.block = append(e.block, b, b)
	case 3:
		e.block = append(e.block, b, b, b)
	default:
		count := byte(runLen - 4)
		e.block = append(e.block, b, b, b, b, count)
		e.inUse[count] = true
	}
}

// endBlock hands the current block to an encoder and starts the next.
func (z *Writer) endBlock() error {
	e := z.cur
	e.crc = ^z.crc
	z.crc = 0xffffffff
	e.encodeWork = z.takeWork()
	if z.threads == 1 {
		e.encode()
		z.giveWork(e)
		err := z.emit(e)
		e.block = e.block[:0]
		clear(e.inUse[:])
		return err
	}
	if e.done == nil {
		e.done = make(chan struct{}, 1)
	}
	go e.encodeAsync()
	z.queue = append(z.queue, e)
	if n := len(z.spare); n > 0 {
		z.cur = z.spare[n-1]
		z.spare = z.spare[:n-1]
	} else {
		z.cur = newBlockEncoder(z.level * 100000)
	}
	if len(z.queue) >= z.threads {
		return z.emitOldest()
	}
	return nil
}

// takeWork returns encode buffers no block holds.
func (z *Writer) takeWork() *encodeWork {
	if n := len(z.works); n > 0 {
		w := z.works[n-1]
		z.works = z.works[:n-1]
		return w
	}
	z.made++
	return new(encodeWork)
}

// giveWork takes back the encode buffers of e, which has been encoded.
func (z *Writer) giveWork(e *blockEncoder) {
	z.works = append(z.works, e.encodeWork)
	e.encodeWork = nil
}

func (e *blockEncoder) encodeAsync() {
	e.encode()
	e.done <- struct{}{}
}

// emitOldest waits for the oldest block in flight and emits it.
func (z *Writer) emitOldest() error {
	e := z.queue[0]
	<-e.done
	z.giveWork(e)
	copy(z.queue, z.queue[1:])
	z.queue = z.queue[:len(z.queue)-1]
	err := z.emit(e)
	e.block = e.block[:0]
	clear(e.inUse[:])
	z.spare = append(z.spare, e)
	return err
}

// drain waits for the blocks in flight, emitting them if emit is set.
func (z *Writer) drain(emit bool) error {
	for len(z.queue) > 0 {
		if emit {
			if err := z.emitOldest(); err != nil {
				return err
			}
			continue
		}
		e := z.queue[0]
		<-e.done
		z.giveWork(e)
		copy(z.queue, z.queue[1:])
		z.queue = z.queue[:len(z.queue)-1]
		e.block = e.block[:0]
		clear(e.inUse[:])
		z.spare = append(z.spare, e)
	}
	z.queue = z.queue[:0]
	return nil
}

// emit appends an encoded block to the stream and writes the complete
// bytes to w.
func (z *Writer) emit(e *blockEncoder) error {
	if z.err != nil {
		return z.err
	}
	z.combined = (z.combined<<1 | z.combined>>31) ^ e.crc
	if want := len(e.out.b) + 16; cap(z.out.b) < want {
		// The stream's buffer holds one block at a time: sized like
		// the block's own, it is not replaced for every larger block.
		z.out.b = append(make([]byte, 0, max(want, cap(e.out.b)+16)), z.out.b...)
	}
	z.out.appendBits(e.out.b, e.bits)
	return z.flushOut()
}

func (z *Writer) flushOut() error {
	if _, err := z.w.Write(z.out.takeBytes()); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Close compresses the buffered data and writes the end of the stream
// (the end-of-stream marker and the combined CRC). It does not close the
// underlying writer. Close after Close does nothing.
func (z *Writer) Close() error {
	if z.closed {
		return z.err
	}
	z.closed = true
	if z.err != nil {
		z.drain(false)
		return z.err
	}
	if z.runLen > 0 {
		z.addRun(byte(z.runByte), z.runLen)
		z.runByte, z.runLen = -1, 0
	}
	if len(z.cur.block) > 0 {
		if err := z.endBlock(); err != nil {
			z.drain(false)
			return err
		}
	}
	if err := z.drain(true); err != nil {
		z.drain(false)
		return err
	}
	z.out.write48(endMagic)
	z.out.write(z.combined, 32)
	z.out.flushPartial()
	return z.flushOut()
}
