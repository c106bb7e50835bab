package unpack15

import (
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports the process CPU time per operation next to the wall
// time, so that comparisons stay meaningful on a loaded machine.
type cpuTimer struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuTimer { return cpuTimer{cpuNow()} }

func (c cpuTimer) report(b *testing.B, bytes int64) {
	el := cpuNow() - c.start
	if el <= 0 || b.N == 0 {
		return
	}
	per := float64(el.Nanoseconds()) / float64(b.N)
	b.ReportMetric(per, "cpu-ns/op")
	b.ReportMetric(float64(bytes)/per*1e3, "cpu-MB/s")
}
