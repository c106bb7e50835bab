package deflate

import "math"

// Prices are in sixteenths of a bit.
const priceScale = 16

// unseenBits is the most a symbol absent from the statistics costs.
const unseenBits = 4

// prices are the estimated costs of the symbols the parser may choose.
type prices struct {
	lit  [256]uint32
	len  [maxMatch + 1]uint32 // length symbol and extra bits
	dist [numDist]uint32      // distance symbol and extra bits
}

// setFixed prices symbols at their lengths in the fixed code, for a first
// parse with no statistics to go by.
func (p *prices) setFixed() {
	for i := range p.lit {
		p.lit[i] = uint32(fixedLit[i]) * priceScale
	}
	for l := minMatch; l <= maxMatch; l++ {
		c := lenCode[l]
		p.len[l] = (uint32(fixedLit[257+int(c)]) + uint32(lengthExtra[c])) * priceScale
	}
	for c := range p.dist {
		p.dist[c] = (5 + uint32(distExtra[c])) * priceScale
	}
}

// setFrom prices each symbol at its information content in the histogram
// h, -log2 of its frequency's share; a symbol that did not occur is
// priced as if it had occurred half a time, at most unseenBits.
func (p *prices) setFrom(h *histogram) {
	var litCost [numLitLen]uint32
	var distCost [numDist]uint32
	entropy(h.lit[:], litCost[:])
	entropy(h.dist[:], distCost[:])
	copy(p.lit[:], litCost[:256])
	for l := minMatch; l <= maxMatch; l++ {
		c := lenCode[l]
		p.len[l] = litCost[257+int(c)] + uint32(lengthExtra[c])*priceScale
	}
	for c := range p.dist {
		p.dist[c] = distCost[c] + uint32(distExtra[c])*priceScale
	}
}

func entropy(freq []uint32, cost []uint32) {
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
		if f > 0 {
			v = lt - math.Log2(float64(f))
		}
		v = min(max(v, 1), maxCodeBits)
		cost[s] = uint32(v*priceScale + 0.5)
	}
}

// parse finds the cheapest sequence of literals and matches, under
// prices p, for the input bytes a…b of the current chunk (indices into
// the chunk, whose first byte is buf[e.base]), and appends it to out. It
// is a shortest path over the positions: every position's cost is final
// when reached, and relaxes the position after it (a literal) and the
// positions each of its matches reaches, all lengths of a match
// considered except when the finder took a long match whole.
func (e *Writer) parse(a, b int, p *prices, out []uint32) []uint32 {
	n := b - a
	cost := e.cost[:n+1]
	from := e.from[:n+1]
	cost[0] = 0
	for i := 1; i <= n; i++ {
		cost[i] = math.MaxUint32
	}
	data := e.buf[e.base+a : e.base+b]
	data = data[:n]
	nice := e.nice
	mbuf := e.mbuf
	midx := e.midx[a : b+1]
	for i := 0; i < n; i++ {
		c := cost[i]
		if v := c + p.lit[data[i]]; v < cost[i+1] {
			cost[i+1] = v
			from[i+1] = 0
		}
		ms := mbuf[midx[i]:midx[i+1]]
		if len(ms) == 0 {
			continue
		}
		rest := n - i
		prev := minMatch - 1
		for k, m := range ms {
			l := int(m >> 16)
			d := m & 0xffff
			dc := c + p.dist[distCodeOf[(d-1)&(windowSize-1)]]
			lo := prev + 1
			clipped := l > rest
			if clipped {
				l = rest
			} else if l >= nice && k == len(ms)-1 {
				lo = l
			}
			if lo <= l {
				cs := cost[i+lo : i+l+1]
				fs := from[i+lo : i+l+1]
				lp := p.len[lo : l+1]
				lp = lp[:len(cs)]
				fs = fs[:len(cs)]
				for k, pl := range lp {
					if v := dc + pl; v < cs[k] {
						cs[k] = v
						fs[k] = uint32(lo+k)<<16 | d
					}
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
		f := from[i]
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
