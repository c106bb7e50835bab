package bzip2

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

const writerBenchSize = 4 << 20

// writerBenchInput returns 4 MiB of the standard mixed benchmark data.
func writerBenchInput(b *testing.B) []byte {
	b.Helper()
	return testenv.MixedData(b, writerBenchSize)
}

// BenchmarkWriter compresses 4 MiB of mixed data at level 9 with our
// Writer (one and two threads), bzip2 -9 and 7zz's BZip2 coder with one
// thread. The tools' CPU time is that of the child processes; cpu-MB/s is
// the figure to compare.
func BenchmarkWriter(b *testing.B) {
	raw := writerBenchInput(b)
	for _, threads := range []int{1, 2} {
		name := "garc"
		if threads > 1 {
			name = "garc-threads2"
		}
		b.Run(name, func(b *testing.B) {
			z, err := NewWriterThreads(io.Discard, 9, threads)
			if err != nil {
				b.Fatal(err)
			}
			var size countWriter
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			defer reportCPU(b, len(raw))()
			for b.Loop() {
				size = 0
				z.Reset(&size)
				if _, err := z.Write(raw); err != nil {
					b.Fatal(err)
				}
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
	b.Run("bzip2-9", func(b *testing.B) {
		tool := testenv.Tool(b, "bzip2")
		b.SetBytes(int64(len(raw)))
		defer reportChildCPU(b, len(raw))()
		var n int
		for b.Loop() {
			cmd := exec.Command(tool, "-9", "-c")
			cmd.Stdin = bytes.NewReader(raw)
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			n = len(out)
		}
		b.ReportMetric(float64(n), "bytes")
	})
	b.Run("7zz-mmt1", func(b *testing.B) {
		tool := testenv.SevenZip(b)
		dir := b.TempDir()
		in := filepath.Join(dir, "in")
		if err := os.WriteFile(in, raw, 0o644); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(raw)))
		defer reportChildCPU(b, len(raw))()
		var n int64
		for b.Loop() {
			arc := filepath.Join(dir, "a.7z")
			os.Remove(arc)
			cmd := exec.Command(tool, "a", "-m0=BZip2", "-mmt1", "-bso0", "-bsp0", arc, in)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			fi, err := os.Stat(arc)
			if err != nil {
				b.Fatal(err)
			}
			n = fi.Size()
		}
		b.ReportMetric(float64(n), "bytes")
	})
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// reportChildCPU is reportCPU for the CPU time of child processes.
func reportChildCPU(b *testing.B, bytesPerOp int) func() {
	_, start := testenv.CPUTime()
	return func() {
		_, now := testenv.CPUTime()
		if d := now - start; d > 0 && b.N > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
		}
	}
}

// BenchmarkWriterRepetitive measures inputs that are hard for comparison
// sorting (long repeats), at level 9, against bzip2 -9.
func BenchmarkWriterRepetitive(b *testing.B) {
	unit := randomBytes(1000, 61)
	inputs := []namedInput{
		{"alternating", alternating(4<<20, 'a', 'b')},
		{"period-1000", bytes.Repeat(unit, 4200)[:4<<20]},
		{"text-repeated", bytes.Repeat(textBytes(64<<10, 62), 64)},
	}
	for _, in := range inputs {
		b.Run(in.name+"/garc", func(b *testing.B) {
			z, _ := NewWriterThreads(io.Discard, 9, 1)
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			defer reportCPU(b, len(in.data))()
			for b.Loop() {
				z.Reset(io.Discard)
				z.Write(in.data)
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/bzip2-9", func(b *testing.B) {
			tool := testenv.Tool(b, "bzip2")
			b.SetBytes(int64(len(in.data)))
			defer reportChildCPU(b, len(in.data))()
			for b.Loop() {
				cmd := exec.Command(tool, "-9", "-c")
				cmd.Stdin = bytes.NewReader(in.data)
				if _, err := cmd.Output(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
