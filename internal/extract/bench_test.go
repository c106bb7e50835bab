package extract

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// benchDir is where benchmarks write: $GARC_BENCH_DIR (e.g. a tmpfs such
// as /dev/shm, to measure the extractor rather than the disk) or a
// temporary directory.
func benchDir(b *testing.B) string {
	if d := os.Getenv("GARC_BENCH_DIR"); d != "" {
		dir, err := os.MkdirTemp(d, "garc-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return b.TempDir()
}

func BenchmarkWriteSmallFiles(b *testing.B) {
	content := strings.Repeat("x", 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	x, err := New(Options{Dest: benchDir(b), Overwrite: OverwriteAll})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		e := &archive.Entry{Name: fmt.Sprintf("a/b/c/d/%d/f%d.txt", i%50, i), Type: archive.TypeFile}
		if err := x.Write(e, strings.NewReader(content)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := x.Finish(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriteManyTinyFiles is the per-file cost of extracting an
// archive of many small files (issue 13: 100,000 entries of a few bytes
// in 1,000 directories), one file per operation, in archive order: 100
// files per directory, with times set as archives store them. Entries are
// made before the timer starts. Write does everything in the caller's
// goroutine; WriteQueued creates the files in a second one.
//
// Interleaved takes the directories in groups of 20, going round the
// directories of a group for its files (consecutive entries never share a
// directory), as archives sorted by file type may.
func BenchmarkWriteManyTinyFiles(b *testing.B) {
	b.Run("Write", func(b *testing.B) { benchManyTinyFiles(b, false, false) })
	b.Run("WriteQueued", func(b *testing.B) { benchManyTinyFiles(b, true, false) })
	b.Run("Interleaved", func(b *testing.B) { benchManyTinyFiles(b, false, true) })
}

func benchManyTinyFiles(b *testing.B, queued, interleaved bool) {
	const perDir, dirs = 100, 1000
	entries := make([]archive.Entry, perDir*dirs)
	contents := make([]string, len(entries))
	mtime := archiveTime()
	for i := range entries {
		dir := i / perDir
		if interleaved {
			const group = 20
			dir = i/(group*perDir)*group + i%group
		}
		entries[i] = archive.Entry{Name: fmt.Sprintf("src/d%03d/f%05d.txt", dir, i), Type: archive.TypeFile,
			Size: -1, ModTime: mtime}
		contents[i] = fmt.Sprintf("file %d\n", i)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(contents[0])))
	// CPU time, less disturbed than wall time on a shared machine.
	cpu := testenv.StartCPU()
	defer cpu.Report(b, 0)
	var x *Extractor
	r := strings.NewReader("")
	done := func(e *archive.Entry, err error) error {
		if err != nil {
			b.Fatal(err)
		}
		return nil
	}
	finish := func() {
		if x != nil {
			if err := x.Flush(); err != nil {
				b.Fatal(err)
			}
			if err := x.Finish(); err != nil {
				b.Fatal(err)
			}
		}
	}
	i := 0
	for b.Loop() {
		if i%len(entries) == 0 {
			// A fresh destination for every pass over the entries.
			finish()
			b.StopTimer()
			var err error
			if x, err = New(Options{Dest: benchDir(b)}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		k := i % len(entries)
		r.Reset(contents[k])
		var err error
		if queued {
			err = x.WriteQueued(&entries[k], r, done)
		} else {
			err = x.Write(&entries[k], r)
		}
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	finish()
}

func BenchmarkWriteLargeFile(b *testing.B) {
	content := strings.Repeat("y", 16<<20)
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	x, err := New(Options{Dest: benchDir(b), Overwrite: OverwriteAll})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e := &archive.Entry{Name: "big.bin", Type: archive.TypeFile}
		if err := x.Write(e, strings.NewReader(content)); err != nil {
			b.Fatal(err)
		}
	}
}

// archiveTime is a fixed modification time, as archives store one.
func archiveTime() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
