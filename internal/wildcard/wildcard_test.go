package wildcard

import (
	"path/filepath"
	"strings"
	"testing"
)

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

func TestPattern(t *testing.T) {
	for _, tc := range []struct {
		pat   string
		r     Recursion
		path  string
		isDir bool
		want  bool
	}{
		{"*.log", NotRecursive, "a.log", false, true},
		{"*.log", NotRecursive, "src/a.log", false, false},
		{"*.log", Recursive, "src/a.log", false, true},
		{"*.log", NotRecursive, "x.log/inner.txt", false, true}, // below a matched directory
		{"logs", Recursive, "src/logs/b.txt", false, true},
		{"logs/*.log", Recursive, "src/logs/b.log", false, false}, // "logs" is anchored
		{"logs/*.log", Recursive, "logs/deep/b.log", false, true},
		{"src/logs/", NotRecursive, "src/logs", true, true},
		{"src/logs/", NotRecursive, "src/logs", false, false}, // directories only
		{"src/logs/", NotRecursive, "src/logs/f", false, true},
		{`src\*.txt`, NotRecursive, "src/a.txt", false, filepath.Separator == '\\'}, // '\' separates on Windows only
		{`a\b`, NotRecursive, `a\b`, false, filepath.Separator != '\\'},
		{"lo?s", RecursiveWildcards, "a/logs", true, true},
		{"logs", RecursiveWildcards, "a/logs", true, false},
		{"", Recursive, "a", false, false},
	} {
		p := NewPattern(tc.pat, tc.r)
		if got := p.Match(strings.Split(tc.path, "/"), tc.isDir); got != tc.want {
			t.Errorf("%q (recursion %d) on %q dir=%v: %v, want %v", tc.pat, tc.r, tc.path, tc.isDir, got, tc.want)
		}
	}
}
