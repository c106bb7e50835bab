package cli

import (
	"strings"
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

// FuzzNormalizeArgs checks that the normaliser never panics, keeps
// everything after "--" verbatim and never drops a positional argument.
func FuzzNormalizeArgs(f *testing.F) {
	f.Add("x -ofoo a.7z -- -y")
	f.Add("-p -mx9 a -m0=lzma2 -x!*.png b")
	f.Add("--password secret x a.7z")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		out := normalizeArgs(args)
		in := 0
		for i, a := range args {
			if a == "--" {
				tail := strings.Join(args[i:], " ")
				if !strings.HasSuffix(strings.Join(out, " "), tail) {
					t.Fatalf("%q: tail %q not kept in %q", args, tail, out)
				}
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				in++
			}
		}
		got := 0
		for _, a := range out {
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				got++
			}
		}
		if got < in-countValues(args) {
			t.Fatalf("%q → %q: positional arguments lost", args, out)
		}
	})
}

// countValues counts arguments consumed as flag values.
func countValues(args []string) int {
	n := 0
	for i, a := range args {
		if a == "--" {
			break
		}
		if (shortValueFlags[a] || strings.HasPrefix(a, "--") && valueFlags[strings.TrimPrefix(a, "--")]) && i+1 < len(args) {
			n++
		}
	}
	return n
}
