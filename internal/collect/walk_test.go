package collect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Walk holds the entries of the directories it is in, not the tree: in
// a tree of 20 directories of 50 files each (and a deeper chain) the
// most entries held at once are those of one directory of files plus
// what is left of the directories above it, and no item is kept.
func TestWalkHoldsDirectories(t *testing.T) {
	root := t.TempDir()
	for d := range 20 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		os.MkdirAll(filepath.Join(dir, "s/t/u"), 0o755)
		for f := range 50 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", f)), []byte("x"), 0o644)
		}
	}
	t.Chdir(root)
	for _, byteOrder := range []bool{false, true} {
		n := 0
		st, err := Walk(Options{Inputs: []string{"."}, ByteOrder: byteOrder}, func(it *Item) error {
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// 20 directories × (itself, 50 files, s, s/t, s/t/u).
		if n != 20*54 || st.Items != n {
			t.Errorf("byte order %v: %d items (stats %d), want %d", byteOrder, n, st.Items, 20*54)
		}
		// At most: the root's 20, a directory's 51, s, t, u.
		if st.MaxHeld < 51 || st.MaxHeld > 20+51+3 {
			t.Errorf("byte order %v: %d entries held at once, want 51 to 74 (of %d)", byteOrder, st.MaxHeld, n)
		}
	}
}

// With ByteOrder the items come in byte order of their whole names,
// across directories ("a" < "a-c" < "a.d" < "a/b" < "a0") and across
// inputs (merged, a name given by two inputs once), and Collect returns
// them in that order.
func TestWalkByteOrder(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b/c", "a-c/x", "a.d", "a0", "b"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for _, f := range []string{"a/f", "a/b/c/g", "a-c/x/h", "a.d/i", "a0/j", "a!", "b/k", "a/b-"} {
		os.WriteFile(filepath.Join(root, f), []byte(f), 0o644)
	}
	t.Chdir(root)
	for _, c := range []struct {
		inputs, others []string
		want           string
	}{
		{[]string{"."}, nil, "a a! a-c a-c/x a-c/x/h a.d a.d/i a/b a/b- a/b/c a/b/c/g a/f a0 a0/j b b/k"},
		{[]string{"b", "a0", "a/b", "a-c", "a"}, nil, "a a-c a-c/x a-c/x/h a/b a/b- a/b/c a/b/c/g a/f a0 a0/j b b/k"},
		{[]string{"a*"}, []string{"a/b"}, "a a! a-c a-c/x a-c/x/h a.d a.d/i a/b a/b- a/b/c a/b/c/g a/f a0 a0/j"},
		{[]string{"*"}, nil, "a a! a-c a-c/x a-c/x/h a.d a.d/i a/b a/b- a/b/c a/b/c/g a/f a0 a0/j b b/k"},
	} {
		var got []string
		_, err := Walk(Options{Inputs: c.inputs, Others: c.others, Recursive: true, ByteOrder: true}, func(it *Item) error {
			got = append(got, it.Name)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%q %q:\n got %s\nwant %s", c.inputs, c.others, s, c.want)
		}
		items, err := Collect(Options{Inputs: c.inputs, Others: c.others, Recursive: true, ByteOrder: true})
		if err != nil || len(items) != len(got) {
			t.Fatalf("Collect: %d items, %v", len(items), err)
		}
		for i := range items {
			if items[i].Name != got[i] {
				t.Errorf("Collect item %d is %s, Walk's %s", i, items[i].Name, got[i])
			}
		}
	}
}

// Without ByteOrder overlapping inputs give each name once, in the
// first input's place; Skip leaves files out without a warning; an
// error of fn stops the walk and is returned.
func TestWalkInputs(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "d/e"), 0o755)
	for _, f := range []string{"d/f", "d/e/g", "h", "skip.me"} {
		os.WriteFile(filepath.Join(root, f), []byte(f), 0o644)
	}
	t.Chdir(root)
	skip, err := os.Stat("skip.me")
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	opts := Options{Inputs: []string{"d/e", "h", "d", "skip.me", "d/e/g"},
		Skip: func(fi fs.FileInfo) bool { return os.SameFile(fi, skip) },
		Warn: func(p string, err error) { warned = append(warned, p) }}
	var got []string
	if _, err := Walk(opts, func(it *Item) error {
		got = append(got, it.Name)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); s != "d/e d/e/g h d d/f" || len(warned) != 0 {
		t.Errorf("got %s, warnings %v", s, warned)
	}
	stop := errors.New("stop")
	n := 0
	if _, err := Walk(Options{Inputs: []string{"d"}}, func(*Item) error {
		n++
		return stop
	}); !errors.Is(err, stop) || n != 1 {
		t.Errorf("stopped walk: %v after %d items", err, n)
	}
}

// The memory of a walk does not grow with the entries walked (issue 26,
// point 8): after 3,000 more files, at the same place in a directory of
// the same size, the live heap is what it was (an item kept per entry
// would be 600 KB), and each entry, opened and closed as the tar writer
// does, makes at most 1 KiB of garbage, which sets how often the
// collector runs beside the encoders (cli's heapLimiter).
func TestWalkMemoryPerEntry(t *testing.T) {
	const dirs, files = 4, 1000
	root := t.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d))
		os.Mkdir(dir, 0o755)
		for f := range files {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%04d.txt", f)), []byte("x"), 0o644)
		}
	}
	t.Chdir(root)
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, byteOrder := range []bool{false, true} {
		var first, last uint64
		var m0, m1 runtime.MemStats
		n := 0
		runtime.ReadMemStats(&m0)
		_, err := Walk(Options{Inputs: []string{"."}, ByteOrder: byteOrder}, func(it *Item) error {
			n++
			switch n {
			case files / 2:
				first = live()
			case (dirs-1)*(files+1) + files/2:
				last = live()
			}
			rc, err := it.Open()
			if err != nil {
				return err
			}
			return rc.Close()
		})
		runtime.ReadMemStats(&m1)
		if err != nil || n != dirs*(files+1) {
			t.Fatalf("byte order %v: %d items, %v", byteOrder, n, err)
		}
		if last > first+64<<10 {
			t.Errorf("byte order %v: live heap %d bytes after %d entries, %d before", byteOrder, last, (dirs-1)*(files+1), first)
		}
		// The two collections' own allocations are small beside 4,004
		// entries' bytes.
		if perEntry := (m1.TotalAlloc - m0.TotalAlloc) / uint64(n); perEntry > 1024 {
			t.Errorf("byte order %v: %d bytes allocated per entry, want at most 1 KiB", byteOrder, perEntry)
		}
	}
}
