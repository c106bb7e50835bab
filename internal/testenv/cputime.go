package testenv

import (
	"testing"
	"time"
)

// CPUTimer measures the process CPU time spent by a benchmark.
type CPUTimer struct{ start time.Duration }

// StartCPU starts measuring CPU time.
func StartCPU() CPUTimer {
	self, _ := CPUTime()
	return CPUTimer{self}
}

// Report adds the metrics cpu-ns/op and, when bytes > 0, cpu-MB/s (bytes
// per operation) for the CPU time spent since StartCPU. Nothing is
// reported where CPU time is not measured.
func (c CPUTimer) Report(b *testing.B, bytes int64) {
	now, _ := CPUTime()
	el := now - c.start
	if el <= 0 || b.N == 0 {
		return
	}
	per := float64(el.Nanoseconds()) / float64(b.N)
	b.ReportMetric(per, "cpu-ns/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/per*1e3, "cpu-MB/s")
	}
}
