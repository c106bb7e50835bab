package lzma

// stepKind is the kind of step by which the optimal parser reaches a
// position.
type stepKind uint8

const (
	stepNone      stepKind = iota // no step (the composite step without a first symbol)
	stepLiteral                   // a literal
	stepShortRep                  // a one-byte rep0 match
	stepRep                       // a rep match of length >= 2
	stepMatch                     // a match of length >= 2
	stepComposite                 // first symbol (optional), literal, rep0 match
)

// optNode is a position of the optimal parse: the cheapest known way to
// reach it, as a step of kind and length len from node cur-len (so
// nodes need no back link and stay 32 bytes). A composite step is an
// optional first symbol (first: stepRep, stepMatch or stepNone) of length
// len1 and distance dist, then a literal, then a rep0 match; len is the
// total length.
type optNode struct {
	price uint32
	dist  uint32
	len   uint16
	len1  uint16
	kind  stepKind
	first stepKind
	state uint8
	reps  [4]uint32
}

// stepStates[k][s] is the state after a step of kind k from state s,
// looked up rather than branched on (the parser derives a state at every
// position). A composite step ends with a rep after a literal, whatever
// its first symbol.
var stepStates = func() (t [8][16]uint8) {
	for s := uint32(0); s < numStates; s++ {
		t[stepLiteral][s] = uint8(stateAfterLit(s))
		t[stepShortRep][s] = uint8(stateAfterShortRep(s))
		t[stepRep][s] = uint8(stateAfterRep(s))
		t[stepMatch][s] = uint8(stateAfterMatch(s))
		t[stepComposite][s] = uint8(stateAfterRep(stateAfterLit(s)))
	}
	return t
}()

// repsAfterRep moves distance d (one of r) to the front.
func repsAfterRep(r [4]uint32, d uint32) [4]uint32 {
	switch d {
	case r[0]:
	case r[1]:
		r[0], r[1] = r[1], r[0]
	case r[2]:
		r[0], r[1], r[2] = r[2], r[0], r[1]
	default:
		r[0], r[1], r[2], r[3] = r[3], r[0], r[1], r[2]
	}
	return r
}

// parseOptimal appends the cheapest parse of the next positions.
func (e *encoder) parseOptimal() {
	mf := e.mf
	buf := mf.buf
	pos := e.ep // mf.pos is one further when matches were found ahead
	avail := mf.end - pos
	ms := e.findMatches()
	if avail < 2 {
		e.push(1, litMarker)
		return
	}
	limit := avail
	if limit > maxMatchLen {
		limit = maxMatchLen
	}
	sp := e.spos
	var repLens [4]int
	repMax := 0
	for i := 0; i < 4; i++ {
		repLens[i] = repLen(buf, pos, sp, e.reps[i], limit)
		if repLens[i] > repLens[repMax] {
			repMax = i
		}
	}
	if repLens[repMax] >= e.nice {
		e.push(uint32(repLens[repMax]), e.reps[repMax])
		e.skip(repLens[repMax] - 1)
		return
	}
	mainLen := 0
	if len(ms) > 0 {
		mainLen = int(ms[len(ms)-1].len)
		if mainLen >= e.nice {
			d := ms[len(ms)-1].dist
			l := e.extend(buf, pos, d, mainLen, limit)
			e.push(uint32(l), d)
			e.skip(l - 1)
			return
		}
	}
	curByte := buf[pos]
	hasRep0 := int64(e.reps[0]) < sp && int(e.reps[0]) < pos
	matchByte := ^curByte
	if hasRep0 {
		matchByte = buf[pos-int(e.reps[0])-1]
	}
	if mainLen < 2 && curByte != matchByte && repLens[repMax] < 2 {
		e.push(1, litMarker)
		return
	}

	opt := e.opt
	st := e.state
	posState := uint32(sp) & e.pbMask
	isM := e.probs[offIsMatch+int(st)<<4+int(posState)]
	opt[0] = optNode{state: uint8(st), reps: e.reps}
	opt[1] = optNode{price: bitPrice0(isM) + e.literalPrice(buf, pos, sp, st, e.reps[0]), kind: stepLiteral, len: 1, dist: litMarker}
	matchBase := bitPrice1(isM)
	repBase := matchBase + bitPrice1(e.probs[offIsRep+int(st)])
	if curByte == matchByte && hasRep0 {
		pr := repBase + bitPrice0(e.probs[offIsRepG0+int(st)]) + bitPrice0(e.probs[offIsRep0Long+int(st)<<4+int(posState)])
		if pr < opt[1].price {
			opt[1] = optNode{price: pr, kind: stepShortRep, len: 1, dist: e.reps[0]}
		}
	}
	end := mainLen
	if repLens[repMax] > end {
		end = repLens[repMax]
	}
	if end < 2 {
		s := opt[1]
		e.push(1, s.dist)
		return
	}
	for i := 2; i <= end; i++ {
		opt[i].price = infinity
	}
	for i := 0; i < 4; i++ {
		rl := repLens[i]
		if rl < 2 {
			continue
		}
		pr0 := repBase + e.repIndexPrice(i, st, posState)
		lp := &e.lenPrices[1][posState]
		for l := 2; l <= rl; l++ {
			pr := pr0 + lp[l-2]
			if pr < opt[l].price {
				opt[l] = optNode{price: pr, kind: stepRep, len: uint16(l), dist: e.reps[i]}
			}
		}
	}
	if mainLen >= 2 {
		normBase := matchBase + bitPrice0(e.probs[offIsRep+int(st)])
		l := 2
		if repLens[0] >= 2 {
			l = repLens[0] + 1
		}
		lp := &e.lenPrices[0][posState]
		mi := 0
		for ; l <= mainLen; l++ {
			for int(ms[mi].len) < l {
				mi++
			}
			d := ms[mi].dist
			pr := normBase + lp[l-2] + e.distPrice(d, uint32(l-2))
			if pr < opt[l].price {
				opt[l] = optNode{price: pr, kind: stepMatch, len: uint16(l), dist: d}
			}
		}
	}

	cur := 0
	for {
		cur++
		if cur >= end {
			e.backtrack(end)
			return
		}
		if cur >= numOpts {
			e.backtrack(cur)
			return
		}
		// Derive the state at cur from its best predecessor.
		n := &opt[cur]
		pn := &opt[cur-int(n.len)]
		nst := uint32(stepStates[n.kind&7][pn.state&15])
		n.reps = pn.reps
		switch n.kind {
		case stepRep:
			n.reps = repsAfterRep(n.reps, n.dist)
		case stepMatch:
			n.reps = [4]uint32{n.dist, pn.reps[0], pn.reps[1], pn.reps[2]}
		case stepComposite:
			switch n.first {
			case stepRep:
				n.reps = repsAfterRep(n.reps, n.dist)
			case stepMatch:
				n.reps = [4]uint32{n.dist, pn.reps[0], pn.reps[1], pn.reps[2]}
			}
		}
		n.state = uint8(nst)

		ms = e.findMatches()
		newLen := 0
		if len(ms) > 0 {
			newLen = int(ms[len(ms)-1].len)
		}
		if newLen >= e.nice {
			// Take the long match in the next step.
			e.next, e.ms = e.ms, e.next
			e.haveNext = true
			e.backtrack(cur)
			return
		}
		p := pos + cur
		csp := sp + int64(cur)
		cavail := mf.end - p
		climit := cavail
		if climit > maxMatchLen {
			climit = maxMatchLen
		}
		price := n.price
		cps := uint32(csp) & e.pbMask
		reps := n.reps
		cb := buf[p]
		crep0 := int64(reps[0]) < csp && int(reps[0]) < p
		mb := ^cb
		if crep0 {
			mb = buf[p-int(reps[0])-1]
		}
		isM := e.probs[offIsMatch+int(nst)<<4+int(cps)]
		nx := &opt[cur+1]
		if cur+1 > end {
			end = cur + 1
			nx.price = infinity
		}
		// Literal. As in 7-Zip, its price is not computed when it cannot
		// win: the next position is already reached and its byte is
		// rep0's (a short rep or a longer rep covers it), or the isMatch
		// bit alone costs more than the best way there.
		lit := price + bitPrice0(isM)
		haveLit, nextIsLit := false, false
		if !(nx.price < infinity && mb == cb) && lit <= nx.price {
			haveLit = true
			lit += e.literalPrice(buf, p, csp, nst, reps[0])
			if lit < nx.price {
				nx.setStep(lit, stepLiteral, 1, litMarker)
				nextIsLit = true
			}
		}
		mBase := price + bitPrice1(isM)
		rBase := mBase + bitPrice1(e.probs[offIsRep+int(nst)])
		// Short rep, after a literal (7-Zip's rule: after a match or rep
		// the matched literal codes the same byte about as cheaply).
		if mb == cb && afterLiteral(nst) && rBase < nx.price {
			pr := rBase + bitPrice0(e.probs[offIsRepG0+int(nst)]) + bitPrice0(e.probs[offIsRep0Long+int(nst)<<4+int(cps)])
			if pr < nx.price {
				nx.setStep(pr, stepShortRep, 1, reps[0])
				nextIsLit = false
			}
		}
		if climit < 2 {
			continue
		}
		// Literal, then rep0: only when the literal is not already the
		// best way to the next position, from where rep0 is tried anyway.
		if e.composites && haveLit && !nextIsLit && crep0 && mb != cb && cavail > 2 && twoMatch(buf, p+1, reps[0]) {
			if l2 := e.tailRep0(buf, p+1, reps[0], cavail-1); l2 >= 2 {
				pr := lit + e.rep0Price(stateAfterLit(nst), csp+1, l2)
				e.relaxComposite(cur, &end, pr, stepNone, 0, reps[0], 1+l2)
			}
		}
		// Rep and match lengths stop at the nice length, as 7-Zip's
		// numAvail: a longer one is taken whole at the next parse.
		rlimit := min(climit, e.nice)
		start := 2
		lpr := &e.lenPrices[1][cps]
		for i := 0; i < 4; i++ {
			// repLen with its first tests in line (most reps fail them).
			r := reps[i]
			if int64(r) >= csp || int(r) >= p || !twoMatch(buf, p, r) {
				continue
			}
			rl := 2 + matchLen(buf, p+2, p+1-int(r), rlimit-2)
			for end < cur+rl {
				end++
				opt[end].price = infinity
			}
			pr0 := rBase + e.repIndexPrice(i, nst, cps)
			// Lengths rl down to 2, over views of equal length (no
			// bounds checks in the loop).
			os := opt[cur+2 : cur+rl+1]
			lps := lpr[:len(os)]
			for k := len(os) - 1; k >= 0; k-- {
				pr := pr0 + lps[k]
				if o := &os[k]; pr < o.price {
					o.setStep(pr, stepRep, k+2, reps[i])
				}
			}
			// Rep, literal, rep0.
			if e.composites && rl+2 < cavail && twoMatch(buf, p+rl+1, reps[i]) {
				if l2 := e.tailRep0(buf, p+rl+1, reps[i], cavail-rl-1); l2 >= 2 {
					s1 := stateAfterRep(nst)
					pr := pr0 + lpr[rl-2] + e.litAfter(buf, p+rl, csp+int64(rl), s1, reps[i]) +
						e.rep0Price(stateAfterLit(s1), csp+int64(rl)+1, l2)
					e.relaxComposite(cur, &end, pr, stepRep, rl, reps[i], rl+1+l2)
				}
			}
			if i == 0 {
				start = rl + 1
			}
		}
		if newLen >= start {
			for end < cur+newLen {
				end++
				opt[end].price = infinity
			}
			normBase := mBase + bitPrice0(e.probs[offIsRep+int(nst)])
			lpm := &e.lenPrices[0][cps]
			l := start
			for _, m := range ms {
				ml := int(m.len)
				if ml < l {
					continue
				}
				d := m.dist
				// The distance's price per length class: a table entry for
				// the small ones, slot and aligned bits for the others.
				var dp [numLenToPosState]uint32
				if d < numFullDists {
					for ls := range dp {
						dp[ls] = e.distPrices[ls][d]
					}
				} else {
					slot, al := getSlot(d), e.alignPrices[d&(alignSize-1)]
					for ls := range dp {
						dp[ls] = e.slotPrices[ls][slot&63] + al
					}
				}
				// Lengths 2 to 4 have a length class each; from 5 on the
				// distance's price is one, and the loop runs over views of
				// equal length (no bounds checks).
				for ; l <= ml && l < numLenToPosState+2; l++ {
					pr := normBase + lpm[l-2] + dp[(l-2)&(numLenToPosState-1)]
					if o := &opt[cur+l]; pr < o.price {
						o.setStep(pr, stepMatch, l, d)
					}
				}
				if l <= ml {
					base := normBase + dp[numLenToPosState-1]
					os := opt[cur+l : cur+ml+1]
					lps := lpm[l-2 : ml-1]
					lps = lps[:len(os)]
					for k := range os {
						if pr := base + lps[k]; pr < os[k].price {
							os[k].setStep(pr, stepMatch, l+k, d)
						}
					}
					l = ml + 1
				}
				// Match, literal, rep0 (at the full length of each distance).
				if e.composites && ml+2 < cavail && twoMatch(buf, p+ml+1, d) {
					if l2 := e.tailRep0(buf, p+ml+1, d, cavail-ml-1); l2 >= 2 {
						s1 := stateAfterMatch(nst)
						pr := normBase + lpm[ml-2] + dp[min(ml-2, numLenToPosState-1)&(numLenToPosState-1)] +
							e.litAfter(buf, p+ml, csp+int64(ml), s1, d) +
							e.rep0Price(stateAfterLit(s1), csp+int64(ml)+1, l2)
						e.relaxComposite(cur, &end, pr, stepMatch, ml, d, ml+1+l2)
					}
				}
			}
		}
	}
}

// setStep records a step of kind and length l.
func (n *optNode) setStep(price uint32, kind stepKind, l int, dist uint32) {
	n.price = price
	n.kind = kind
	n.len = uint16(l)
	n.dist = dist
}

// tailRep0 returns the length of the match at q with 0-based distance
// dist, limited to avail and the nice length, or 0 if shorter than 2.
func (e *encoder) tailRep0(buf []byte, q int, dist uint32, avail int) int {
	limit := min(avail, e.nice)
	j := q - int(dist) - 1
	if limit < 2 || buf[q] != buf[j] || buf[q+1] != buf[j+1] {
		return 0
	}
	return 2 + matchLen(buf, q+2, j+2, limit-2)
}

// twoMatch reports whether the two bytes at q equal those dist+1 before
// (q+1 within buf): the inlined first test before tailRep0, which most
// candidates fail.
func twoMatch(buf []byte, q int, dist uint32) bool {
	j := q - int(dist) - 1
	return buf[q] == buf[j] && buf[q+1] == buf[j+1]
}

// litAfter is the price of a literal (with its isMatch bit) at q in state st.
func (e *encoder) litAfter(buf []byte, q int, sp int64, st, rep0 uint32) uint32 {
	ps := uint32(sp) & e.pbMask
	return bitPrice0(e.probs[offIsMatch+int(st)<<4+int(ps)]) + e.literalPrice(buf, q, sp, st, rep0)
}

// rep0Price is the price of a rep0 match of length l in state st.
func (e *encoder) rep0Price(st uint32, sp int64, l int) uint32 {
	ps := uint32(sp) & e.pbMask
	return bitPrice1(e.probs[offIsMatch+int(st)<<4+int(ps)]) + bitPrice1(e.probs[offIsRep+int(st)]) +
		e.repIndexPrice(0, st, ps) + e.lenPrices[1][ps][l-2]
}

// relaxComposite offers a composite step from cur.
func (e *encoder) relaxComposite(cur int, end *int, price uint32, first stepKind, len1 int, dist uint32, total int) {
	opt := e.opt
	for *end < cur+total {
		*end++
		opt[*end].price = infinity
	}
	o := &opt[cur+total]
	if price < o.price {
		o.setStep(price, stepComposite, total, dist)
		o.first = first
		o.len1 = uint16(len1)
	}
}

// backtrack appends the cheapest path from opt[0] to opt[cur].
func (e *encoder) backtrack(cur int) {
	opt := e.opt
	start := len(e.pend)
	for i := cur; i > 0; i -= int(opt[i].len) {
		n := &opt[i]
		if n.kind == stepComposite {
			// Appended in reverse: rep0, literal, first symbol.
			e.pend = append(e.pend, symbol{len: uint32(n.len - n.len1 - 1), dist: n.dist}, symbol{len: 1, dist: litMarker})
			if n.first != stepNone {
				e.pend = append(e.pend, symbol{len: uint32(n.len1), dist: n.dist, match: n.first == stepMatch})
			}
			continue
		}
		e.pend = append(e.pend, symbol{len: uint32(n.len), dist: n.dist, match: n.kind == stepMatch})
	}
	s := e.pend[start:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
