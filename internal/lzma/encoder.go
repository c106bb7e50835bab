package lzma

import (
	"context"
	"math/bits"
)

const debugChecks = false

// Encoder design
//
// The encoder turns the match finder's candidates into a sequence of
// symbols (a parse) and codes them with the range encoder. A symbol is
// kept as (len, dist) with the actual distance, not the rep index, so that
// it can be coded correctly whatever the model state is when it is
// emitted: a distance equal to one of rep0..rep3 is coded as that rep
// (unless the parser chose a match there: it priced the match, which it
// found cheaper than that rep), a one-byte symbol with distance rep0 as a
// short rep, anything else as a match or literal. That lets an LZMA2 chunk
// boundary (and the state reset after an uncompressed chunk) fall
// anywhere in a parse.
//
// Fast levels use a greedy parse with one position of lookahead (lazy
// matching). Normal and higher levels use price-based optimal parsing:
// from the current position, the cheapest way to reach each of the next
// positions (up to numOpts) is computed by dynamic programming over
// literals, short reps, rep matches and matches of every usable length,
// with prices taken from the current probabilities (bit prices in 1/16
// bit) and from length and distance price tables refreshed as the model
// adapts. The cheapest path is then emitted.

const (
	numOpts     = 1 << 12
	litMarker   = ^uint32(0)
	lookahead   = numOpts + maxMatchLen + 8
	chunkPacked = 1 << 16
	chunkUnpack = 1 << 21
)

// symbol is one parsed LZMA symbol: a literal (dist == litMarker, len 1),
// a short rep (len 1, dist = rep0) or a match of len >= 2 at distance
// dist (0-based). match is set when the parser priced the symbol as a
// match: it is then coded as one even if dist is one of the reps (7-Zip
// does the same). Coding it as that rep instead, as before, cost more than
// the parser had counted (the rep's index bits can cost more than a
// frequent short distance) and left reps that the rest of the parse had
// not assumed: 7z -mx5 of 4 MiB of numbers was 1.3 % larger.
type symbol struct {
	len, dist uint32
	match     bool
}

// encoder holds the LZMA model, the range encoder, a match finder and the
// parser state. It is reused for successive streams and blocks.
type encoder struct {
	lc, lp, pb     uint
	lpMask, pbMask uint32
	fast           bool
	composites     bool // optimal parser also tries literal+rep0 and match+literal+rep0
	nice           int
	dictSize       uint32
	probs          []uint16
	state          uint32
	reps           [4]uint32
	// litRun counts the literals coded in a row (since the last match or
	// the model's reset): the fast parser searches long runs sparsely.
	litRun int
	rc     rangeEncoder
	mf     *matchFinder
	mt     *mtFinder // pipelined match finder (Writer2 with threads), or nil

	ep   int   // buffer index of the next symbol to code
	spos int64 // stream position of ep since the last dictionary reset

	pend     []symbol
	pendIdx  int
	ms       []match
	next     []match // matches already found at mf.pos-1
	haveNext bool

	// Price tables.
	lenPrices     [2][posStatesMax][numLenSyms]uint32
	slotPrices    [numLenToPosState][64]uint32
	distPrices    [numLenToPosState][numFullDists]uint32
	alignPrices   [alignSize]uint32
	numSlots      int
	lenCount      int
	matchCount    int
	alignCount    int
	pricesInvalid bool
	opt           []optNode

	// Cancellation: ctx (nil: never) is polled when ep reaches checkAt,
	// every cancelCheckInterval positions.
	ctx     context.Context
	checkAt int
}

// cancelCheckInterval is how many input positions the encoder codes
// between two polls of its context: small enough that a cancellation is
// noticed within milliseconds even at the slowest settings, large enough
// that the poll costs nothing measurable.
const cancelCheckInterval = 1 << 16

// cancelled returns the context's error, wrapped, once it is done.
func (e *encoder) cancelled() error { return contextErr(e.ctx) }

func newEncoder(o *WriterOptions) *encoder {
	e := &encoder{
		lc: uint(o.LC), lp: uint(o.LP), pb: uint(o.PB),
		fast:     o.Algorithm == AlgorithmFast || o.Algorithm == AlgorithmByLevel && o.Level < 5,
		nice:     o.FastBytes,
		dictSize: o.DictSize,
		ctx:      o.Context,
	}
	// As in 7-Zip, every optimal parse takes the composite steps (their
	// cost and gain: docs/PERFORMANCE.md).
	e.composites = !e.fast
	e.lpMask = 1<<e.lp - 1
	e.pbMask = 1<<e.pb - 1
	e.probs = make([]uint16, numProbs(e.lc+e.lp))
	bt := o.finder.binaryTree()
	e.mf = newMatchFinder(bt, o.finder.hashBytes(), o.DictSize, o.FastBytes, o.Cycles)
	if !bt && o.Level <= fastGiveUpLevel {
		e.mf.giveUp = o.Cycles * fastGiveUp / 16
		e.mf.aheadGiveUp = max(o.Cycles*fastAheadGiveUp/16, 1)
	}
	e.ms = make([]match, 0, maxMatchLen+8)
	e.next = make([]match, 0, maxMatchLen+8)
	e.pend = make([]symbol, 0, numOpts+1)
	if !e.fast {
		e.opt = make([]optNode, numOpts+2*maxMatchLen+4)
	}
	e.numSlots = 2 * bits.Len32(o.DictSize)
	if e.numSlots < 8 {
		e.numSlots = 8
	}
	if e.numSlots > 64 {
		e.numSlots = 64
	}
	return e
}

// resetState resets the model (probabilities, state, reps).
func (e *encoder) resetState() {
	for i := range e.probs {
		e.probs[i] = probInit
	}
	e.state = 0
	e.reps = [4]uint32{}
	e.litRun = 0
	e.pricesInvalid = true
}

// resetStream starts a new stream over data (borrowed) with an empty
// dictionary.
func (e *encoder) resetStream(data []byte) { _ = e.resetBlock(data, 0, 0) }

// resetBlock starts a block over data (borrowed) whose first hist bytes
// are the history before it (the end of the previous block, already in
// the decoder's dictionary), at stream position spos since the last
// dictionary reset. The model starts afresh; the match finder is
// preloaded with the history.
func (e *encoder) resetBlock(data []byte, hist int, spos int64) error {
	e.resetState()
	e.mf.reset(data)
	e.ep = hist
	e.checkAt = hist + cancelCheckInterval
	e.spos = spos
	e.pend = e.pend[:0]
	e.pendIdx = 0
	e.haveNext = false
	e.rc.reset()
	return e.mf.preload(hist, min(hist, preloadFull), e.cancelled)
}

// encodeSome codes symbols until the input parsed so far is exhausted or
// the current chunk is full: packed size above maxPacked or maxUnpacked
// reached. With final false it also stops while less than lookahead bytes
// remain after the match finder's position. It returns an error only when
// the context is cancelled; the encoder must then be reset before reuse.
func (e *encoder) encodeSome(maxPacked int64, maxUnpacked int, final bool) error {
	if e.fast {
		return e.encodeFast(maxPacked, maxUnpacked, final)
	}
	start := e.ep
	for {
		if e.pendIdx == len(e.pend) {
			e.pend = e.pend[:0]
			e.pendIdx = 0
			if e.ep >= e.mf.end {
				return nil
			}
			if !final && e.mf.end-e.mf.pos < lookahead {
				return nil
			}
			if e.ep >= e.checkAt {
				e.checkAt = e.ep + cancelCheckInterval
				if err := e.cancelled(); err != nil {
					return err
				}
			}
			e.updatePrices()
			e.parseOptimal()
		}
		s := e.pend[e.pendIdx]
		if e.ep-start+int(s.len) > maxUnpacked {
			return nil
		}
		e.encodeSymbol(s)
		e.pendIdx++
		if e.rc.size() > maxPacked {
			return nil
		}
	}
}

// encodeFast is encodeSome for the fast parser, which decides one symbol
// at a time: each is coded as soon as it is parsed, without the queue of
// the optimal parser, and one that does not fit the chunk is held in
// e.pend for the next.
func (e *encoder) encodeFast(maxPacked int64, maxUnpacked int, final bool) error {
	start := e.ep
	if e.pendIdx < len(e.pend) {
		s := e.pend[e.pendIdx]
		if int(s.len) > maxUnpacked {
			return nil
		}
		e.encodeSymbol(s)
		if e.rc.size() > maxPacked {
			e.pend = e.pend[:0]
			e.pendIdx = 0
			return nil
		}
	}
	e.pend = e.pend[:0]
	e.pendIdx = 0
	mf := e.mf
	for e.ep < mf.end && (final || mf.end-mf.pos >= lookahead) {
		if e.ep >= e.checkAt {
			e.checkAt = e.ep + cancelCheckInterval
			if err := e.cancelled(); err != nil {
				return err
			}
		}
		l, d := e.parseFast()
		if e.ep-start+int(l) > maxUnpacked {
			e.pend = append(e.pend, symbol{len: l, dist: d})
			return nil
		}
		e.encodeSymbol(symbol{len: l, dist: d})
		if e.rc.size() > maxPacked {
			return nil
		}
	}
	return nil
}

// preloadFull is how much of a block's history is inserted into a binary
// tree as searching would (the rest enters the hash tables only): inserting
// all of it gains almost nothing in size for seconds of CPU time per block
// (docs/PERFORMANCE.md).
const preloadFull = 1 << 20
