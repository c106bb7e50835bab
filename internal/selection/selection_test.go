package selection

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func TestSelector(t *testing.T) {
	names := []string{"a.txt", "b.png", "docs", "docs/c.txt", "docs/img/d.png", "src/docs/e.txt"}
	type test struct {
		inc, exc  string
		recursive bool
		want      string
	}
	tests := []test{
		{"", "", false, "a.txt b.png docs docs/c.txt docs/img/d.png src/docs/e.txt"},
		{"*.txt", "", false, "a.txt"},
		{"*.txt", "", true, "a.txt docs/c.txt src/docs/e.txt"},
		{"**/*.txt", "", false, "a.txt docs/c.txt src/docs/e.txt"},
		{"docs", "", false, "docs docs/c.txt docs/img/d.png"},
		{"docs", "", true, "docs docs/c.txt docs/img/d.png src/docs/e.txt"},
		{"docs/*.txt", "", false, "docs/c.txt"},
		{"docs/img", "", false, "docs/img/d.png"},
		{"", "*.png", false, "a.txt docs docs/c.txt docs/img/d.png src/docs/e.txt"}, // 7-Zip's -x!*.png: top level only
		{"", "**/*.png", false, "a.txt docs docs/c.txt src/docs/e.txt"},             // -xr!*.png
		{"", "*.png", true, "a.txt docs docs/c.txt src/docs/e.txt"},
		{"", "./*.png", true, "a.txt docs docs/c.txt docs/img/d.png src/docs/e.txt"}, // -xr-!*.png
		{"", "docs", false, "a.txt b.png src/docs/e.txt"},
		{"", "**/docs", false, "a.txt b.png"},
		{"**/docs/*.txt", "", false, "docs/c.txt"}, // a literal leading component is anchored
		{"", "docs/img", false, "a.txt b.png docs docs/c.txt src/docs/e.txt"},
		{"docs", "**/*.png", false, "docs docs/c.txt"},
		{"nothing", "", false, ""},
		{"./a.txt", "", false, "a.txt"},
	}
	if filepath.Separator == '\\' {
		tests = append(tests, test{"docs\\c.txt", "", false, "docs/c.txt"})
	} else {
		tests = append(tests, test{"docs\\c.txt", "", false, ""})
	}
	for _, tc := range tests {
		var inc, exc []string
		if tc.inc != "" {
			inc = []string{tc.inc}
		}
		if tc.exc != "" {
			exc = []string{tc.exc}
		}
		s, err := New(inc, exc, tc.recursive)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range names {
			if s.Want(&archive.Entry{Name: n}) {
				got = append(got, n)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("include %q exclude %q -r=%v: got %q, want %q", tc.inc, tc.exc, tc.recursive, g, tc.want)
		}
	}
}

func TestNoMatchMessage(t *testing.T) {
	var entries []*archive.Entry
	for _, n := range []string{"src", "src/a.txt", "src/docs/c.txt", "README"} {
		entries = append(entries, &archive.Entry{Name: n})
	}
	tests := []struct {
		includes, excludes []string
		recursive          bool
		extracting         bool
		want               string
	}{
		{[]string{"*.txt"}, nil, false, false,
			`a.7z: no files matched the patterns: nothing matches "*.txt" (matches 2 below the top level: patterns start at the archive root; -r or **/ matches at any depth)`},
		{[]string{"README", "out"}, nil, false, true,
			`a.7z: no files matched the patterns: nothing matches "out" (if it is the destination directory, write it with a trailing / or as -o DIR)`},
		{[]string{"out"}, nil, false, false, `a.7z: no files matched the patterns: nothing matches "out"`},
		{[]string{"*.md", "*.doc"}, nil, true, false, `a.7z: no files matched the patterns: nothing matches "*.md", "*.doc"`},
		{[]string{"src/*.txt"}, []string{"*.txt"}, false, false, `a.7z: no files matched the patterns: every selected entry is excluded by "*.txt"`},
	}
	for _, tc := range tests {
		sel, err := New(tc.includes, tc.excludes, tc.recursive)
		if err != nil {
			t.Fatal(err)
		}
		err = sel.NoMatch("a.7z", entries, tc.extracting)
		if !errors.Is(err, ErrNoMatch) || err.Error() != tc.want {
			t.Errorf("%v -x %v: %v\nwant %s", tc.includes, tc.excludes, err, tc.want)
		}
	}
}

// A recursion prefix before '@' applies to each line of the list file
// (7-Zip's -xr@LIST).
func TestListFilePrefix(t *testing.T) {
	list := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(list, []byte("*.png\r\ndocs/c.txt\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ExpandListFiles([]string{"**/@" + list, "./@" + list, "@" + list})
	if err != nil {
		t.Fatal(err)
	}
	want := "**/*.png **/docs/c.txt ./*.png ./docs/c.txt *.png docs/c.txt"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got %q, want %q", g, want)
	}
}

// TestComponents compares appendComponents with splitting the name at
// '/' (a '\' is a character of an entry name) and trimming separators.
func TestComponents(t *testing.T) {
	for _, name := range []string{"", "a", "/a/", "a/b/c", `a\b/c`, "a//b", `\\a\\`, "//", "dir/", "x/y/z/w/v/u/t/s/r/q/p/o/n/m/l/k/j/i"} {
		want := strings.Split(strings.Trim(name, "/"), "/")
		if got := components(name); !slices.Equal(got, want) {
			t.Errorf("components(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestWantAllocations checks that Want splits names without allocating,
// with and without patterns.
func TestWantAllocations(t *testing.T) {
	for _, inc := range [][]string{nil, {"*.txt"}, {"**/deep/*"}} {
		s, err := New(inc, []string{"*.log"}[:len(inc)%2], false)
		if err != nil {
			t.Fatal(err)
		}
		e := &archive.Entry{Name: `src\logs/deep/a.txt`, Type: archive.TypeFile}
		if n := testing.AllocsPerRun(100, func() { s.Want(e) }); n != 0 {
			t.Errorf("includes %q: %v allocations per Want", inc, n)
		}
	}
}
