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

// State transitions after a literal, a match, a rep match and a short rep.
func stateAfterLit(s uint32) uint32 {
	if s < 4 {
		return 0
	}
	if s < 10 {
		return s - 3
	}
	return s - 6
}

func stateAfterMatch(s uint32) uint32 {
	if s < 7 {
		return 7
	}
	return 10
}

func stateAfterRep(s uint32) uint32 {
	if s < 7 {
		return 8
	}
	return 11
}

func stateAfterShortRep(s uint32) uint32 {
	if s < 7 {
		return 9
	}
	return 11
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
