package stream

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// extractBuffer opens data as a single-stream file and extracts it to
// io.Discard through buf, as `garc x` does.
func extractBuffer(tb testing.TB, data []byte, kind Kind, buf []byte) int64 {
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)), kind, &archive.Options{Name: "b.xz"})
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	err = f.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{rd}, buf)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkExtractXZ decodes a .xz of 32 MiB of mixed data (without its
// leading tar, as scripts/compare-read.sh does) made by xz -6 -T1;
// compare with `xz -dc -T1`.
func BenchmarkExtractXZ(b *testing.B) {
	data := testenv.MixedData(b, 32<<20+1024)[1024:]
	comp := tool(b, data, "xz", "-c", "-6", "-T1")
	buf := make([]byte, 256<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		extractBuffer(b, comp, XZ, buf)
	}
}

// TestExtractAllocsFlat: extracting a .xz allocates the same whatever its
// size (1 MiB against 8 MiB).
func TestExtractAllocsFlat(t *testing.T) {
	data := testenv.MixedData(t, 8<<20+1024)[1024:]
	small := tool(t, data[:1<<20], "xz", "-c", "-1", "-T1")
	large := tool(t, data, "xz", "-c", "-1", "-T1")
	buf := make([]byte, 256<<10)
	a1 := testing.AllocsPerRun(3, func() { extractBuffer(t, small, XZ, buf) })
	a8 := testing.AllocsPerRun(3, func() { extractBuffer(t, large, XZ, buf) })
	t.Logf("%.0f allocations for 1 MiB, %.0f for 8 MiB", a1, a8)
	if a8 > a1+16 {
		t.Errorf("%.0f allocations for 8 MiB against %.0f for 1 MiB: not flat", a8, a1)
	}
}
