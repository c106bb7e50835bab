package lzma

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
	ulzma "github.com/ulikunitz/xz/lzma"
)

const benchSize = 8 << 20

var benchXZ struct {
	sync.Mutex
	xz []byte
}

// sevenZipXZ returns a .xz file made by 7zz -mx5 from the first benchSize
// bytes of the mixed input (made once per test binary), and that input.
func sevenZipXZ(b *testing.B) ([]byte, []byte) {
	b.Helper()
	data := mixedInput(b, benchSize)
	benchXZ.Lock()
	defer benchXZ.Unlock()
	if benchXZ.xz != nil {
		return benchXZ.xz, data
	}
	sevenZip := testenv.SevenZip(b)
	dir := b.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out.xz")
	if o, err := exec.Command(sevenZip, "a", "-txz", "-mx5", "-mmt1", out, in).CombinedOutput(); err != nil {
		b.Fatalf("7zz: %v\n%s", err, o)
	}
	xz, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	benchXZ.xz = xz
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

// BenchmarkDecodeLZMA2Fresh compares the LZMA2 decoders of garc and
// ulikunitz/xz on equal terms: both decode the raw LZMA2 stream of 7zz's
// .xz (parsed once, outside the loop) with a reader made afresh in each
// iteration, since ulikunitz's readers cannot be reset.
func BenchmarkDecodeLZMA2Fresh(b *testing.B) {
	xz, data := sevenZipXZ(b)
	raw, prop, err := parseXZ(xz)
	if err != nil {
		b.Fatal(err)
	}
	dict, _ := lzma2DictSize(prop)
	b.Run("garc", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			z, err := NewReader2(bytes.NewReader(raw), prop, int64(len(data)), 0)
			if err != nil {
				b.Fatal(err)
			}
			if n, err := z.WriteTo(io.Discard); err != nil || n != int64(len(data)) {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("ulikunitz", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := ulzma.Reader2Config{DictCap: int(min(dict, 1<<30))}.NewReader2(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(data)) {
				b.Fatal(n, err)
			}
		}
	})
}

func benchEncode(b *testing.B, level int, lzma2 bool) { benchEncodeThreads(b, level, lzma2, 1) }

func benchEncodeThreads(b *testing.B, level int, lzma2 bool, threads int) {
	data := mixedInput(b, 4<<20)
	o := LevelOptions(level)
	o.Threads = threads
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out bytes.Buffer
	if lzma2 {
		w, err := NewWriter2(&out, o)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out.Reset()
			w.Reset(&out)
			w.Write(data)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		w, err := NewWriter(&out, o)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out.Reset()
			w.Reset(&out)
			w.Write(data)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(out.Len())/float64(len(data))*100, "%size")
}

func BenchmarkEncodeLZMA2Mx1(b *testing.B)         { benchEncode(b, 1, true) }
func BenchmarkEncodeLZMA2Mx3(b *testing.B)         { benchEncode(b, 3, true) }
func BenchmarkEncodeLZMA2Mx5(b *testing.B)         { benchEncode(b, 5, true) }
func BenchmarkEncodeLZMA2Mx7(b *testing.B)         { benchEncode(b, 7, true) }
func BenchmarkEncodeLZMA2Mx9(b *testing.B)         { benchEncode(b, 9, true) }
func BenchmarkEncodeLZMA2Mx5Threads2(b *testing.B) { benchEncodeThreads(b, 5, true, 2) }
func BenchmarkEncodeLZMAMx1(b *testing.B)          { benchEncode(b, 1, false) }
func BenchmarkEncodeLZMAMx5(b *testing.B)          { benchEncode(b, 5, false) }

func benchDecodeOurs(b *testing.B, level int) {
	data := mixedInput(b, 4<<20)
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, LevelOptions(level))
	w.Write(data)
	w.Close()
	comp, props := buf.Bytes(), w.Props()
	z, err := NewReader(bytes.NewReader(comp), props, int64(len(data)), 0)
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(comp)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Reset(comp)
		z.Reset(r, props, int64(len(data)))
		if n, err := z.WriteTo(io.Discard); err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkDecodeLZMAMx1(b *testing.B) { benchDecodeOurs(b, 1) }
func BenchmarkDecodeLZMAMx5(b *testing.B) { benchDecodeOurs(b, 5) }
func BenchmarkDecodeLZMAMx9(b *testing.B) { benchDecodeOurs(b, 9) }
