// Package wildcard matches names against 7-Zip's wildcards, for selecting
// archive entries (internal/cli) and input files (internal/collect).
package wildcard

import (
	"path/filepath"
	"strings"
)

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

// Recursion says at which depths a Pattern applies, as 7-Zip's switch
// suffixes do: -x!P follows the global -r (Recursive with -r, otherwise
// NotRecursive), -xr!P is Recursive, -xr-!P NotRecursive, -xr0!P
// RecursiveWildcards.
type Recursion int

// Recursion modes.
const (
	// NotRecursive anchors the pattern at the root: "*.log" matches
	// "a.log" and everything below a directory "x.log", not "src/a.log".
	NotRecursive Recursion = iota
	// Recursive lets the pattern match at any depth below its prefix.
	Recursive
	// RecursiveWildcards is Recursive for patterns that hold a wildcard
	// and NotRecursive for the others.
	RecursiveWildcards
)

// Pattern is one wildcard item of 7-Zip's file selection ("censor"), for
// -x!, -xr! and -i! patterns applied to paths. Its rules, checked against
// 7zz 26:
//
//   - A pattern is split into components at '/' and '\'. The leading
//     components without wildcards, except the last component, are a
//     prefix anchored at the root: "logs/*.log" applies below the
//     top-level "logs" only, even when recursive.
//   - The rest matches a run of consecutive components of the path below
//     the prefix: starting right after the prefix when not recursive, at
//     any depth when recursive.
//   - When the run ends before the path does, the run named a directory
//     that holds the path: the path matches too (an excluded directory
//     takes its contents with it). When the run ends at the last
//     component it matches the path itself.
//   - A pattern that ends with a separator matches only directories.
type Pattern struct {
	prefix    []string
	parts     []string
	recursive bool
	dirOnly   bool
}

// NewPattern compiles a 7-Zip wildcard with the given recursion. '/'
// separates its components, and on Windows '\' does too; elsewhere a
// '\' is a character, as it is in tar names and in the names of archives
// written there.
func NewPattern(text string, r Recursion) Pattern {
	t := text
	if filepath.Separator == '\\' {
		t = strings.ReplaceAll(t, `\`, "/")
	}
	dirOnly := strings.HasSuffix(t, "/")
	var comps []string
	for _, c := range strings.Split(t, "/") {
		if c != "" && c != "." {
			comps = append(comps, c)
		}
	}
	p := Pattern{dirOnly: dirOnly}
	for len(comps) > 1 && !hasWildcard(comps[0]) {
		p.prefix = append(p.prefix, comps[0])
		comps = comps[1:]
	}
	p.parts = comps
	switch r {
	case Recursive:
		p.recursive = true
	case RecursiveWildcards:
		p.recursive = hasWildcard(text)
	}
	return p
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// Match reports whether the path, given as its components from the root
// ("src/logs/a.log" as "src", "logs", "a.log"), is matched by p; isDir
// says whether the path is a directory.
func (p *Pattern) Match(comps []string, isDir bool) bool {
	if len(comps) < len(p.prefix) {
		return false
	}
	for i, c := range p.prefix {
		if comps[i] != c {
			return false
		}
	}
	rest := comps[len(p.prefix):]
	delta := len(rest) - len(p.parts)
	if delta < 0 || len(p.parts) == 0 {
		return false
	}
	last := 0
	if p.recursive {
		last = delta
	}
	for d := 0; d <= last; d++ {
		// d == delta: the run is the path itself; otherwise a directory
		// above it.
		if d == delta && p.dirOnly && !isDir {
			continue
		}
		ok := true
		for i, pp := range p.parts {
			if !Match(pp, rest[d+i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
