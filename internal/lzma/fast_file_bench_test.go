package lzma

import (
	"os"
	"strconv"
	"testing"
)

// BenchmarkEncodeFastFile compresses the file named by GARC_FAST_FILE (its
// first GARC_FAST_MIB MiB, 32 by default) as LZMA2 at level
// GARC_FAST_LEVEL (1 by default) on one thread, as
// BenchmarkEncodeFastLevels does with generated data: for profiling the
// fast levels on the benchmark classes (utf16, exec …), whose inputs are
// not part of the repository. GARC_FAST_BLOCK_MIB sets the block size.
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
	o := LevelOptions(level)
	if v, err := strconv.Atoi(os.Getenv("GARC_FAST_BLOCK_MIB")); err == nil && v > 0 {
		o.BlockSize = int64(v) << 20
	}
	cpu, n := encodeLoop(b, data, o)
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(n), "bytes")
}
