package lzma

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkBinaryTreeFind runs the binary-tree finder alone over 4 MiB of
// mixed data with the settings of -mx5 and -mx9, as the optimal parser
// drives it (every position searched), and reports the thread's CPU time
// per position beside the wall time, which a shared machine makes noisy.
func BenchmarkBinaryTreeFind(b *testing.B) {
	data := mixedInput(b, 4<<20)
	for _, level := range []int{5, 9} {
		b.Run(fmt.Sprintf("mx%d", level), func(b *testing.B) {
			o := LevelOptions(level)
			mf := newMatchFinder(true, 4, o.DictSize, o.FastBytes, o.Cycles)
			ms := make([]match, 0, maxMatchLen+8)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			var found int
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				mf.reset(data)
				start := threadCPU(b)
				for mf.pos < mf.end {
					ms = mf.find(ms)
					found += len(ms)
				}
				cpu += threadCPU(b) - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(data)), "cpu-ns/B")
			b.ReportMetric(float64(found)/float64(b.N), "matches/op")
		})
	}
}

// BenchmarkEncodeThreadsCPU encodes 8 MiB of mixed data as LZMA2 at mx5
// and mx9 with one and two threads (two: the parallel binary-tree finder)
// and reports the process's CPU time per byte beside the wall time, so
// that the CPU the finder's hand-over costs can be compared with one
// thread's (the machine being shared, wall time alone says little).
func BenchmarkEncodeThreadsCPU(b *testing.B) {
	data := mixedInput(b, 8<<20)
	for _, level := range []int{5, 9} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("mx%d/threads=%d", level, threads), func(b *testing.B) {
				o := LevelOptions(level)
				o.Threads = threads
				cpu, n := encodeLoop(b, data, o)
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(data)), "cpu-ns/B")
				b.ReportMetric(float64(n), "bytes")
			})
		}
	}
}
