package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordList checks the records across chunk boundaries: their order,
// the rare paths, and the lookup of regular files by name, built on the
// first lookup and kept up to date after it, the last record of a name
// winning.
func TestRecordList(t *testing.T) {
	var l recordList
	const n = 2*recordChunk + 10
	for i := range n {
		key := fmt.Sprintf("f%d", i%(n-5)) // the last five names come twice
		switch {
		case i%7 == 0:
			l.add(key, "/renamed/"+key, "", placedNew|placedRegular)
		case i%11 == 0:
			l.add(key, "", "/aside/"+key, placedNew)
		case i%13 == 0:
			l.add(key, "", "", placedNew) // a link
		default:
			l.add(key, "", "", placedNew)
			l.markRegular(key)
		}
	}
	if l.n != n || len(l.chunks) != 3 {
		t.Fatalf("%d records in %d chunks", l.n, len(l.chunks))
	}
	for _, i := range []int{0, 7, 11, 13, recordChunk - 1, recordChunk, 2 * recordChunk} {
		pf, pp := l.at(i)
		key := fmt.Sprintf("f%d", i%(n-5))
		if pf.key != key {
			t.Errorf("record %d: key %q, want %q", i, pf.key, key)
		}
		wantPath, wantAside := "", ""
		switch {
		case i%7 == 0:
			wantPath = "/renamed/" + key
		case i%11 == 0:
			wantAside = "/aside/" + key
		}
		if pp.path != wantPath || pp.aside != wantAside {
			t.Errorf("record %d: paths %+v, want %q, %q", i, pp, wantPath, wantAside)
		}
	}
	for _, tc := range []struct {
		key, path string
		ok        bool
	}{
		{"f7", "/renamed/f7", true},
		{"f8", "", true},
		{"f11", "", false}, // moved aside, not marked regular
		{"f13", "", false}, // a link
		{"f0", "", true},   // f0 came again at n-5 (not a multiple of 7, 11, 13)
		{"missing", "", false},
	} {
		path, ok := l.regular(tc.key)
		if ok != tc.ok || path != tc.path {
			t.Errorf("regular(%q) = %q, %v; want %q, %v", tc.key, path, ok, tc.path, tc.ok)
		}
	}
	// After the index exists, new records update it.
	l.add("f8", "/again/f8", "", placedRegular)
	l.add("late", "", "", placedNew)
	l.markRegular("late")
	if path, ok := l.regular("f8"); !ok || path != "/again/f8" {
		t.Errorf("f8 after the index was built: %q, %v", path, ok)
	}
	if _, ok := l.regular("late"); !ok {
		t.Error("late not found")
	}
	l.reset()
	if _, ok := l.regular("f8"); ok || l.n != 0 {
		t.Error("records left after reset")
	}
}

// TestReusedTemporaryName: the temporary name of the file placed last is
// taken again for the next file in its directory (files replacing
// existing ones: a new file needs none). Something put at that name
// meanwhile (a link to a file outside) is neither written through nor
// replaced: O_EXCL fails and a fresh name is made.
func TestReusedTemporaryName(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "dest", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, "dest", "d", name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x, err := New(Options{Dest: filepath.Join(dir, "dest"), Overwrite: OverwriteAll})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"d/a.txt", "d/b.txt", "d/c.txt"} {
		if err := x.Write(fileEntry(name), strings.NewReader(name)); err != nil {
			t.Fatal(err)
		}
		if x.freeTemp == "" || filepath.Dir(x.freeTemp) != filepath.Join(x.root, "d") {
			t.Fatalf("after %s: free temporary name %q", name, x.freeTemp)
		}
		if i == 1 {
			// The next file would take this name: plant a link there.
			if err := os.Symlink(outside, x.freeTemp); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Errorf("written through the planted link: %q", b)
	}
	for _, name := range []string{"d/a.txt", "d/b.txt", "d/c.txt"} {
		if b, err := os.ReadFile(filepath.Join(dir, "dest", name)); err != nil || string(b) != name {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "dest", "d"))
	if len(ents) != 4 { // the three files and the planted link, untouched
		t.Errorf("%d names in d, want 4", len(ents))
	}
}
