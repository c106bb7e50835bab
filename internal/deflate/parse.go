package deflate

import (
	"math"
	"math/bits"
)

// Prices are in sixteenths of a bit.
const priceScale = 16

// unseenBits is the most a symbol absent from the statistics costs.
const unseenBits = 4

// prices are the estimated costs of the symbols the parser may choose.
type prices struct {
	lit  [256]uint32
	dist [numDist]uint32 // distance symbol and extra bits
	// step is the price of a length (its symbol and extra bits) as an
	// increment of a parse state: price<<32 | length<<16.
	step [maxMatch + 1]uint64
}

// setFixed prices symbols at their lengths in the fixed code, for a first
// parse with no statistics to go by.
func (p *prices) setFixed() {
	for i := range p.lit {
		p.lit[i] = uint32(fixedLit[i]) * priceScale
	}
	for l := minMatch; l <= maxMatch; l++ {
		c := lenCode[l]
		p.step[l] = uint64((uint32(fixedLit[257+int(c)])+uint32(lengthExtra[c]))*priceScale)<<32 | uint64(l)<<16
	}
	for c := range p.dist {
		p.dist[c] = (5 + uint32(distExtra[c])) * priceScale
	}
}

// setFrom prices each symbol by the histogram h: at its information
// content, -log2 of its frequency's share, or with withCode the mean of
// that and the length of its code in the Huffman code of h (what the
// block would pay, in whole bits). Neither is always better: the mean
// parses text and executables smaller, since the information content
// ignores that a rare symbol still costs whole bits, but it can lead the
// parse of very regular input (a list of numbers) to a much worse fixed
// point, so the levels that parse several times alternate the two and
// keep the smallest parse. A symbol that did not occur is priced low
// enough for the next parse to try it.
func (p *prices) setFrom(h *histogram, hb *huffBuilder, withCode bool) {
	var litCost [numLitLen]uint32
	var distCost [numDist]uint32
	price(h.lit[:], litCost[:], hb, withCode)
	price(h.dist[:], distCost[:], hb, withCode)
	copy(p.lit[:], litCost[:256])
	for l := minMatch; l <= maxMatch; l++ {
		c := lenCode[l]
		p.step[l] = uint64(litCost[257+int(c)]+uint32(lengthExtra[c])*priceScale)<<32 | uint64(l)<<16
	}
	for c := range p.dist {
		p.dist[c] = distCost[c] + uint32(distExtra[c])*priceScale
	}
}

// unseenCodeBits stands for the code length of a symbol that did not
// occur.
const unseenCodeBits = 12

// price sets cost[s] to the price of symbol s under the frequencies freq
// (see setFrom).
func price(freq []uint32, cost []uint32, hb *huffBuilder, withCode bool) {
	var lens [numLitLen]uint8
	if withCode {
		hb.lengths(freq, lens[:len(freq)], maxCodeBits)
	}
	total := 0.0
	for _, f := range freq {
		total += float64(f)
	}
	if total == 0 {
		total = 1
	}
	lt := math.Log2(total)
	for s, f := range freq {
		// A symbol that did not occur is priced low, so that the next
		// parse tries it: priced as rare, matches the statistics have not
		// seen (new distances, say) would never be chosen again.
		v := min(lt+1, unseenBits)
		code := float64(unseenCodeBits)
		if f > 0 {
			v = lt - math.Log2(float64(f))
			code = float64(lens[s])
		}
		v = min(max(v, 1), maxCodeBits)
		if withCode {
			v = (v + code) / 2
		}
		cost[s] = uint32(v*priceScale + 0.5)
	}
}

// distCode is the code of distance d (1…32768), as distCodeOf[d-1] but
// computed, which saves the parse a load from a 32 KiB table: distances 1
// to 4 have a code each, the others two codes for each power of two of
// d-1, told apart by its second highest bit.
func distCode(d uint32) uint32 {
	x := d - 1
	s := uint32(max(bits.Len32(x), 2) - 2)
	return (s<<1 + x>>s) & 31
}

// parse finds the cheapest sequence of literals and matches, under
// prices p, for the input bytes a…b of the current chunk (indices into
// the chunk, whose first byte is buf[e.base]), and appends it to out. It
// is a shortest path over the positions: every position's cost is final
// when reached, and relaxes the position after it (a literal) and the
// positions each of its matches reaches, all lengths of a match
// considered except when the finder took a long match whole.
//
// A position's state is one word, cost<<32 | step, where step is the
// symbol that reaches it (0 for a literal), so that a relaxation is a
// minimum of two words, without a branch to mispredict; of two equally
// cheap steps the smaller symbol wins.
func (e *Writer) parse(a, b int, p *prices, out []uint32) []uint32 {
	n := b - a
	opt := e.opt[:n+1]
	opt[0] = 0
	for i := 1; i <= n; i++ {
		opt[i] = math.MaxUint64
	}
	data := e.buf[e.base+a : e.base+b]
	data = data[:n]
	nice := e.nice
	mbuf := e.mbuf
	midx := e.midx[a : b+1]
	// cur is opt[i], final when i is reached, carried in a register: the
	// matches from i reach i+3 and on, so opt[i+1] is final once the
	// literal has relaxed it.
	cur := uint64(0)
	for i := 0; i < n; i++ {
		c := cur >> 32
		cur = min(opt[i+1], (c+uint64(p.lit[data[i]]))<<32)
		opt[i+1] = cur
		ms := mbuf[midx[i]:midx[i+1]]
		if len(ms) == 0 {
			continue
		}
		rest := n - i
		prev := minMatch - 1
		for k, m := range ms {
			l := int(m >> 16)
			d := m & 0xffff
			dc := (c+uint64(p.dist[distCode(d)]))<<32 | uint64(d)
			lo := prev + 1
			clipped := l > rest
			if clipped {
				l = rest
			} else if l >= nice && k == len(ms)-1 {
				lo = l
			}
			if lo <= l {
				span := opt[i+lo : i+l+1]
				steps := p.step[lo : l+1]
				steps = steps[:len(span)]
				for j, st := range steps {
					span[j] = min(span[j], dc+st)
				}
			}
			if clipped {
				break
			}
			prev = l
		}
	}
	// Walk back from the end, then reverse the symbols found.
	start := len(out)
	for i := n; i > 0; {
		f := uint32(opt[i])
		if f == 0 {
			out = append(out, uint32(data[i-1]))
			i--
			continue
		}
		out = append(out, f)
		i -= int(f >> 16)
	}
	s := out[start:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return out
}
