package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dirSums returns every file of dir with the SHA-256 of its content.
func dirSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			sums[e.Name()+"/"] = ""
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		sums[e.Name()] = hex.EncodeToString(h[:])
	}
	return sums
}

// sameSums reports the files that differ between two dirSums.
func sameSums(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	var diff []string
	for name, sum := range before {
		if got, ok := after[name]; !ok {
			diff = append(diff, name+" removed")
		} else if got != sum {
			diff = append(diff, name+" changed")
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			diff = append(diff, name+" added")
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s: %s", what, strings.Join(diff, ", "))
	}
}

// TestUpdateSplitSetRefused (issue 23): `a` and `d` on an existing split
// set refuse (exit 2) and leave every part byte for byte as it was,
// whether the set is named by its stem or by a part, with or without -v.
// `a -v` onto set.7z used to replace set.7z.001 with a one-file archive
// and leave the old .002 … behind: the original entries were lost.
func TestUpdateSplitSetRefused(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": string(randomText(60000)), "more.txt": "more"})
	garc(t, dir, "", "a", "-v16k", "-mx0", "set.7z", "src").expect(t, ExitOK, "a -v16k")
	if _, err := os.Stat(filepath.Join(dir, "set.7z.004")); err != nil {
		t.Fatalf("want a set of 4 parts: %v", err)
	}
	before := dirSums(t, dir)
	for _, args := range [][]string{
		{"a", "-v16k", "set.7z", "more.txt"},
		{"a", "-v100k", "set.7z", "more.txt"},
		{"a", "-v16k", "set.7z.001", "more.txt"},
		{"a", "-v16k", "set.7z.003", "more.txt"},
		{"a", "set.7z", "more.txt"},
		{"a", "set", "more.txt"},
		{"a", "set.7z.001", "more.txt"},
		{"a", "set.7z.002", "more.txt"},
		{"d", "set.7z", "src/a.txt"},
		{"d", "set", "src/a.txt"},
		{"d", "set.7z.001", "src/a.txt"},
		{"d", "set.7z.004", "src/a.txt"},
	} {
		what := strings.Join(args, " ")
		r := garc(t, dir, "", args...)
		r.expect(t, ExitFatal, what)
		if !strings.Contains(r.stderr, "split archive") || !strings.Contains(r.stderr, "cannot be updated") {
			t.Errorf("%s: %q", what, r.stderr)
		}
		sameSums(t, what, before, dirSums(t, dir))
	}
	garc(t, dir, "", "t", "set.7z.001").expect(t, ExitOK, "t after the refusals")

	// A part left without its first one: a new set of two parts or more
	// would take it as its own next part.
	stale := t.TempDir()
	copyFile(t, filepath.Join(dir, "set.7z.003"), filepath.Join(stale, "set.7z.003"))
	writeTree(t, stale, map[string]string{"more.txt": "more"})
	before = dirSums(t, stale)
	r := garc(t, stale, "", "a", "-v16k", "set.7z", "more.txt")
	r.expect(t, ExitFatal, "a -v16k beside a stale part")
	if !strings.Contains(r.stderr, "set.7z.003") {
		t.Errorf("the refusal does not name set.7z.003: %q", r.stderr)
	}
	sameSums(t, "a -v16k beside a stale part", before, dirSums(t, stale))

	// Without -v a set.7z that exists is a 7z archive of its own, updated
	// as usual beside a split set of the same stem, which stays as it was.
	garc(t, dir, "", "a", "-v16k", "other.7z", "more.txt").expect(t, ExitOK, "a other")
	if err := os.Rename(filepath.Join(dir, "other.7z.001"), filepath.Join(dir, "set.7z")); err != nil {
		t.Fatal(err)
	}
	parts := splitParts(dirSums(t, dir), "set.7z.")
	garc(t, dir, "", "a", "set.7z", "src").expect(t, ExitOK, "a onto set.7z beside set.7z.001")
	sameSums(t, "the split set after updating set.7z", parts, splitParts(dirSums(t, dir), "set.7z."))
	if r := garc(t, dir, "", "l", "set.7z"); r.code != ExitOK || !strings.Contains(r.stdout, "more.txt") || !strings.Contains(r.stdout, "a.txt") {
		t.Errorf("set.7z after the update: exit %d\n%s", r.code, r.stdout)
	}
}

// splitParts keeps the entries of sums whose names start with prefix.
func splitParts(sums map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for name, sum := range sums {
		if strings.HasPrefix(name, prefix) {
			out[name] = sum
		}
	}
	return out
}

// TestSplitSetStaleParts (issue 23): a split set whose later parts are
// left over from an older, longer set of the same name (a set of four
// parts replaced by one of two, .003 and .004 left behind) is read as the
// archive its first parts hold, with a warning naming the parts after the
// archive's end (its start header records its size) and exit 1, for l, t
// and x alike; a complete set has no warning.
func TestSplitSetStaleParts(t *testing.T) {
	dir := t.TempDir()
	newer := string(randomText(20000))
	writeTree(t, dir, map[string]string{"old/a.txt": string(randomText(60000)), "new/b.txt": newer})
	garc(t, dir, "", "a", "-v16k", "-mx0", "set.7z", "old").expect(t, ExitOK, "a old set")
	garc(t, dir, "", "a", "-v16k", "-mx0", "two.7z", "new").expect(t, ExitOK, "a new set")
	if r := garc(t, dir, "", "t", "two.7z.001"); r.code != ExitOK || strings.Contains(r.stderr, "garc:") {
		t.Fatalf("complete set: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, n := range []string{"001", "002"} {
		if err := os.Rename(filepath.Join(dir, "two.7z."+n), filepath.Join(dir, "set.7z."+n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "set.7z.004")); err != nil {
		t.Fatalf("want the old set's .004 left: %v", err)
	}
	for _, args := range [][]string{
		{"t", "set.7z.001"}, {"l", "set.7z.001"}, {"l", "--format=json", "set.7z.001"}, {"x", "-oout", "set.7z.001"},
	} {
		what := strings.Join(args, " ")
		r := garc(t, dir, "", args...)
		r.expect(t, ExitWarning, what)
		if !strings.Contains(r.stderr, "set.7z.003") || !strings.Contains(r.stderr, "set.7z.004") || !strings.Contains(r.stderr, "not part of the archive") {
			t.Errorf("%s: the warning does not name the parts after the end: %q", what, r.stderr)
		}
		if args[0] == "l" && !strings.Contains(r.stdout, "new/b.txt") {
			t.Errorf("%s: %q", what, r.stdout)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "out/new/b.txt")); err != nil || string(got) != newer {
		t.Errorf("x extracted %d bytes (%v), want the newer set's file", len(got), err)
	}
}
