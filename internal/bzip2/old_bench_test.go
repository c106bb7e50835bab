package bzip2

import (
	"bytes"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/bzip2/internal/old"
)

func BenchmarkDecodeOld(b *testing.B) {
	raw, comp := benchInput(b)
	z := old.NewReader(bytes.NewReader(comp))
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
}
