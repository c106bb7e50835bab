package archive

import (
	"fmt"
	"strings"
	"testing"
)

func TestWithLinkTargets(t *testing.T) {
	es := []*Entry{
		{Name: "a/orig.bin"},
		{Name: "b/copy.bin", Type: TypeCopy, LinkTarget: "a/orig.bin"},
		{Name: "c/hard.bin", Type: TypeHardlink, LinkTarget: "b/copy.bin"},
		{Name: "d/other.txt"},
		{Name: "a/orig.bin"}, // a later entry of the same name is not the target of c
		{Name: "e/sym", Type: TypeSymlink, LinkTarget: "d/other.txt"},
		{Name: "f/dangling", Type: TypeHardlink, LinkTarget: "missing"},
		{Name: "g/self", Type: TypeHardlink, LinkTarget: "g/self"},
	}
	tests := []struct {
		selected []string
		want     string
	}{
		{[]string{"c/hard.bin"}, "a/orig.bin b/copy.bin c/hard.bin"},
		{[]string{"b/copy.bin"}, "a/orig.bin b/copy.bin"},
		{[]string{"e/sym"}, "e/sym"}, // symbolic links are made from their text
		{[]string{"f/dangling", "g/self"}, "f/dangling g/self"},
		{nil, ""},
	}
	for _, tc := range tests {
		sel := map[*Entry]bool{}
		for _, e := range es {
			for _, n := range tc.selected {
				if e.Name == n && e != es[4] {
					sel[e] = true
				}
			}
		}
		w := WithLinkTargets(es, func(e *Entry) bool { return sel[e] })
		var got []string
		for _, e := range es {
			if w(e) {
				got = append(got, e.Name)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("selected %q: got %q, want %q", tc.selected, g, tc.want)
		}
	}
}

// TestWithLinkTargetsLongChain selects the last link of a 40,000-long
// hard-link chain: every entry comes along, and the selection function is
// asked once per entry (the work is linear; the quadratic version this
// replaced took minutes here).
func TestWithLinkTargetsLongChain(t *testing.T) {
	const n = 40000
	es := make([]*Entry, n)
	es[0] = &Entry{Name: "f0"}
	for i := 1; i < n; i++ {
		es[i] = &Entry{Name: fmt.Sprintf("f%d", i), Type: TypeHardlink, LinkTarget: fmt.Sprintf("f%d", i-1)}
	}
	calls := 0
	w := WithLinkTargets(es, func(e *Entry) bool { calls++; return e == es[n-1] })
	if calls != n {
		t.Errorf("want called %d times for %d entries", calls, n)
	}
	for i, e := range es {
		if !w(e) {
			t.Fatalf("entry %d of the chain not selected", i)
		}
	}
	allocs := testing.AllocsPerRun(3, func() { WithLinkTargets(es, func(e *Entry) bool { return e == es[n-1] }) })
	if allocs > n/50 { // a few slices and maps, growing geometrically; nothing per entry
		t.Errorf("%v allocations for %d entries", allocs, n)
	}
}
