package bzip2

import "unsafe"

// Suffix sorting by induced sorting (SA-IS, Nong, Zhang and Chan 2009),
// linear in the text length whatever the text: repetitive input costs no
// more than random input.
//
// Suffixes are classified as S-type (smaller than the next suffix) or
// L-type (larger); an S-type suffix whose predecessor is L-type is a
// leftmost-S (LMS) suffix. Placing the LMS suffixes at the ends of their
// first-character buckets and sweeping twice (left to right inducing the
// L-type suffixes from their successors, right to left inducing the S-type
// ones) sorts the LMS substrings. Naming the LMS substrings by rank gives a
// text at most half as long, whose suffix array (recursively, or directly
// when the names are unique) orders the LMS suffixes; one more pair of
// sweeps from them sorts everything.

// saisWork holds the bucket arrays of the recursion (one per level, at
// most the alphabet plus the text length in total), reused between calls.
type saisWork struct {
	bkt   []int32
	bUsed int
}

// prepare makes room for sorting a text of n characters over an alphabet
// of k at the top level; when it must allocate, it makes room for texts
// of up to room characters (at least n).
func (ws *saisWork) prepare(n, k, room int) {
	if need := k + n + 64; cap(ws.bkt) < need {
		ws.bkt = make([]int32, k+max(n, room)+64)
	}
	ws.bkt = ws.bkt[:cap(ws.bkt)]
	ws.bUsed = 0
}

// saisSort stores in sa the suffix array of s, whose characters are below
// k and whose last character is a sentinel: 0, occurring nowhere else.
// len(sa) must equal len(s). While it runs, the type of each suffix is
// kept in the second-highest bit of its character (bit 14 of a uint16,
// bit 30 of an int32; the characters stay below it), so that one load
// gives both; s is restored before returning.
func saisSort[T uint16 | int32](s []T, sa []int32, k int, ws *saisWork) {
	n := len(s)
	if n == 1 {
		sa[0] = 0
		return
	}
	var zero T
	sBit := T(1) << (8*unsafe.Sizeof(zero) - 2)
	mask := sBit - 1
	bkt := ws.bkt[ws.bUsed : ws.bUsed+k]
	ws.bUsed += k
	defer func() { ws.bUsed -= k }()

	// Classify: the sentinel is S-type, and so is any suffix followed by
	// a larger one, or by an equal character and an S-type suffix.
	s[n-1] |= sBit
	for i := n - 2; i >= 0; i-- {
		c, next := s[i], s[i+1]
		if c < next&mask || (c == next&mask && next&sBit != 0) {
			s[i] = c | sBit
		}
	}
	isLMS := func(i int) bool { return i > 0 && s[i]&sBit != 0 && s[i-1]&sBit == 0 }

	// Stage 1: sort the LMS substrings.
	bucketEnds(s, bkt, mask)
	for i := range sa {
		sa[i] = -1
	}
	for i := 1; i < n; i++ {
		if isLMS(i) {
			c := s[i] & mask
			bkt[c]--
			sa[bkt[c]] = int32(i)
		}
	}
	induce(s, sa, bkt, sBit, mask)

	// Gather the sorted LMS positions at the front of sa.
	n1 := 0
	for _, p := range sa {
		if isLMS(int(p)) {
			sa[n1] = p
			n1++
		}
	}
	// Name them: equal LMS substrings (same characters and types up to
	// and including the next LMS position) get the same name. The name of
	// the substring at position p goes to sa[n1+p/2]: LMS positions are at
	// least two apart, so the slots are distinct.
	names := sa[n1:]
	for i := range names {
		names[i] = -1
	}
	name, prev := int32(-1), -1
	for i := range n1 {
		pos := int(sa[i])
		diff := prev < 0
		for d := 0; !diff; d++ {
			// Characters and types compare at once; once they agree
			// up to d, pos+d is an LMS position exactly when prev+d is.
			if s[pos+d] != s[prev+d] {
				diff = true
			} else if d > 0 && isLMS(pos+d) {
				break
			}
		}
		if diff {
			name++
			prev = pos
		}
		names[pos/2] = name
	}
	// Move the names to the end of sa, in text order: the reduced text.
	j := n - 1
	for i := n - 1; i >= n1; i-- {
		if sa[i] >= 0 {
			sa[j] = sa[i]
			j--
		}
	}
	s1 := sa[n-n1:]
	sa1 := sa[:n1]

	// Stage 2: order the LMS suffixes by the suffix array of the reduced
	// text.
	if int(name)+1 < n1 {
		saisSort(s1, sa1, int(name)+1, ws)
	} else {
		for i, c := range s1 {
			sa1[c] = int32(i)
		}
	}

	// Stage 3: map back to positions in s, put the sorted LMS suffixes at
	// their bucket ends, and induce the rest.
	j = 0
	for i := 1; i < n; i++ {
		if isLMS(i) {
			s1[j] = int32(i)
			j++
		}
	}
	for i := range sa1 {
		sa1[i] = s1[sa1[i]]
	}
	for i := n1; i < n; i++ {
		sa[i] = -1
	}
	bucketEnds(s, bkt, mask)
	for i := n1 - 1; i >= 0; i-- {
		p := sa[i]
		sa[i] = -1
		c := s[p] & mask
		bkt[c]--
		sa[bkt[c]] = p
	}
	induce(s, sa, bkt, sBit, mask)
	for i := range s {
		s[i] &= mask
	}
}

// bucketEnds sets bkt[c] to the end of character c's bucket.
func bucketEnds[T uint16 | int32](s []T, bkt []int32, mask T) {
	clear(bkt)
	for _, c := range s {
		bkt[c&mask]++
	}
	sum := int32(0)
	for i, c := range bkt {
		sum += c
		bkt[i] = sum
	}
}

// bucketStarts sets bkt[c] to the start of character c's bucket.
func bucketStarts[T uint16 | int32](s []T, bkt []int32, mask T) {
	clear(bkt)
	for _, c := range s {
		bkt[c&mask]++
	}
	sum := int32(0)
	for i, c := range bkt {
		bkt[i] = sum
		sum += c
	}
}

// induce sorts the L-type suffixes from the S-type ones placed in sa (a
// left-to-right sweep), then the S-type ones from the L-type ones (right to
// left).
func induce[T uint16 | int32](s []T, sa []int32, bkt []int32, sBit, mask T) {
	bucketStarts(s, bkt, mask)
	for i := 0; i < len(sa); i++ {
		j := sa[i] - 1
		if j < 0 {
			continue
		}
		if c := s[j]; c&sBit == 0 {
			sa[bkt[c]] = j
			bkt[c]++
		}
	}
	bucketEnds(s, bkt, mask)
	for i := len(sa) - 1; i >= 0; i-- {
		j := sa[i] - 1
		if j < 0 {
			continue
		}
		if c := s[j]; c&sBit != 0 {
			c &= mask
			bkt[c]--
			sa[bkt[c]] = j
		}
	}
}
