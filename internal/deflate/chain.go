package deflate

// The fast levels (-mx1 … -mx4) find matches with hash chains: for every
// 3-byte hash the newest position, and for every position the previous
// one with the same hash, in a cyclic array indexed by position modulo
// the window. At -mx1 the parse is greedy: at each position the longest
// match the chain walk finds (the nearest of that length) is taken, and
// the positions it covers are only linked into their chains; -mx2 to
// -mx4 parse lazily (see lazy).

// chainHashBits sizes the chains' hash table: 64K heads (256 KiB), one
// per window position and more, so that a chain holds few strings of
// other hashes. 32K heads stayed in the cache better (-mx1 on 20 MB of
// decimal numbers 0.97x the CPU time) but their chains, twice as long on
// data without matches, cost 1.30x the CPU time on random bytes (-mx1
// 0.89x 7zz's with 64K, 1.16x with 32K), and 64K heads code every bench
// class a few hundred bytes smaller.
const chainHashBits = 16

// chainHash is the chains' hash of the 3 bytes of w at i.
func chainHash(w *window, i int) uint32 {
	v := uint32(load64(w, i)) & 0xffffff
	return (v * 2654435761) >> (32 - chainHashBits)
}

// chain is the hash-chain match finder over the encoder's buffer.
type chain struct {
	head  *[1 << chainHashBits]int32 // hash → newest position with that hash
	prev  *[windowSize]uint16        // cyclic slot → distance back to the previous position with its hash, 0 for none
	touch int32                      // sink of the load that brings the next head into the cache (finder.find)
	cut   bool                       // walks of this chunk end params.stale candidates after their last longer match
	walks int32                      // full walks of this chunk (not cut)
	late  int32                      // longer matches found lateGap or more candidates after the one before
	// The struct is written at every position (touch): padded to two
	// cache lines, so that the chains of two encoders running at once
	// (gzip's parallel blocks) never share a line. Unpadded, the 24-byte
	// structs were sometimes allocated side by side, and a two-thread
	// .tar.gz of 100 MB of Go sources took 3.0-3.4 s of CPU instead of
	// 2.1-2.4 s in about half the runs.
	_ [128 - 32]byte
}

func newChain() *chain {
	c := &chain{head: new([1 << chainHashBits]int32), prev: new([windowSize]uint16)}
	c.reset(nil, -1)
	return c
}

// reset empties the chains, as finder.reset the trees: a position's link
// is written when it joins its chain and a walk starts at a head, so only
// the heads are emptied, and with used ≥ 0 only those of the positions
// below used of w.
func (c *chain) reset(w *window, used int) {
	emptyHeads(c.head[:], w, used, chainHash)
	c.cut, c.walks, c.late = false, 0, 0
}

// slide moves every stored position delta bytes down, when the buffer
// drops its first delta bytes (the links are relative).
func (c *chain) slide(delta int32) {
	for i, p := range c.head {
		c.head[i] = max(p-delta, emptyPos)
	}
}

// Adaptive walks (params.stale): on input like a list of numbers, where
// every 3-byte string recurs all over the window and none beyond a few
// bytes, a walk finds its match among the first candidates and then
// visits the rest of its depth for nothing. Of the full walks of a chunk
// (every walk while cut is off, the sampled positions' while it is on),
// late counts the longer matches found lateGap or more candidates after
// the previous one: below one per params.share walks the walks of the
// next chunk end params.stale candidates after their last longer match.
// On `seq 1 10000000` late matches come in 0.5 % of the walks at -mx3
// and 1.4 % at -mx4, on Go sources and mixed data in 4 to 5 % at -mx3
// and 10 % at -mx4.
const (
	lateGap     = 16
	sampleBits  = 6
	sampleEvery = 1 << sampleBits
)

// sampled tells whether position i is one of the sampled positions, one
// in each sampleEvery: its place in the run varies from run to run, so
// that periodic input (lines of equal length) is still sampled at every
// phase.
func sampled(i int) bool {
	return uint32(i)&(sampleEvery-1) == uint32(i/sampleEvery)*0x9e3779b1>>(32-sampleBits)
}

// adapt decides from the walks of the chunk before whether this chunk's
// walks are cut, and starts counting anew.
func (c *chain) adapt(share int32) {
	c.cut = c.walks > 0 && c.late*share < c.walks
	c.walks, c.late = 0, 0
}

// link makes position p the newest of hash h.
func link(head *[1 << chainHashBits]int32, prev *[windowSize]uint16, h uint32, p int) {
	d := p - int(head[h])
	if d >= windowSize {
		d = 0
	}
	prev[p&(windowSize-1)] = uint16(d)
	head[h] = int32(p)
}

// longest links position pos of the buffer (which holds at least 3
// bytes from it, limit ≥ 3) into its chain and returns the longest match the walk finds, at
// most limit bytes (the nearest of that length), or a length below
// minMatch. A match of nice bytes, where the walk stops comparing, is
// extended at its distance as far as limit allows. The candidates are
// read through the window array (load16, matchLenAt), without bounds
// checks: the walk is most of the fast levels' time.
func (e *Writer) longest(pos, limit, depth int) (best, dist int) {
	const slotMask = windowSize - 1
	head, prev, win := e.ch.head, e.ch.prev, e.win
	h := chainHash(win, pos)
	c := int(head[h])
	link(head, prev, h, pos)
	e.ch.touch ^= head[chainHash(win, pos+1)]
	nice := min(limit, e.nice)
	best = minMatch - 1
	// A candidate can only be longer if it has the current string's two
	// bytes ending at best, and its first two bytes (the hash can
	// collide).
	want := load16(win, pos+best-1)
	start := load16(win, pos)
	oldest := pos - windowSize // positions from here on are out of reach
	for k := depth; k > 0 && c > oldest; k-- {
		if load16(win, c+best-1) == want && load16(win, c) == start {
			if l := matchLenAt(win, c, pos, 0, nice); l > best {
				best, dist = l, pos-c
				if l == nice {
					break
				}
				want = load16(win, pos+best-1)
			}
		}
		d := int(prev[c&slotMask])
		if d == 0 {
			break
		}
		c -= d
	}
	if best == nice && best < limit {
		best = matchLenAt(win, pos-dist, pos, best, limit)
	}
	return best, dist
}

// longestCut is longest for the adaptive walks (params.stale): the walk
// also ends stale candidates after the last longer match (or the start),
// and counts the late longer matches. It is a copy of longest, whose
// walk, without the cut's state, is a few percent faster (-mx1 and the
// gzip writer's).
func (e *Writer) longestCut(pos, limit, depth, stale int) (best, dist int) {
	const slotMask = windowSize - 1
	head, prev, win := e.ch.head, e.ch.prev, e.win
	h := chainHash(win, pos)
	c := int(head[h])
	link(head, prev, h, pos)
	e.ch.touch ^= head[chainHash(win, pos+1)]
	nice := min(limit, e.nice)
	best = minMatch - 1
	// A candidate can only be longer if it has the current string's two
	// bytes ending at best, and its first two bytes (the hash can
	// collide).
	want := load16(win, pos+best-1)
	start := load16(win, pos)
	oldest := pos - windowSize // positions from here on are out of reach
	last := depth              // k at the last longer match, or the start
	stop := max(last-stale, 0) // the walk goes on while k > stop
	for k := depth; k > stop && c > oldest; k-- {
		if load16(win, c+best-1) == want && load16(win, c) == start {
			if l := matchLenAt(win, c, pos, 0, nice); l > best {
				best, dist = l, pos-c
				if l == nice {
					break
				}
				want = load16(win, pos+best-1)
				if last-k >= lateGap {
					e.ch.late++
				}
				last = k
				stop = max(last-stale, 0)
			}
		}
		d := int(prev[c&slotMask])
		if d == 0 {
			break
		}
		c -= d
	}
	if best == nice && best < limit {
		best = matchLenAt(win, pos-dist, pos, best, limit)
	}
	return best, dist
}

// greedy parses the n positions from buf[base] (with lookahead up to end)
// into symbols, appended to out: at each position the longest match the
// chain walk finds, else a literal.
func (e *Writer) greedy(n, end int, out []uint32) []uint32 {
	buf := e.buf[:end]
	head, prev, win := e.ch.head, e.ch.prev, e.win
	for i := 0; i < n; {
		pos := e.base + i
		limit := min(maxMatch, end-pos)
		if limit < minMatch {
			out = append(out, uint32(buf[pos]))
			i++
			continue
		}
		best, dist := e.longest(pos, limit, e.p.depth)
		best = min(best, n-i) // not past the positions of this chunk
		if best < minMatch {
			out = append(out, uint32(buf[pos]))
			i++
			continue
		}
		out = append(out, uint32(best)<<16|uint32(dist))
		// Link the positions the match covers into their chains.
		stop := min(pos+best, end-minMatch+1)
		for p := pos + 1; p < stop; p++ {
			link(head, prev, chainHash(win, p), p)
		}
		i += best
	}
	return out
}

// lazy parses the n positions from buf[base] (with lookahead up to end)
// into symbols, appended to out, as zlib's slower levels do: a match
// shorter than the level's lazy length is only taken if the next
// position has no longer one; if it has, the current byte goes out as a
// literal and the same question is asked of the next match. The chain
// walk for that next position is cut to a quarter once the match in hand
// reaches the level's good length. A 3-byte match more than 4 KiB away
// costs more than its literals and is not taken.
func (e *Writer) lazy(n, end int, out []uint32) []uint32 {
	buf := e.buf[:end]
	head, prev, win := e.ch.head, e.ch.prev, e.win
	depth, lazyLen, good := e.p.depth, e.p.lazy, e.p.good
	e.ch.adapt(int32(e.p.share))
	match := func(pos, i, depth int) (int, int) {
		limit := min(maxMatch, end-pos)
		if limit < minMatch {
			return 0, 0
		}
		var best, dist int
		if e.p.stale == 0 {
			best, dist = e.longest(pos, limit, depth)
		} else {
			stale := depth
			if depth == e.p.depth {
				if e.ch.cut && !sampled(pos) {
					stale = e.p.stale
				} else {
					e.ch.walks++
				}
			}
			best, dist = e.longestCut(pos, limit, depth, stale)
		}
		best = min(best, n-i)
		if best < minMatch || best == minMatch && dist > 4096 {
			return 0, 0
		}
		return best, dist
	}
	i := 0
	best, dist := match(e.base, 0, depth)
	for i < n {
		pos := e.base + i
		if best == 0 {
			out = append(out, uint32(buf[pos]))
			i++
			if i < n {
				best, dist = match(pos+1, i, depth)
			}
			continue
		}
		// Position pos+1 is linked by the look ahead, if there is one.
		linked := pos + 1
		if best < lazyLen && i+1 < n {
			d := depth
			if best >= good {
				d = max(depth/4, 1)
			}
			next, nd := match(pos+1, i+1, d)
			linked = pos + 2
			if next > best {
				out = append(out, uint32(buf[pos]))
				i++
				best, dist = next, nd
				continue
			}
		}
		out = append(out, uint32(best)<<16|uint32(dist))
		stop := min(pos+best, end-minMatch+1)
		for p := linked; p < stop; p++ {
			link(head, prev, chainHash(win, p), p)
		}
		i += best
		best = 0
		if i < n {
			best, dist = match(e.base+i, i, depth)
		}
	}
	return out
}
