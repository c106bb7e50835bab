package deflate

import "sync"

// RFC 1951 section 3.2.5: the 29 length codes (symbols 257…285) and the 30
// distance codes, each a base value and a number of extra bits.
const (
	minMatch    = 3
	maxMatch    = 258
	windowSize  = 1 << 15 // distances reach at most windowSize-1 here
	endOfBlock  = 256
	numLitLen   = 286 // literal/length symbols a block may use
	numDist     = 30  // distance symbols
	numCodeLen  = 19  // code length symbols
	maxCodeBits = 15  // longest literal/length or distance code
	maxCLBits   = 7   // longest code length code
)

var lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}

var lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

var distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}

var distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

// codeLenOrder is the order in which the code length code's lengths are
// sent (section 3.2.7).
var codeLenOrder = [numCodeLen]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// lenCode maps a match length (3…258) to its length code index (0…28);
// distCodeOf maps distance-1 (0…32767) to its distance code. NewWriter
// builds them (tablesOnce), not the package's initialization: most garc
// processes write no Deflate, and the 32 KiB table cost every start 8
// page faults.
var (
	lenCode    [maxMatch + 1]uint8
	distCodeOf [windowSize]uint8
	tablesOnce sync.Once
)

func buildTables() {
	buildFixed()
	for c := range lengthBase {
		hi := maxMatch
		if c+1 < len(lengthBase) {
			hi = int(lengthBase[c+1]) - 1
		}
		for l := int(lengthBase[c]); l <= hi; l++ {
			lenCode[l] = uint8(c)
		}
	}
	for c := range distBase {
		hi := windowSize
		if c+1 < len(distBase) {
			hi = int(distBase[c+1]) - 1
		}
		for d := int(distBase[c]); d <= hi; d++ {
			distCodeOf[d-1] = uint8(c)
		}
	}
}
