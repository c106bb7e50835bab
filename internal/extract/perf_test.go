package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// Writing a small file costs few allocations: no os.File (whose poller
// registration and finalizer cost system calls and memory), no FileInfo
// for the existence check, no second stat by os.Rename, no re-examination
// of a directory verified by the previous entry (issue 13).
func TestWriteSmallFileAllocs(t *testing.T) {
	x, err := New(Options{Dest: t.TempDir(), Overwrite: OverwriteAll})
	if err != nil {
		t.Fatal(err)
	}
	e := &archive.Entry{Name: "src/dir/file.txt", Type: archive.TypeFile, Size: -1, ModTime: archiveTime()}
	r := strings.NewReader("")
	allocs := testing.AllocsPerRun(200, func() {
		r.Reset("content\n")
		if err := x.Write(e, r); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per file", allocs)
	if allocs > 9 {
		t.Errorf("%.1f allocations per small file, want at most 9", allocs)
	}
}

// A new file in a directory this run created costs no existence check
// (the rename refuses to replace, RENAME_NOREPLACE) and its times are set
// on the open descriptor: fewer allocations than an examined name (the
// ENOENT error of the check was three of them). None remains: the
// temporary name of the file before, renamed away, is free again for
// the next one in the same directory (tempname.In made one per file),
// the system calls take their names from a reused buffer (x/sys/unix
// copied each name: three more), and the file's full path is not made
// (the directory's, kept from mkdirs, and the base name serve).
func TestWriteFreshFileAllocs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("renameat2 and futimens are used on Linux")
	}
	x, err := New(Options{Dest: filepath.Join(t.TempDir(), "new")})
	if err != nil {
		t.Fatal(err)
	}
	const runs = 200
	entries := make([]archive.Entry, runs+1)
	for i := range entries {
		entries[i] = archive.Entry{Name: fmt.Sprintf("d/f%d.txt", i), Type: archive.TypeFile, Size: -1, ModTime: archiveTime()}
	}
	r := strings.NewReader("")
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		r.Reset("content\n")
		if err := x.Write(&entries[i], r); err != nil {
			t.Fatal(err)
		}
		i++
	})
	t.Logf("%.1f allocations per new file", allocs)
	if allocs > 0 {
		t.Errorf("%.1f allocations per new file, want none", allocs)
	}
	fi, err := os.Stat(filepath.Join(x.root, "d", "f0.txt"))
	if err != nil || !fi.ModTime().Equal(archiveTime()) {
		t.Errorf("time not restored: %v %v", fi.ModTime(), err)
	}
}

// Entries that go round a set of directories (7-Zip sorts a solid
// archive's files by extension) find their directory verified and its
// descriptor open: no walk of the path components, no open of the
// directory, for each file.
func TestWriteRoundRobinAllocs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("directory descriptors are cached on Linux")
	}
	x, err := New(Options{Dest: filepath.Join(t.TempDir(), "new")})
	if err != nil {
		t.Fatal(err)
	}
	const dirs, runs = 10, 300
	entries := make([]archive.Entry, runs+1)
	for i := range entries {
		entries[i] = archive.Entry{Name: fmt.Sprintf("src/d%d/f%d.txt", i%dirs, i), Type: archive.TypeFile, Size: -1, ModTime: archiveTime()}
	}
	r := strings.NewReader("")
	i := 0
	write := func() {
		r.Reset("content\n")
		if err := x.Write(&entries[i], r); err != nil {
			t.Fatal(err)
		}
		i++
	}
	for range dirs {
		write() // the directories are created and opened once
	}
	allocs := testing.AllocsPerRun(runs-dirs-1, write)
	t.Logf("%.1f allocations per file", allocs)
	if allocs > 6 {
		t.Errorf("%.1f allocations per file going round %d directories, want at most 6", allocs, dirs)
	}
}

// The records a run keeps per file (for Rollback and hard links) grow in
// chunks that never move, and the name map for hard links is only built
// for the first hard link, and a temporary name serves the files of a
// directory one after the other, and no full path is made for a new
// file: writing many new files allocates the records (24 bytes a file),
// and no growing slice or map copied over and over (issue 13).
func TestWriteManyFilesBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("renameat2 and futimens are used on Linux")
	}
	x, err := New(Options{Dest: filepath.Join(t.TempDir(), "new")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	entries := make([]archive.Entry, n)
	for i := range entries {
		entries[i] = archive.Entry{Name: fmt.Sprintf("d%02d/f%05d.txt", i/1000, i), Type: archive.TypeFile, Size: -1, ModTime: archiveTime()}
	}
	r := strings.NewReader("")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range entries {
		r.Reset("content\n")
		if err := x.Write(&entries[i], r); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perFile := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes allocated per file", perFile)
	// 611 bytes were allocated per file with a slice and a map of every
	// file, a temporary name and a full path for each, and the names of
	// the system calls.
	if limit := 64.0; perFile > limit {
		t.Errorf("%.0f bytes allocated per new file, want at most %.0f", perFile, limit)
	}
	if err := x.Finish(); err != nil {
		t.Fatal(err)
	}
}
