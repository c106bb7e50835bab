package lzma

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	uxz "github.com/ulikunitz/xz"
)

const benchSize = 8 << 20

// sevenZipXZ returns a .xz file made by 7zz -mx5 from the first benchSize
// bytes of the mixed input, cached in the temporary directory.
func sevenZipXZ(b *testing.B) ([]byte, []byte) {
	b.Helper()
	data := mixedInput(b, benchSize)
	path := filepath.Join(os.TempDir(), "garc-lzma-bench-mixed8m.xz")
	if xz, err := os.ReadFile(path); err == nil {
		return xz, data
	}
	if _, err := exec.LookPath("7zz"); err != nil {
		b.Skip("7zz not installed")
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out.xz")
	if o, err := exec.Command("7zz", "a", "-txz", "-mx5", "-mmt1", out, in).CombinedOutput(); err != nil {
		b.Fatalf("7zz: %v\n%s", err, o)
	}
	xz, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(path, xz, 0o644)
	return xz, data
}

func BenchmarkDecodeLZMA2_7zzMx5(b *testing.B) {
	xz, data := sevenZipXZ(b)
	raw, prop, err := parseXZ(xz)
	if err != nil {
		b.Fatal(err)
	}
	z, err := NewReader2(bytes.NewReader(raw), prop, int64(len(data)), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := z.Reset(bytes.NewReader(raw), prop, int64(len(data))); err != nil {
			b.Fatal(err)
		}
		n, err := z.WriteTo(io.Discard)
		if err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkDecodeLZMA2_7zzMx5_Ulikunitz(b *testing.B) {
	xz, data := sevenZipXZ(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := uxz.NewReader(bytes.NewReader(xz))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
	}
}
