package lzma

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// BenchmarkEncodeFastLevels compresses 32 MiB of mixed data (the input of
// issue 14's comparison with 7zz) as LZMA2 at the fast levels on one
// thread, the Writer2 reused across iterations. cpu-ms/op is the
// process's CPU time (user+sys), which on a shared machine moves less
// than the wall time.
func BenchmarkEncodeFastLevels(b *testing.B) {
	data := mixedInput(b, 32<<20)
	for _, level := range []int{1, 3} {
		b.Run(fmt.Sprintf("mx%d", level), func(b *testing.B) {
			cpu, n := encodeLoop(b, data, LevelOptions(level))
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

// encodeLoop encodes data b.N times as LZMA2 with one Writer2 reset
// between iterations, and returns the process's CPU time over the loop
// and the size of the last output.
func encodeLoop(b *testing.B, data []byte, o WriterOptions) (cpu time.Duration, size int) {
	var out bytes.Buffer
	w, err := NewWriter2(&out, o)
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
	return processCPU(b) - start, out.Len()
}
