package lzma

import "errors"

// Streaming the blocks of one thread
//
// When Writer2 compresses one block at a time (one thread, or two with a
// binary-tree finder, whose second thread is the parallel finder's
// worker), it does not gather each block in a buffer of DictSize+BlockSize
// bytes: one encoder codes the blocks one after another as the input
// arrives, in a window of the dictionary, one chunk and some slack, which
// it slides (blockStream). Its memory is then the dictionary's (window
// and finder tables), whatever the input and block sizes. The blocks and
// chunks are the same as those compressBlock makes, so the output is the
// same for any thread count:
//
//   - a block still starts with a fresh model and a chunk that restates
//     the properties and resets the state;
//   - a hash-chain finder keeps its tables across a block boundary instead
//     of being reset and preloaded with the dictionary before the block.
//     That gives the same matches: a hash chain preloaded with the
//     history holds every position of the last DictSize bytes, linked as
//     in the continuous chain, and what the continuous tables hold beyond
//     them lies beyond the dictionary, where a search stops as it does at
//     an empty link. The only positions the continuous finder lacks are
//     the last hb-1 of the previous block, which it could not hash at the
//     block's end; they are inserted once the next block's bytes are
//     there, as the preload inserts them;
//   - a binary-tree finder's preload inserts only the history's last
//     positions into the trees, so a continuous finder would find other
//     matches: at a block boundary its tables are emptied (restart) and
//     the history, still in the window, is preloaded as compressBlock
//     preloads it, with no match reaching before the history (the
//     finder's base);
//   - the parallel finder's worker stops short of the input's end by the
//     nice length, so that every search sees the bytes a block's buffer
//     would give it; it is paused while the window slides and goes on
//     from where it was with the batches it had filled;
//   - a chunk's input stays in the window until the chunk is written, for
//     the case that it has to be stored.
//
// Besides the memory (at mx1 a window of 3.3 MiB against a block buffer
// of 8.25 MiB and the block's output; at mx5 35 MiB against 160 MiB),
// this saves re-inserting the dictionary at every block of a hash-chain
// level (4 MiB per 16 MiB block at mx3).

// streamSlack is the window space beyond the dictionary, a chunk and the
// parser's lookahead: how far the input moves between two slides.
const streamSlack = 1 << 20

// blockStream codes the blocks of a Writer2 one at a time as their
// input arrives (see above).
type blockStream struct {
	z   *Writer2
	e   *encoder // nil until the stream's first block starts
	win []byte   // win[:filled] is the input held
	// filled is how much of win holds input; winPos is the stream
	// position of win[0] and blockAt that of the current block's start.
	filled  int
	winPos  int64
	blockAt int64
	// chunkAt is the buffer index of the open chunk's first byte, or -1.
	chunkAt int
	// The resets the current block's next LZMA chunk must make, as in
	// compressBlock.
	needDict, needProps, needState bool
	out                            []byte // a chunk's header and data
}

// streamWindow is the window a blockStream needs: the dictionary, the
// largest chunk a block can hold, twice the lookahead and the slack.
func streamWindow(o *WriterOptions) int {
	return int(o.DictSize) + int(min(o.BlockSize, chunkUnpack)) + 2*lookahead + streamSlack
}

// newBlockStream returns z's blockStream, or nil when z compresses blocks
// in buffers: when it compresses several blocks at once. Blocks smaller than the window (mx1's 2 MiB)
// are streamed too: the window then holds a little more than a block
// buffer and its output (3.3 MiB against 2.7 MiB at mx1), but a buffered
// block re-inserts the dictionary before it, an eighth more insertions.
func newBlockStream(z *Writer2) *blockStream {
	if z.maxBlocks != 1 {
		return nil
	}
	s := &blockStream{z: z}
	s.reset()
	return s
}

// reset starts a new stream, giving the encoder of an unfinished one
// back.
func (s *blockStream) reset() {
	if s.e != nil {
		s.stopMT()
		s.z.free <- s.e
		s.e = nil
	}
	s.filled, s.winPos, s.blockAt, s.chunkAt = 0, 0, 0, -1
	s.needDict, s.needProps, s.needState = true, true, true
}

// write takes p into the window, coding and sliding it when it is full.
// It returns how much of p it took.
func (s *blockStream) write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.filled == len(s.win) {
			if err := s.makeRoom(); err != nil {
				s.stopMT() // no goroutine outlives a failed stream
				return n - len(p), err
			}
		}
		k := copy(s.win[s.filled:], p)
		s.filled += k
		p = p[k:]
	}
	return n, nil
}

// makeRoom grows the window while it is below its size (doubling from
// 64 KiB, so that a small stream takes little memory), and then codes
// what the input allows and slides the window.
func (s *blockStream) makeRoom() error {
	full := streamWindow(&s.z.opts)
	if len(s.win) < full {
		c := min(full, max(2*len(s.win), 64<<10))
		if c >= 1<<20 {
			c = full
		}
		nw := hugeBytes(c) // huge pages only for the full window
		s.z.blockBytes += c - len(s.win)
		copy(nw, s.win[:s.filled])
		s.win = nw
		return nil
	}
	if err := s.encode(false); err != nil {
		return err
	}
	e := s.e
	mf := e.mf
	if e.mt != nil {
		// The worker reads the window: it stops while the window
		// slides, and goes on from where it was (runMT).
		e.mt.pause()
	}
	// Keep the dictionary before the next symbol and the open chunk.
	cut := e.ep - int(e.dictSize) - 8
	if s.chunkAt >= 0 {
		cut = min(cut, s.chunkAt)
	}
	if cut <= 0 {
		return errors.New("lzma: internal error: stream window too small")
	}
	copy(s.win, s.win[cut:s.filled])
	s.filled -= cut
	s.winPos += int64(cut)
	if s.chunkAt >= 0 {
		s.chunkAt -= cut
	}
	mf.end -= cut
	mf.pos -= cut
	e.ep -= cut
	e.checkAt -= cut
	mf.delta += uint32(cut)
	mf.base -= min(mf.base, uint32(cut))
	var sub uint32
	if mf.delta > normalizeAt {
		sub = mf.normalize()
	}
	if e.mt != nil && e.mt.paused {
		e.mt.slide(cut, sub)
	}
	return nil
}

// runMT starts the parallel finder's worker at a block's start, or lets
// it go on over the input that arrived: up to the end of the block when
// complete is set, otherwise only over the positions whose search sees
// the same bytes as in a whole block's buffer (nice bytes ahead of them).
func (s *blockStream) runMT(complete bool) {
	e := s.e
	mf := e.mf
	last := mf.end - mf.hb + 1
	if !complete {
		last = mf.end - mf.nice + 1
	}
	if e.mt == nil {
		e.mt = newMTFinder()
	}
	e.mt.pause()
	if e.mt.paused {
		e.mt.resume(mf, last)
	} else {
		e.mt.start(mf, last)
	}
}

// stopMT ends the parallel finder's worker, if there is one.
func (s *blockStream) stopMT() {
	if s.e != nil && s.e.mt != nil {
		s.e.mt.stop()
	}
}

// close codes the rest of the input and gives the encoder back.
func (s *blockStream) close() error {
	err := s.encode(true)
	if s.e != nil {
		s.stopMT()
		s.z.free <- s.e
		s.e = nil
	}
	return err
}

// encode codes the blocks as far as the input allows: with final unset,
// up to the parser's lookahead before the end of the input held; with
// final set, to the end.
func (s *blockStream) encode(final bool) error {
	z := s.z
	bs := z.opts.BlockSize
	if s.e == nil {
		if s.filled == 0 {
			return nil // an empty stream
		}
		// The first block: with all the input in hand and no more than
		// a block of it, the encoder is sized as submit sizes a lone
		// block's.
		size := -1
		if final && int64(s.filled) <= bs {
			size = s.filled
		}
		s.e = z.getEncoder(size)
		if err := s.e.resetBlock(s.win, 0, 0); err != nil {
			return err
		}
	}
	e := s.e
	mf := e.mf
	for {
		blockEnd := int(s.blockAt + bs - s.winPos)
		end := min(s.filled, blockEnd)
		complete := final || s.filled >= blockEnd
		mf.end = end
		if z.mtOK {
			s.runMT(complete)
		}
		for e.ep < end {
			if s.chunkAt < 0 {
				s.chunkAt = e.ep
				e.rc.reset()
			}
			if err := e.encodeSome(chunkPacked-80, chunkUnpack-(e.ep-s.chunkAt), complete); err != nil {
				return err
			}
			if e.pendIdx < len(e.pend) || e.rc.size() > chunkPacked-80 || e.ep >= end {
				if err := s.writeChunk(); err != nil {
					return err
				}
				continue
			}
			return nil // waiting for input
		}
		if !complete || e.ep >= s.filled {
			return nil
		}
		if mf.bt && !final && s.filled-end < lookahead {
			// The next block's preload inserts the history's last
			// positions with the bytes after them.
			return nil
		}
		if mf.pos != end || e.haveNext {
			panic("lzma: block stream out of step")
		}
		s.blockAt += bs
		e.resetState()
		e.pend = e.pend[:0]
		e.pendIdx = 0
		s.needProps, s.needState = true, true
		if mf.bt {
			// The next block: a fresh model, and a finder emptied and
			// preloaded with the history before the block, exactly as
			// compressBlock preloads a block's buffer.
			s.stopMT()
			hist := int(min(int64(z.opts.DictSize), s.blockAt))
			mf.end = min(s.filled, int(s.blockAt+bs-s.winPos))
			mf.restart(end - hist)
			if err := mf.preload(end, min(hist, preloadFull), e.cancelled); err != nil {
				return err
			}
			continue
		}
		// The next block: a fresh model, and the previous block's last
		// positions, which could not be hashed at its end, go into the
		// finder now that the bytes after them are there.
		back := min(mf.hb-1, end)
		mf.pos -= back
		mf.cycPos = (mf.cycPos + mf.cyclic - uint32(back)) % mf.cyclic
		mf.end = min(s.filled, int(s.blockAt+bs-s.winPos))
		mf.skip(back)
	}
}

// writeChunk ends the open chunk and writes it as compressBlock would: an
// LZMA chunk, or stored chunks when LZMA did not shrink the input.
func (s *blockStream) writeChunk() error {
	e := s.e
	start := s.chunkAt
	s.chunkAt = -1
	u := e.ep - start
	e.rc.flush()
	packed := e.rc.out
	out := s.out[:0]
	if len(packed) < u && len(packed) <= chunkPacked {
		reset := 0
		switch {
		case s.needDict:
			reset = 3
		case s.needProps:
			reset = 2
		case s.needState:
			reset = 1
		}
		out = append(out, byte(0x80|reset<<5|(u-1)>>16), byte((u-1)>>8), byte(u-1),
			byte((len(packed)-1)>>8), byte(len(packed)-1))
		if reset >= 2 {
			out = append(out, byte((int(e.pb)*5+int(e.lp))*9+int(e.lc)))
		}
		out = append(out, packed...)
		s.needDict, s.needProps, s.needState = false, false, false
	} else {
		for p := start; p < e.ep; {
			n := min(e.ep-p, 1<<16)
			c := byte(2)
			if s.needDict {
				c = 1
				s.needDict = false
				s.needProps = true
			}
			out = append(out, c, byte((n-1)>>8), byte(n-1))
			out = append(out, s.win[p:p+n]...)
			p += n
		}
		e.resetState()
		s.needState = true
	}
	s.out = out
	_, err := s.z.w.Write(out)
	return err
}
