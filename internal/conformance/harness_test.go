package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
)

func TestDiffTrees(t *testing.T) {
	list := []corpus.ExpectedEntry{
		{Path: "d", IsDir: true},
		{Path: "d/f", Size: 3, SHA256: "AB"},
		{Path: "l", IsSymlink: true, LinkTarget: "d/f"},
	}
	want := expectedTree(list, false)
	same := tree{"d": dirDesc, "d/f": fileDesc(3, "ab"), "l": linkDesc("d/f")}
	if d := diffTrees(want, same, 10); len(d) != 0 {
		t.Fatalf("identical trees differ: %q", d)
	}
	cases := []struct {
		got  tree
		want string
	}{
		{tree{"d": dirDesc, "l": linkDesc("d/f")}, "missing d/f"},
		{tree{"d": dirDesc, "d/f": fileDesc(4, "ab"), "l": linkDesc("d/f")}, "d/f is file 4"},
		{tree{"d": dirDesc, "d/f": fileDesc(3, "cd"), "l": linkDesc("d/f")}, "d/f is file 3 cd"},
		{tree{"d": dirDesc, "d/f": fileDesc(3, "ab"), "l": linkDesc("elsewhere")}, "l is symlink -> elsewhere"},
		{tree{"d": dirDesc, "d/f": fileDesc(3, "ab"), "l": linkDesc("d/f"), "x": dirDesc}, "unexpected x"},
	}
	for _, c := range cases {
		d := strings.Join(diffTrees(want, c.got, 10), "; ")
		if !strings.Contains(d, c.want) {
			t.Errorf("diff %q lacks %q", d, c.want)
		}
	}
	// Parents the listing leaves out are accepted.
	if d := diffTrees(withParents(tree{"a/b/c": fileDesc(1, "x")}), tree{"a": dirDesc, "a/b": dirDesc, "a/b/c": fileDesc(1, "x")}, 10); len(d) != 0 {
		t.Errorf("implicit parents: %q", d)
	}
}

func TestWalkTreeAndSandbox(t *testing.T) {
	tmp := t.TempDir()
	sb, err := newSandbox(tmp)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(sb.dest, "d"), 0o755)
	os.WriteFile(filepath.Join(sb.dest, "d", "f"), []byte("abc"), 0o644)
	os.Symlink("d/f", filepath.Join(sb.dest, "inside"))
	got, err := walkTree(sb.dest)
	if err != nil {
		t.Fatal(err)
	}
	want := tree{"d": dirDesc, "d/f": fileDesc(3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "inside": linkDesc("d/f")}
	if d := diffTrees(want, got, 10); len(d) != 0 {
		t.Errorf("walkTree: %q", d)
	}
	if e := sb.escaped(); len(e) != 0 {
		t.Errorf("clean sandbox reports %q", e)
	}
	if l := escapingLinks(sb.dest); len(l) != 0 {
		t.Errorf("inside link reported: %q", l)
	}
	os.Symlink("../../outside", filepath.Join(sb.dest, "d", "out"))
	os.Symlink("/etc", filepath.Join(sb.dest, "abs"))
	if l := escapingLinks(sb.dest); len(l) != 2 {
		t.Errorf("escaping links: %q", l)
	}
	os.WriteFile(filepath.Join(sb.parent, "leak"), nil, 0o644)
	os.WriteFile(filepath.Join(tmp, "leak2"), nil, 0o644)
	if e := sb.escaped(); len(e) != 2 {
		t.Errorf("escaped files: %q", e)
	}
}

func TestEscapesLexically(t *testing.T) {
	for _, c := range []struct {
		link, target string
		want         bool
	}{
		{"a", "b", false},
		{"d/a", "../b", false},
		{"d/a", "../../b", true},
		{"a", "/etc/passwd", true},
		{"a", `C:\Windows`, true},
		{"a", "C:/x", true},
		{"d/e/a", "../x/../../y", false},
		{"a", "..", true},
	} {
		if got := escapesLexically(c.link, c.target); got != c.want {
			t.Errorf("escapesLexically(%q, %q) = %v", c.link, c.target, got)
		}
	}
}

func TestClimbsOverNonDirectory(t *testing.T) {
	want := tree{"real": dirDesc, "real/f": fileDesc(1, "x"), "file": fileDesc(1, "y"), "d/e/f": fileDesc(1, "z")}
	for _, c := range []struct {
		link, target string
		want         bool
	}{
		{"a", "sub/..", true},      // sub is not made
		{"a", "real/..", false},    // a directory the archive makes
		{"a", "file/..", true},     // a file
		{"a", "d/..", false},       // a parent of a listed file
		{"a", "..", false},         // no own component: escapesLexically's case
		{"d/a", "../x", false},     // climbs over the link's own directory only
		{"d/a", "e/../x", false},   // d/e is a directory
		{"d/a", "x/y/../..", true}, // d/x/y is not made
		{"a", "real/./../sub", false},
		{"a", `sub\..`, true},
	} {
		if got := climbsOverNonDirectory(c.link, c.target, withParents(want)); got != c.want {
			t.Errorf("climbsOverNonDirectory(%q, %q) = %v, want %v", c.link, c.target, got, c.want)
		}
	}
}

func TestKnownFailuresFile(t *testing.T) {
	known, err := KnownFailures(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	for unit, reason := range known {
		if !strings.HasPrefix(unit, "files/") || strings.TrimSpace(reason) == "" {
			t.Errorf("bad line: %q %q", unit, reason)
		}
	}
	bad := filepath.Join(t.TempDir(), "k.tsv")
	os.WriteFile(bad, []byte("files/x\n"), 0o644)
	if _, err := KnownFailures(bad); err == nil {
		t.Error("a line without a reason was accepted")
	}
}

func TestExpectedTreeNormalisation(t *testing.T) {
	list := []corpus.ExpectedEntry{
		{Path: `a\b\c.txt`, Size: 1, SHA256: "AA"},
		{Path: "d", Size: 2, SHA256: "BB"}, // a -so listing shows the directory d as a file
		{Path: "d/e", Size: 2, SHA256: "BB"},
	}
	got := expectedTree(list, true)
	want := tree{"a/b/c.txt": fileDesc(1, "aa"), "d": dirDesc, "d/e": fileDesc(2, "bb")}
	if diff := diffTrees(want, got, 10); len(diff) != 0 {
		t.Fatalf("stream listing: %q", diff)
	}
	if got := expectedTree(list, false); got["d"] != fileDesc(2, "bb") {
		t.Fatalf("non-stream listing: d is %q, want a file", got["d"])
	}
}
