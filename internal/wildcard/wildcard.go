// Package wildcard matches names against 7-Zip's wildcards, for selecting
// archive entries (internal/cli) and input files (internal/collect).
package wildcard

// Match matches one path component against a wildcard in which '*'
// stands for any run of characters and '?' for one character. Like
// 7-Zip, "*.*" needs a dot and matching is case-sensitive. A '*' or '?'
// in the pattern is always a wildcard, also where the name holds the same
// character.
func Match(pat, name string) bool {
	// Iterative matcher with single-star backtracking; runes, not bytes.
	p, n := []rune(pat), []rune(name)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
