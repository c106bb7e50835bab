package lzma

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// BenchmarkEncodeFastFile compresses the file named by GARC_FAST_FILE (its
// first GARC_FAST_MIB MiB, 32 by default) as LZMA2 at level
// GARC_FAST_LEVEL (1 by default) on one thread, as
// BenchmarkEncodeFastLevels does with generated data: for profiling the
// fast levels on the benchmark classes (utf16, exec …), whose inputs are
// not part of the repository.
func BenchmarkEncodeFastFile(b *testing.B) {
	name := os.Getenv("GARC_FAST_FILE")
	if name == "" {
		b.Skip("GARC_FAST_FILE names no input")
	}
	mib, level := 32, 1
	if v, err := strconv.Atoi(os.Getenv("GARC_FAST_MIB")); err == nil && v > 0 {
		mib = v
	}
	if v, err := strconv.Atoi(os.Getenv("GARC_FAST_LEVEL")); err == nil && v > 0 {
		level = v
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	data = data[:min(len(data), mib<<20)]
	var out bytes.Buffer
	w, err := NewWriter2(&out, LevelOptions(level))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU(b)
	for i := 0; i < b.N; i++ {
		out.Reset()
		w.Reset(&out)
		if _, err := w.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU(b)-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(out.Len()), "bytes")
}
