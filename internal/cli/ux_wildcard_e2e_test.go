package cli

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// wildcardTree is a tree where 7-Zip's recursion rules for -x! and -i!
// make a difference at every depth.
var wildcardTree = map[string]string{
	"top.log": "t", "src/a.log": "a", "src/a.txt": "a", "src/logs/b.log": "b", "src/logs/b.txt": "b",
	"src/logs/deep/c.log": "c", "src/sub/d.log": "d", "other/logs/e.log": "e", "other/x.log": "x",
}

// memberNames lists the paths of an archive with 7zz l -slt, sorted.
func memberNames(t *testing.T, sz, arc string) []string {
	t.Helper()
	out, err := exec.Command(sz, "l", "-ba", "-slt", arc).Output()
	if err != nil {
		t.Fatalf("7zz l %s: %v", arc, err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "Path = "); ok {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	return names
}

// garc a puts the same members in the archive as 7zz a for the same
// tree and -x!/-xr!/-xr-!/-xr0!/-i!/-ir! switches (issue 12.2: -x!*.log
// excluded at every depth where 7zz kept src/logs/*.log).
func TestCreateWildcardsMatch7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	root := t.TempDir()
	writeTree(t, root, wildcardTree)
	for _, args := range [][]string{
		{"src", "-x!*.log"},
		{"src", "-xr!*.log"},
		{"src", "-xr-!*.log"},
		{"src", "-r", "-x!*.log"},
		{"src", "-r", "-xr-!*.log"},
		{".", "-x!*.log"},
		{".", "-xr!logs"},
		{".", "-xr0!logs"},
		{".", "-xr0!lo?s"},
		{"src", "-x!src/*.log"},
		{"src", "-xr!logs/*.log"},
		{"src", "other", "-xr!other/logs"},
		{"-i!*.log"},
		{"-ir!*.log"},
		{"src", "-i!*.log"},
		{"src/logs", "-ir!*.txt", "-xr!deep"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := t.TempDir()
			want7z, got7z := filepath.Join(out, "7zz.7z"), filepath.Join(out, "garc.7z")
			cmd := exec.Command(sz, append([]string{"a", "-bd", want7z}, args...)...)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz a: %v\n%s", err, b)
			}
			garc(t, root, "", append([]string{"a", "-q", got7z}, args...)...).expect(t, ExitOK, "garc a")
			want, got := memberNames(t, sz, want7z), memberNames(t, sz, got7z)
			if !slices.Equal(got, want) {
				t.Errorf("garc: %q\n 7zz: %q", got, want)
			}
		})
	}
}

// garc x extracts the same files as 7zz x with the same patterns and
// -x!/-xr!/-i!/-ir! switches.
func TestExtractWildcardsMatch7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	root := t.TempDir()
	writeTree(t, root, wildcardTree)
	arc := filepath.Join(t.TempDir(), "all.7z")
	sevenZip(t, root, "a", "-bd", arc, ".")
	for _, args := range [][]string{
		{"-x!*.log"},
		{"-xr!*.log"},
		{"-r", "-x!*.log"},
		{"-xr-!*.log", "-r"},
		{"-x!logs"},
		{"-xr!logs"},
		{"-x!src/*.log"},
		{"-i!*.log"},
		{"-ir!*.log"},
		{"src", "-xr!*.log"},
		{"src", "-x!*.log"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(sz, append([]string{"x", "-bd", arc, "-o" + filepath.Join(out, "7zz")}, args...)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz x: %v\n%s", err, b)
			}
			garc(t, out, "", append([]string{"x", "-q", arc, "-ogarc"}, args...)...).expect(t, ExitOK, "garc x")
			if want, got := keys(readTree(t, filepath.Join(out, "7zz"))), keys(readTree(t, filepath.Join(out, "garc"))); got != want {
				t.Errorf("garc: %s\n 7zz: %s", got, want)
			}
		})
	}
}

// garc d removes the same entries as 7zz d for the same patterns and
// switches.
func TestDeleteWildcardsMatch7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	root := t.TempDir()
	writeTree(t, root, wildcardTree)
	base := filepath.Join(t.TempDir(), "base.7z")
	sevenZip(t, root, "a", "-bd", base, ".")
	for _, args := range [][]string{
		{"*.log"},
		{"-r", "*.log"},
		{"src/*", "-x!src/logs"},
		{"-r", "*.log", "-xr!deep"},
		{"src/logs"}, // ("logs" alone matches nothing without -r: garc exits 10 where 7zz says nothing)
		{"-r", "logs"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := t.TempDir()
			want7z, got7z := filepath.Join(out, "7zz.7z"), filepath.Join(out, "garc.7z")
			copyFile(t, base, want7z)
			copyFile(t, base, got7z)
			if b, err := exec.Command(sz, append([]string{"d", "-bd", want7z}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("7zz d: %v\n%s", err, b)
			}
			garc(t, out, "", append([]string{"d", "-q", got7z}, args...)...).expect(t, ExitOK, "garc d")
			if want, got := memberNames(t, sz, want7z), memberNames(t, sz, got7z); !slices.Equal(got, want) {
				t.Errorf("garc: %q\n 7zz: %q", got, want)
			}
		})
	}
}
