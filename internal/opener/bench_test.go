package opener

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkDetectNoSignature is the worst case: a 4 MiB file without any
// signature is scanned completely.
func BenchmarkDetectNoSignature(b *testing.B) {
	data := bytes.Repeat([]byte("MZ some executable code R7 "), MaxSFXScan/27+1)[:MaxSFXScan]
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := Detect(r, int64(len(data))); ok {
			b.Fatal("found a signature")
		}
	}
}

// BenchmarkDetectAtStart is the common case: the signature at offset 0.
func BenchmarkDetectAtStart(b *testing.B) {
	data := append(start7z(), make([]byte, 1<<20)...)
	r := bytes.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := Detect(r, int64(len(data))); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkMultiReaderAt(b *testing.B) {
	const part = 1 << 20
	var parts []io.ReaderAt
	var sizes []int64
	for i := 0; i < 8; i++ {
		parts = append(parts, bytes.NewReader(make([]byte, part)))
		sizes = append(sizes, part)
	}
	m, _ := NewMultiReaderAt(parts, sizes)
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	off := int64(0)
	for b.Loop() {
		m.ReadAt(buf, off)
		off = (off + part - 1000) % (m.Size() - int64(len(buf)))
	}
}
