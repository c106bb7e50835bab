package lzma

// Model constants of LZMA (lzma-specification.txt, "The LZMA Decoder").
const (
	numStates        = 12
	posStatesMax     = 1 << 4
	probBits         = 11
	probOne          = 1 << probBits
	probInit         = probOne / 2
	moveBits         = 5
	rangeTop         = 1 << 24
	minMatchLen      = 2
	maxMatchLen      = 273
	lenLowSyms       = 8
	lenMidSyms       = 8
	lenHighSyms      = 256
	numLenSyms       = lenLowSyms + lenMidSyms + lenHighSyms
	numLenToPosState = 4
	numDistSlotBits  = 6
	numAlignBits     = 4
	alignSize        = 1 << numAlignBits
	startPosModel    = 4
	endPosModel      = 14
	numFullDists     = 1 << (endPosModel >> 1)
	literalCoderSize = 0x300
	minDictSize      = 1 << 12
	// maxSymbolInput bounds the input bytes one decoded symbol (plus the final
	// normalisation) can consume: every decoded bit reads at most one byte
	// and a match is at most 49 bits.
	maxSymbolInput = 64
)

// Layout of a length coder inside the probability array.
const (
	lenChoice   = 0
	lenChoice2  = 1
	lenLow      = 2
	lenMid      = lenLow + posStatesMax*lenLowSyms
	lenHigh     = lenMid + posStatesMax*lenMidSyms
	lenCoderLen = lenHigh + lenHighSyms
)

// Layout of the probability array shared by decoder and encoder: all
// adaptive bit models live in one []uint16, addressed by these offsets.
const (
	offIsMatch    = 0
	offIsRep      = offIsMatch + numStates*posStatesMax
	offIsRepG0    = offIsRep + numStates
	offIsRepG1    = offIsRepG0 + numStates
	offIsRepG2    = offIsRepG1 + numStates
	offIsRep0Long = offIsRepG2 + numStates
	offDistSlot   = offIsRep0Long + numStates*posStatesMax
	offDistSpec   = offDistSlot + numLenToPosState<<numDistSlotBits
	offAlign      = offDistSpec + numFullDists - endPosModel + 1
	offLenMatch   = offAlign + alignSize
	offLenRep     = offLenMatch + lenCoderLen
	offLiteral    = offLenRep + lenCoderLen
)

// numProbs returns the size of the probability array for lc+lp.
func numProbs(lclp uint) int { return offLiteral + literalCoderSize<<lclp }

// The coder state (0..numStates-1) remembers the kinds of the last few
// symbols; it selects the probabilities of the next symbol's flags. The
// states below numLitStates follow a literal (0: three literals in a row,
// up to 6: a literal after a match, rep or short rep); the others follow
// a match, a rep or a short rep, after a literal or after another
// non-literal. After a non-literal the next literal is coded against the
// byte at distance rep0 (the "match byte").
const (
	numLitStates          = 7
	stateMatchAfterLit    = 7  // a match after a literal
	stateRepAfterLit      = 8  // a rep match after a literal
	stateShortRepAfterLit = 9  // a short rep after a literal
	stateMatchAfterNonLit = 10 // a match after a non-literal
	stateRepAfterNonLit   = 11 // a rep or short rep after a non-literal
)

// afterLiteral reports whether state s follows a literal.
func afterLiteral(s uint32) bool { return s < numLitStates }

// State transitions after a literal, a match, a rep match and a short rep.
func stateAfterLit(s uint32) uint32 {
	switch {
	case s < 4:
		return 0
	case s < stateMatchAfterNonLit:
		return s - 3
	default:
		return s - 6
	}
}

func stateAfterMatch(s uint32) uint32 {
	if afterLiteral(s) {
		return stateMatchAfterLit
	}
	return stateMatchAfterNonLit
}

func stateAfterRep(s uint32) uint32 {
	if afterLiteral(s) {
		return stateRepAfterLit
	}
	return stateRepAfterNonLit
}

func stateAfterShortRep(s uint32) uint32 {
	if afterLiteral(s) {
		return stateShortRepAfterLit
	}
	return stateRepAfterNonLit
}

// lzma2DictSize decodes the LZMA2 dictionary-size property byte.
func lzma2DictSize(p byte) (uint32, bool) {
	if p > 40 {
		return 0, false
	}
	if p == 40 {
		return 0xFFFFFFFF, true
	}
	return (2 | uint32(p)&1) << (p/2 + 11), true
}

// decodeProps splits the lc/lp/pb property byte.
func decodeProps(b byte) (lc, lp, pb uint, ok bool) {
	if b >= 9*5*5 {
		return 0, 0, 0, false
	}
	lc = uint(b % 9)
	b /= 9
	lp = uint(b % 5)
	pb = uint(b / 5)
	return lc, lp, pb, true
}
