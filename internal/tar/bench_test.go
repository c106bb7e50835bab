package tar

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressedTar is a tar of one file of n bytes of the standard mixed
// data, compressed with kind (gzip -6 or zstd -3 equivalents).
func compressedTar(tb testing.TB, kind stream.Kind, n int) []byte {
	tb.Helper()
	data := testenv.MixedData(tb, n)
	var t bytes.Buffer
	tw := stdtar.NewWriter(&t)
	tw.WriteHeader(&stdtar.Header{Name: "mixed.bin", Typeflag: stdtar.TypeReg, Mode: 0o644, Size: int64(len(data))})
	tw.Write(data)
	tw.Close()
	var c bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case stream.Gzip:
		w, _ = gzip.NewWriterLevel(&c, 6)
	case stream.Zstd:
		w, _ = zstd.NewWriter(&c, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	default:
		tb.Fatalf("kind %v", kind)
	}
	w.Write(t.Bytes())
	w.Close()
	return c.Bytes()
}

// extractTo opens a compressed tar and extracts it to io.Discard the way
// `garc x` does (Extract only, no Entries first), with buf as the copy
// buffer; it returns the bytes extracted.
func extractTo(tb testing.TB, comp []byte, kind stream.Kind, buf []byte) int64 {
	r, err := Open(bytes.NewReader(comp), int64(len(comp)), kind, &archive.Options{Name: "b"})
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{rd}, buf)
		total += n
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// BenchmarkExtract extracts a .tar.gz and a .tar.zst of 32 MiB of mixed
// data (compare with scripts/compare-read.sh for tar xzf / tar --zstd -xf).
func BenchmarkExtract(b *testing.B) {
	for _, c := range []struct {
		name string
		kind stream.Kind
	}{{"tar.gz", stream.Gzip}, {"tar.zst", stream.Zstd}} {
		b.Run(c.name, func(b *testing.B) {
			comp := compressedTar(b, c.kind, 32<<20)
			buf := make([]byte, 256<<10)
			b.SetBytes(32 << 20)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				extractTo(b, comp, c.kind, buf)
			}
		})
	}
}

// TestExtractAllocsFlat: allocations of extracting a compressed tar do
// not grow with the payload (1 MiB against 8 MiB).
func TestExtractAllocsFlat(t *testing.T) {
	testenv.Short(t, "compresses 9 MiB twice")
	for _, kind := range []stream.Kind{stream.Gzip, stream.Zstd} {
		small, large := compressedTar(t, kind, 1<<20), compressedTar(t, kind, 8<<20)
		buf := make([]byte, 256<<10)
		a1 := testing.AllocsPerRun(3, func() { extractTo(t, small, kind, buf) })
		a8 := testing.AllocsPerRun(3, func() { extractTo(t, large, kind, buf) })
		t.Logf("%v: %.0f allocations for 1 MiB, %.0f for 8 MiB", kind, a1, a8)
		if a8 > a1+16 {
			t.Errorf("%v: %.0f allocations for 8 MiB against %.0f for 1 MiB: not flat", kind, a8, a1)
		}
	}
}
