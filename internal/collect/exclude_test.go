package collect

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
	"github.com/garc-dev/garc/internal/wildcard"
)

// excludeSwitch turns 7-Zip's -x[r[-|0]]!P into a Pattern, with global
// the recursion of -r.
func excludeSwitch(t *testing.T, sw string, global wildcard.Recursion) wildcard.Pattern {
	t.Helper()
	rest, ok := strings.CutPrefix(sw, "-x")
	if !ok {
		t.Fatalf("not an exclude switch: %s", sw)
	}
	r := global
	switch {
	case strings.HasPrefix(rest, "r-"):
		r, rest = wildcard.NotRecursive, rest[2:]
	case strings.HasPrefix(rest, "r0"):
		r, rest = wildcard.RecursiveWildcards, rest[2:]
	case strings.HasPrefix(rest, "r"):
		r, rest = wildcard.Recursive, rest[1:]
	}
	return wildcard.NewPattern(strings.TrimPrefix(rest, "!"), r)
}

// Exclusions follow 7-Zip's -x! / -xr! rules: the same tree and switches
// give the names 7zz puts in an archive.
func TestExcludeMatches7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	root := t.TempDir()
	for _, d := range []string{"src/logs/deep", "src/sub", "other/logs"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for _, f := range []string{"top.log", "src/a.log", "src/a.txt", "src/logs/b.log", "src/logs/b.txt",
		"src/logs/deep/c.log", "src/sub/logs", "src/sub/d.log", "other/logs/e.log", "other/x.log"} {
		os.WriteFile(filepath.Join(root, f), []byte(f), 0o644)
	}
	cases := [][]string{
		{"src", "-x!*.log"},
		{"src", "-xr!*.log"},
		{"src", "-xr-!*.log"},
		{"src", "-r", "-x!*.log"},
		{"src", "-x!src/*.log"},
		{"src", "-xr!src/*.log"},
		{"src", "-x!logs"},
		{"src", "-xr!logs"},
		{"src", "-x!src/logs"},
		{"src", "-xr!src/logs"},
		{"src", "-x!*/b.log"},
		{"src", "-xr!*/b.log"},
		{"src", "-x!logs/*.log"},
		{"src", "-xr!logs/*.log"},
		{"src", "-x!src/logs/*.log"},
		{"src", "-xr!src/logs/*.log"},
		{"src", "-xr!*/logs"},
		{"src", "-x!src/logs/"},
		{"src", "-x!src/sub/logs/"},
		{"src", "-xr!logs/"},
		{"src", "-xr0!logs"},
		{"src", "-xr0!lo?s"},
		{".", "-x!*.log"},
		{".", "-x!src"},
		{".", "-xr!*.log", "-x!other"},
		{"src/logs", "-x!logs/b.log"},
		{"src/logs", "-x!src/logs/b.log"},
		{"src", "other", "-xr!logs/e.log"},
		{"src", "other", "-xr!other/logs"},
		{"*.log", "-r", "-x!src/*"},
		{"*.log", "-r", "-xr!logs"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			arc := filepath.Join(t.TempDir(), "o.7z")
			cmd := exec.Command(sz, append([]string{"a", "-bd", arc}, args...)...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz a: %v\n%s", err, out)
			}
			out, err := exec.Command(sz, "l", "-ba", "-slt", arc).Output()
			if err != nil {
				t.Fatalf("7zz l: %v", err)
			}
			var want []string
			for _, line := range strings.Split(string(out), "\n") {
				if p, ok := strings.CutPrefix(line, "Path = "); ok {
					want = append(want, p)
				}
			}
			slices.Sort(want)

			global := wildcard.NotRecursive
			opts := Options{}
			for _, a := range args {
				if a == "-r" {
					global, opts.Recursive = wildcard.Recursive, true
				}
			}
			for _, a := range args {
				switch {
				case a == "-r":
				case strings.HasPrefix(a, "-x"):
					opts.Exclude = append(opts.Exclude, excludeSwitch(t, a, global))
				default:
					opts.Inputs = append(opts.Inputs, a)
				}
			}
			t.Chdir(root)
			items, err := Collect(opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("garc: %q\n 7zz: %q", got, want)
			}
		})
	}
}
