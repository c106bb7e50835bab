package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

const benchSize = 16 << 20

var benchData struct {
	once      sync.Once
	raw, comp []byte
}

// benchInput returns 16 MiB of the standard mixed benchmark data and its
// bzip2 -9 compression.
func benchInput(b *testing.B) (raw, comp []byte) {
	b.Helper()
	testenv.Tool(b, "bzip2")
	raw = testenv.MixedData(b, benchSize)
	benchData.once.Do(func() {
		benchData.raw = raw
		benchData.comp = compressWithTool(b, raw, 9)
	})
	return benchData.raw, benchData.comp
}

func BenchmarkDecode(b *testing.B) {
	raw, comp := benchInput(b)
	b.Run("garc", func(b *testing.B) {
		z := NewReader(bytes.NewReader(comp))
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, len(raw))()
		for b.Loop() {
			z.Reset(bytes.NewReader(comp))
			n, err := z.WriteTo(io.Discard)
			if err != nil || n != int64(len(raw)) {
				b.Fatalf("%d bytes, %v", n, err)
			}
		}
	})
	b.Run("garc-threads2", func(b *testing.B) {
		z := NewReaderThreads(bytes.NewReader(comp), 2)
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		defer reportCPU(b, len(raw))()
		for b.Loop() {
			z.Reset(bytes.NewReader(comp))
			n, err := z.WriteTo(io.Discard)
			if err != nil || n != int64(len(raw)) {
				b.Fatalf("%d bytes, %v", n, err)
			}
		}
	})
	b.Run("std", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		buf := make([]byte, 256<<10)
		defer reportCPU(b, len(raw))()
		for b.Loop() {
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{stdbzip2.NewReader(bytes.NewReader(comp))}, buf)
			if err != nil || n != int64(len(raw)) {
				b.Fatalf("%d bytes, %v", n, err)
			}
		}
	})
}

func cpuTime() time.Duration {
	self, _ := testenv.CPUTime()
	return self
}

// reportCPU adds a "cpu-MB/s" metric: throughput per second of process CPU
// time, which stays meaningful on a loaded machine where wall-clock MB/s
// does not. Call as defer reportCPU(b, n)().
func reportCPU(b *testing.B, bytesPerOp int) func() {
	start := cpuTime()
	return func() {
		if d := cpuTime() - start; d > 0 && b.N > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
		}
	}
}

// BenchmarkWalk measures the inverse BWT's walk (finish: walkLanes and
// the copy to the text buffer) of the first level 9 block of the mixed
// benchmark data, linked once.
func BenchmarkWalk(b *testing.B) {
	_, comp := benchInput(b)
	z := NewReader(bytes.NewReader(comp))
	if _, err := z.Read(make([]byte, 1)); err != nil {
		b.Fatal(err)
	}
	blk := z.cur
	blk.finish()
	want := bytes.Clone(blk.pre[:blk.n])
	start := blk.tt[blk.origPtr] >> 8 & laneIndexMask
	b.SetBytes(int64(blk.n))
	tt := blk.tt[:blk.n]
	for b.Loop() {
		for i := range tt { // the flags of the last walk's cuts
			tt[i] &^= laneFlag
		}
		blk.walked, blk.cursor = 0, start
		blk.finish()
	}
	if !bytes.Equal(blk.pre[:blk.n], want) {
		b.Fatal("text differs")
	}
}
