package bzip2

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

// saisWork holds the scratch memory of the recursion, reused between calls:
// one type flag per character of every level (at most twice the top text
// length in total) and one bucket array per level.
type saisWork struct {
	types []bool
	bkt   []int32
	tUsed int
	bUsed int
}

// prepare makes room for sorting a text of n characters over an alphabet
// of k at the top level.
func (ws *saisWork) prepare(n, k int) {
	if cap(ws.types) < 2*n+2 {
		ws.types = make([]bool, 2*n+2)
	}
	ws.types = ws.types[:cap(ws.types)]
	if need := k + n + 64; cap(ws.bkt) < need {
		ws.bkt = make([]int32, need)
	}
	ws.bkt = ws.bkt[:cap(ws.bkt)]
	ws.tUsed, ws.bUsed = 0, 0
}

// saisSort stores in sa the suffix array of s, whose characters are below
// k and whose last character is a sentinel: 0, occurring nowhere else.
// len(sa) must equal len(s).
func saisSort[T uint16 | int32](s []T, sa []int32, k int, ws *saisWork) {
	n := len(s)
	if n == 1 {
		sa[0] = 0
		return
	}
	t := ws.types[ws.tUsed : ws.tUsed+n]
	bkt := ws.bkt[ws.bUsed : ws.bUsed+k]
	ws.tUsed += n
	ws.bUsed += k
	defer func() {
		ws.tUsed -= n
		ws.bUsed -= k
	}()

	// Classify: the sentinel is S-type, and so is any suffix followed by
	// a larger one, or by an equal character and an S-type suffix.
	t[n-1] = true
	for i := n - 2; i >= 0; i-- {
		t[i] = s[i] < s[i+1] || (s[i] == s[i+1] && t[i+1])
	}
	isLMS := func(i int) bool { return i > 0 && t[i] && !t[i-1] }

	// Stage 1: sort the LMS substrings.
	bucketEnds(s, bkt)
	for i := range sa {
		sa[i] = -1
	}
	for i := 1; i < n; i++ {
		if isLMS(i) {
			bkt[s[i]]--
			sa[bkt[s[i]]] = int32(i)
		}
	}
	induce(s, sa, t, bkt)

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
			if s[pos+d] != s[prev+d] || t[pos+d] != t[prev+d] {
				diff = true
			} else if d > 0 && (isLMS(pos+d) || isLMS(prev+d)) {
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
	bucketEnds(s, bkt)
	for i := n1 - 1; i >= 0; i-- {
		p := sa[i]
		sa[i] = -1
		bkt[s[p]]--
		sa[bkt[s[p]]] = p
	}
	induce(s, sa, t, bkt)
}

// bucketEnds sets bkt[c] to the end of character c's bucket.
func bucketEnds[T uint16 | int32](s []T, bkt []int32) {
	clear(bkt)
	for _, c := range s {
		bkt[c]++
	}
	sum := int32(0)
	for i, c := range bkt {
		sum += c
		bkt[i] = sum
	}
}

// bucketStarts sets bkt[c] to the start of character c's bucket.
func bucketStarts[T uint16 | int32](s []T, bkt []int32) {
	clear(bkt)
	for _, c := range s {
		bkt[c]++
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
func induce[T uint16 | int32](s []T, sa []int32, t []bool, bkt []int32) {
	bucketStarts(s, bkt)
	for i := 0; i < len(sa); i++ {
		j := sa[i] - 1
		if j >= 0 && !t[j] {
			c := s[j]
			sa[bkt[c]] = j
			bkt[c]++
		}
	}
	bucketEnds(s, bkt)
	for i := len(sa) - 1; i >= 0; i-- {
		j := sa[i] - 1
		if j >= 0 && t[j] {
			c := s[j]
			bkt[c]--
			sa[bkt[c]] = j
		}
	}
}
