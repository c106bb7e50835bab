package cli

import (
	"testing"

	"github.com/garc-dev/garc/internal/wildcard"
)

// refMatch is a plain table-driven wildcard matcher to check wildcard.Match
// against.
func refMatch(p, n []rune) bool {
	// m[i][j]: p[i:] matches n[j:]. Filled from the ends, so that it
	// takes len(p)·len(n) steps whatever the number of stars (a plain
	// recursive reference is exponential in them).
	m := make([][]bool, len(p)+1)
	for i := range m {
		m[i] = make([]bool, len(n)+1)
	}
	m[len(p)][len(n)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(n); j >= 0; j-- {
			switch {
			case p[i] == '*':
				m[i][j] = m[i+1][j] || j < len(n) && m[i][j+1]
			case j == len(n):
				m[i][j] = false
			case p[i] == '?' || p[i] == n[j]:
				m[i][j] = m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}

func FuzzWildMatch(f *testing.F) {
	f.Add("*.txt", "a.txt")
	f.Add("a*b?c*", "aXbYcZ")
	f.Add("**?", "")
	f.Add("ü*?", "über")
	f.Fuzz(func(t *testing.T, pat, name string) {
		if len(pat) > 24 || len(name) > 48 {
			return // keep the reference matcher fast
		}
		if got, want := wildcard.Match(pat, name), refMatch([]rune(pat), []rune(name)); got != want {
			t.Fatalf("wildcard.Match(%q, %q) = %v, reference says %v", pat, name, got, want)
		}
	})
}
