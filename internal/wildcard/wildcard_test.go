package wildcard

import "testing"

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"*", "anything", true},
		{"*", "", true},
		{"*.txt", "a.txt", true},
		{"*.txt", "a.txt.gz", false},
		{"*.*", "noext", false}, // 7-Zip: "*.*" needs a dot
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"*b*", "abc", true},
		{"A*", "abc", false}, // case-sensitive
		{"*x", "a*x", true},  // a '*' in the name is matched by the wildcard
		{"a*", "a*", true},
		{"a*b*c", "aXbYbZc", true},
		{"名*", "名前.txt", true},
		{"??", "名前", true}, // runes, not bytes
	} {
		if got := Match(tc.pat, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}
