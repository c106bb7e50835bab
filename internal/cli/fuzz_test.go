package cli

import (
	"testing"

	"github.com/garc-dev/garc/internal/wildcard"
)

// refMatch is a plain recursive wildcard matcher to check wildcard.Match
// against.
func refMatch(p, n []rune) bool {
	if len(p) == 0 {
		return len(n) == 0
	}
	switch p[0] {
	case '*':
		for i := 0; i <= len(n); i++ {
			if refMatch(p[1:], n[i:]) {
				return true
			}
		}
		return false
	case '?':
		return len(n) > 0 && refMatch(p[1:], n[1:])
	}
	return len(n) > 0 && n[0] == p[0] && refMatch(p[1:], n[1:])
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
