package zstd

import "math/bits"

// The sequence codes (RFC 8878, 3.1.1.3.2.1.1): a literal length or a
// match length is a code and the code's extra bits over its baseline.
var (
	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16}
	mlBase = [53]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}
)

// llSmall and mlSmall are the codes of literal lengths below 64 and of
// match lengths below 131 (3 + 128), built by buildEncTables.
var llSmall, mlSmall []uint8

func smallCodes(base []uint32, n int) []uint8 {
	t := make([]uint8, n)
	c := 0
	for v := range t {
		for c+1 < len(base) && base[c+1] <= uint32(v) {
			c++
		}
		t[v] = uint8(c)
	}
	return t
}

func llCode(ll uint32) uint8 {
	if ll < 64 {
		return llSmall[ll]
	}
	return uint8(bits.Len32(ll)) - 1 + 19
}

func mlCode(ml uint32) uint8 {
	if ml < 131 {
		return mlSmall[ml]
	}
	return uint8(bits.Len32(ml-3)) - 1 + 36
}

// The predefined distributions (RFC 8878, 3.1.1.3.2.2): their accuracy
// logs and normalized counts.
var (
	llDefault = []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
		-1, -1, -1, -1}
	mlDefault = []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	ofDefault = []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
)

// The largest accuracy logs of the three kinds of code.
const (
	llMaxLog = 9
	mlMaxLog = 9
	ofMaxLog = 8
)

// The coding tables of the predefined distributions, built by
// buildEncTables.
var llDefaultTable, mlDefaultTable, ofDefaultTable *cTable

// fseSym is how a symbol is coded from any state: the bits a state gives
// out are (state + deltaBits) >> 16, and the next state is
// states[(state >> those bits) + deltaState].
type fseSym struct {
	deltaBits  uint32
	deltaState int32
}

// cTable is an FSE coding table of states tableSize…2*tableSize-1.
type cTable struct {
	log    uint8
	norm   []int16 // the normalized counts it was built from
	states []uint16
	syms   []fseSym
}

// newCTable builds the coding table of the normalized counts norm
// (-1: less than one) at accuracy log.
func newCTable(norm []int16, log uint8) *cTable {
	t := new(cTable)
	t.build(norm, log)
	return t
}

// build makes t the coding table of norm at accuracy log, reusing its
// memory: the symbols are spread over the states as the decoder spreads
// them.
func (t *cTable) build(norm []int16, log uint8) {
	size := 1 << log
	mask := size - 1
	t.log = log
	t.norm = append(t.norm[:0], norm...)
	t.states = grow(t.states, size)
	t.syms = grow(t.syms, len(norm))
	var spread [1 << llMaxLog]uint8
	var cumul [len(mlBase) + 1]int
	high := size - 1
	for s, n := range norm {
		if n == -1 {
			cumul[s+1] = cumul[s] + 1
			spread[high] = uint8(s)
			high--
		} else {
			cumul[s+1] = cumul[s] + int(n)
		}
	}
	step := size>>1 + size>>3 + 3
	pos := 0
	for s, n := range norm {
		for range max(int(n), 0) {
			spread[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	for u, s := range spread[:size] {
		t.states[cumul[s]] = uint16(size + u)
		cumul[s]++
	}
	total := 0
	for s, n := range norm {
		switch {
		case n == 0:
			t.syms[s] = fseSym{deltaBits: uint32((int(log)+1)<<16 - size)}
		case n == -1 || n == 1:
			t.syms[s] = fseSym{deltaBits: uint32(int(log)<<16 - size), deltaState: int32(total - 1)}
			total++
		default:
			out := int(log) - (bits.Len32(uint32(n-1)) - 1)
			t.syms[s] = fseSym{deltaBits: uint32(out<<16 - int(n)<<out), deltaState: int32(total - int(n))}
			total += int(n)
		}
	}
}

// grow returns s with length n, reallocated only when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// covers tells whether t can code every symbol of count.
func (t *cTable) covers(count []uint32) bool {
	for s, c := range count {
		if c > 0 && (s >= len(t.norm) || t.norm[s] == 0) {
			return false
		}
	}
	return true
}

// cost is the number of bits t codes count's symbols in, about.
func (t *cTable) cost(count []uint32) float64 { return normCost(t.norm, t.log, count) }

// normCost is the number of bits the normalized counts norm of accuracy
// log code count's symbols in, about: each takes log2 of its share.
func normCost(norm []int16, log uint8, count []uint32) float64 {
	bitsTotal := 0.0
	for s, c := range count {
		if c > 0 {
			n := max(norm[s], 1)
			bitsTotal += float64(c) * (float64(log) - log2s[n])
		}
	}
	return bitsTotal
}

// log2s are log2(n) of normalized counts up to 2^ofMaxLog's largest,
// built by buildEncTables.
var log2s []float64

// optimalLog picks the accuracy log of a table for total symbols of at
// most maxSym, as zstd's FSE_optimalTableLog does.
func optimalLog(maxLog int, total int, maxSym int) uint8 {
	log := maxLog
	maxBitsSrc := bits.Len32(uint32(total-1)) - 1 - 2
	minBitsSrc := bits.Len32(uint32(total)) - 1 + 1
	minBitsSym := bits.Len32(uint32(max(maxSym, 1))) - 1 + 2
	minBits := min(minBitsSrc, minBitsSym)
	if maxBitsSrc < log {
		log = maxBitsSrc
	}
	if minBits > log {
		log = minBits
	}
	return uint8(min(max(log, 5), maxLog))
}

// normalize scales count (total symbols in all) to 1<<log, every present
// symbol at least 1, into norm.
func normalize(norm []int16, count []uint32, total int, log uint8) {
	size := 1 << log
	sum := 0
	largest := 0
	for s, c := range count {
		if c == 0 {
			norm[s] = 0
			continue
		}
		n := int((uint64(c)<<log + uint64(total)/2) / uint64(total))
		n = max(n, 1)
		norm[s] = int16(n)
		sum += n
		if n > int(norm[largest]) {
			largest = s
		}
	}
	if d := size - sum; d >= 0 || int(norm[largest])+d > int(norm[largest])/2 {
		norm[largest] += int16(d)
		return
	}
	// Too many rounded up: take the excess from the largest, one at a time.
	for sum > size {
		big := 0
		for s := range norm {
			if norm[s] > norm[big] {
				big = s
			}
		}
		norm[big]--
		sum--
	}
}

// appendNCount writes norm's table description (RFC 8878, 4.1.1).
func appendNCount(out []byte, norm []int16, log uint8) []byte {
	size := 1 << log
	bitStream := uint32(log - 5)
	bitCount := uint(4)
	remaining := size + 1
	threshold := size
	nbBits := uint(log) + 1
	prev0 := false
	s := 0
	for s < len(norm) && remaining > 1 {
		if prev0 {
			start := s
			for s < len(norm) && norm[s] == 0 {
				s++
			}
			for s >= start+24 {
				start += 24
				bitStream += 0xFFFF << bitCount
				out = append(out, byte(bitStream), byte(bitStream>>8))
				bitStream >>= 16
			}
			for s >= start+3 {
				start += 3
				bitStream += 3 << bitCount
				bitCount += 2
			}
			bitStream += uint32(s-start) << bitCount
			bitCount += 2
			if bitCount > 16 {
				out = append(out, byte(bitStream), byte(bitStream>>8))
				bitStream >>= 16
				bitCount -= 16
			}
		}
		count := int(norm[s])
		s++
		maxV := 2*threshold - 1 - remaining
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		count++
		if count >= threshold {
			count += maxV
		}
		bitStream += uint32(count) << bitCount
		bitCount += nbBits
		if count < maxV {
			bitCount--
		}
		prev0 = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		if bitCount > 16 {
			out = append(out, byte(bitStream), byte(bitStream>>8))
			bitStream >>= 16
			bitCount -= 16
		}
	}
	out = append(out, byte(bitStream), byte(bitStream>>8))
	return out[:len(out)-2+int(bitCount+7)/8]
}
