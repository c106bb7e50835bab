package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func BenchmarkWriteSmallFiles(b *testing.B) {
	content := strings.Repeat("x", 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	x, err := New(Options{Dest: b.TempDir(), Overwrite: OverwriteAll})
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

func BenchmarkWriteLargeFile(b *testing.B) {
	content := strings.Repeat("y", 16<<20)
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	x, err := New(Options{Dest: b.TempDir(), Overwrite: OverwriteAll})
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
