package opener

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// openFDs counts the process's open descriptors (Linux only).
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// A raw split of thousands of parts keeps only a few of them open.
func TestManyPartSplitOpensPartsAsRead(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(sample, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := contents(t, r)
	r.Close()

	// 5,000 parts: the sample's bytes one per part, then empty ones.
	dir := t.TempDir()
	const n = 5000
	for i := 0; i < n; i++ {
		var b []byte
		if i < len(data) {
			b = data[i : i+1]
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s.7z.%03d", i+1)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linux := runtime.GOOS == "linux"
	before := 0
	if linux {
		before = openFDs(t)
	}
	r, err = Open(filepath.Join(dir, "s.7z.2500"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := len(r.Info().Volumes); got != n {
		t.Fatalf("%d volumes, want %d", got, n)
	}
	files := r.(*fileReader).files.(*splitFiles)
	if k := openCount(files); k > maxOpenParts {
		t.Errorf("%d parts open after Open", k)
	}
	if linux {
		if k := openFDs(t) - before; k > maxOpenParts+2 {
			t.Errorf("%d more descriptors open after Open", k)
		}
	}
	if got := contents(t, r); !reflect.DeepEqual(got, want) {
		t.Error("contents differ")
	}
	if k := openCount(files); k > maxOpenParts {
		t.Errorf("%d parts open after reading", k)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if k := openCount(files); k != 0 {
		t.Errorf("%d parts open after Close", k)
	}
}

func TestIsSplitPart(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"v.7z.001", "v.7z.002", "one.7z.001", "x_aa", "x_ab", "lone_aa", "plain.7z", "n.0001"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	for name, want := range map[string]bool{
		"v.7z.001": true, "v.7z.002": true, "v.7z.003": true, // a later part, not written yet
		"one.7z.001": true, // a single part is still a split
		"x_aa":       true, "x_ab": true,
		"lone_aa":  false, // NAME_aa needs NAME_ab
		"plain.7z": false, "missing.7z.002": false, "n.0001": true,
	} {
		if got := IsSplitPart(filepath.Join(dir, name)); got != want {
			t.Errorf("IsSplitPart(%s) = %v, want %v", name, got, want)
		}
	}
}

// openCount is the number of parts s holds open now.
func openCount(s *splitFiles) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// Parallel reads (7z folders decoded on several threads) of a split see
// the right bytes, and parts are closed again once no read uses them.
func TestSplitParallelReads(t *testing.T) {
	dir := t.TempDir()
	const parts, per = 40, 1000
	var paths []string
	var all []byte
	for i := 0; i < parts; i++ {
		b := make([]byte, per)
		for k := range b {
			b[k] = byte(i*7 + k)
		}
		all = append(all, b...)
		p := filepath.Join(dir, fmt.Sprintf("p.7z.%03d", i+1))
		os.WriteFile(p, b, 0o644)
		paths = append(paths, p)
	}
	m, files, err := openParts(paths)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, 1500)
			for k := 0; k < 200; k++ {
				off := int64((g*7919 + k*104729) % (len(all) - len(buf)))
				if _, err := m.ReadAt(buf, off); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(buf, all[off:off+int64(len(buf))]) {
					errs <- fmt.Errorf("wrong bytes at %d", off)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if k := openCount(files); k > maxOpenParts {
		t.Errorf("%d parts open after the reads", k)
	}
}

// SplitPartOf finds a file named like a part of a split written under a
// name, also one without the first part, and only for that exact name.
func TestSplitPartOf(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.7z.003", "a.7z.004", "b.7z", "b.7z.x01", "c.7z.0001", "d.7z.01", "e.7z.000"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	for name, want := range map[string]string{
		"a.7z": "a.7z.003", "a": "", "b.7z": "", "c.7z": "c.7z.0001", "d.7z": "", "e.7z": "", "none.7z": "",
	} {
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got := SplitPartOf(filepath.Join(dir, name)); got != want {
			t.Errorf("SplitPartOf(%s) = %q, want %q", name, got, want)
		}
	}
}

// PartsAfterEnd names the parts of a 7z split after the archive's end (a
// stale .003 and .004 beside a set of two parts), and none of a complete
// set, of a RAR split or of a single file.
func TestPartsAfterEnd(t *testing.T) {
	root := testenv.CorpusRoot(t)
	dir := t.TempDir()
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			testenv.Missing(t, rel)
		}
		return b
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p1, p2 := read("files/py7zr/data__archive.7z.001"), read("files/py7zr/data__archive.7z.002")
	write("a.7z.001", p1)
	write("a.7z.002", p2)
	write("single.7z", append(append([]byte(nil), p1...), p2...))
	for i := 1; i <= 6; i++ {
		write(fmt.Sprintf("r.%03d", i), read(fmt.Sprintf("files/sharpcompress/Archives__Rar4.split.%03d", i)))
	}
	check := func(name string, want ...string) {
		t.Helper()
		r, err := Open(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i := range want {
			want[i] = filepath.Join(dir, want[i])
		}
		if got := PartsAfterEnd(r); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Errorf("PartsAfterEnd(%s) = %q, want %q", name, got, want)
		}
	}
	check("a.7z.001")
	check("r.001")
	check("single.7z")
	write("a.7z.003", []byte("left over from an older set"))
	write("a.7z.004", []byte("and another part"))
	check("a.7z.001", "a.7z.003", "a.7z.004")
	check("a.7z.002", "a.7z.003", "a.7z.004")
}
