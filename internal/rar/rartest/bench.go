package rartest

import (
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// CPUTimer reports the process CPU time per operation next to the wall
// time, so that comparisons stay meaningful on a loaded machine.
type CPUTimer = testenv.CPUTimer

// StartCPU starts measuring CPU time.
func StartCPU() CPUTimer { return testenv.StartCPU() }

// CorpusPath returns the path of the corpus file rel (relative to the
// corpus root), skipping the test or benchmark when the corpus is absent.
func CorpusPath(tb testing.TB, rel string) string {
	tb.Helper()
	return filepath.Join(CorpusRoot(tb), rel)
}

// CorpusRoot returns the corpus root, skipping the test or benchmark when
// the corpus is absent.
func CorpusRoot(tb testing.TB) string {
	tb.Helper()
	return testenv.CorpusRoot(tb)
}

// All accepts every file.
func All(File) bool { return true }

// TotalSize returns the sum of the known unpacked sizes of the files that
// keep accepts.
func TotalSize(files []File, keep func(File) bool) int64 {
	var n int64
	for _, f := range files {
		if keep(f) && f.Size > 0 {
			n += f.Size
		}
	}
	return n
}

// BenchDecode is the decoder benchmark loop: each operation decodes the
// files that keep accepts, in order, calling decode with a reader over the
// packed data and a CRC32 writer for the output (as an extractor checks
// it). It reports size bytes per operation (TotalSize of some selection),
// allocations and CPU time.
func BenchDecode(b *testing.B, files []File, size int64, keep func(File) bool, decode func(r io.Reader, f File, w io.Writer) error) {
	h := crc32.NewIEEE()
	var r bytes.Reader
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := StartCPU()
	for b.Loop() {
		for _, f := range files {
			if !keep(f) {
				continue
			}
			r.Reset(f.Data)
			h.Reset()
			if err := decode(&r, f, h); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(b, size)
}

// BenchExtract is the loop of a comparison benchmark that extracts every
// entry of the archive at path with another implementation, discarding the
// output; size is the byte count to report per extraction. open starts an
// extraction and returns the reader of the current entry's contents and a
// function that moves to the next entry (io.EOF after the last).
func BenchExtract(b *testing.B, path string, size int64, open func(io.Reader) (io.Reader, func() error, error)) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := StartCPU()
	for b.Loop() {
		r, next, err := open(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.Report(b, size)
}
