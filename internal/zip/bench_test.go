package zip

import (
	stdzip "archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/deflate64"
	"github.com/garc-dev/garc/internal/testenv"
	kflate "github.com/klauspost/compress/flate"
)

// benchSize is the size of the benchmark input: the standard mixed data
// (tools/mixed-data: Go sources as a tar, then Go binaries).
const benchSize = 32 << 20

var (
	benchOnce sync.Once
	benchPath string // the archive: one Deflate entry of mixed data, made by 7zz -mx5
	benchErr  error
)

// benchArchive builds (once per process) a ZIP with one Deflate entry of
// benchSize bytes of mixed data, written by 7zz.
func benchArchive(b *testing.B) string {
	b.Helper()
	exe := testenv.SevenZip(b)
	tool := filepath.Join("..", "..", "..", "shared", "tools", "mixed-data")
	if _, err := os.Stat(tool); err != nil {
		testenv.Missing(b, "../shared/tools/mixed-data")
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "garc-zip-bench")
		if err != nil {
			benchErr = err
			return
		}
		data, err := exec.Command(tool, "33554432").Output()
		if err != nil {
			benchErr = err
			return
		}
		if err = os.WriteFile(filepath.Join(dir, "mixed.bin"), data[:benchSize], 0o644); err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, "mixed.zip")
		cmd := exec.Command(exe, "a", "-tzip", "-mm=Deflate", "-mx5", "-mmt=1", benchPath, "mixed.bin")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			benchErr = err
			b.Logf("%s", out)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

// BenchmarkExtractDeflate extracts (decodes, CRC-checks, discards) the
// 32 MiB Deflate entry through the reader; BenchmarkExtractDeflate7zz
// runs `7zz t -mmt=1` on the same archive for comparison.
func BenchmarkExtractDeflate(b *testing.B) {
	path := benchArchive(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	benchExtract(b, f, st.Size(), benchSize)
}

// benchExtract opens the archive f (size bytes) and extracts every entry
// (decoded, CRC-checked, discarded) b.N times, reporting the CPU time per
// byte of content (content bytes in all).
func benchExtract(b *testing.B, f *os.File, size, content int64) {
	buf := make([]byte, 256<<10)
	b.SetBytes(content)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testenv.StartCPU()
	defer cpu.Report(b, content)
	for i := 0; i < b.N; i++ {
		r, err := NewReader(f, size, &archive.Options{})
		if err != nil {
			b.Fatal(err)
		}
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
			_, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{rc}, buf)
			return err
		})
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractDeflate7zz(b *testing.B) {
	path := benchArchive(b)
	exe := testenv.SevenZip(b)
	b.SetBytes(benchSize)
	var wall time.Duration
	_, child0 := testenv.CPUTime()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if out, err := exec.Command(exe, "t", "-mmt=1", path).CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		wall += time.Since(start)
	}
	_, child1 := testenv.CPUTime()
	if d := child1 - child0; d > 0 {
		per := float64(d.Nanoseconds()) / float64(b.N)
		b.ReportMetric(per, "cpu-ns/op")
		b.ReportMetric(float64(benchSize)/per*1e3, "cpu-MB/s")
	}
}

// BenchmarkDeflateDecoders decodes the entry's raw Deflate stream with
// each candidate decoder: the choice of internal/deflate64 for method 8
// rests on this comparison.
func BenchmarkDeflateDecoders(b *testing.B) {
	path := benchArchive(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	r, err := openBytes(b, data, "")
	if err != nil {
		b.Fatal(err)
	}
	zf := &r.(*Reader).files[0]
	raw := data[zf.dataOff : zf.dataOff+zf.csize]
	d64 := deflate64.New(nil, false)
	kf := kflate.NewReader(nil)
	sf := flate.NewReader(nil)
	for _, c := range []struct {
		name  string
		reset func(io.Reader) io.Reader
	}{
		{"deflate64", func(r io.Reader) io.Reader { d64.ResetMode(r, false); return d64 }},
		{"klauspost", func(r io.Reader) io.Reader { kf.(kflate.Resetter).Reset(r, nil); return kf }},
		{"stdlib", func(r io.Reader) io.Reader { sf.(flate.Resetter).Reset(r, nil); return sf }},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 256<<10)
			b.SetBytes(benchSize)
			b.ReportAllocs()
			cpu := testenv.StartCPU()
			defer cpu.Report(b, benchSize)
			for i := 0; i < b.N; i++ {
				n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{c.reset(bytes.NewReader(raw))}, buf)
				if err != nil || n != benchSize {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// TestExtractAllocsFlat: extracting a Deflate entry allocates the same
// whatever its size (1 MiB against 8 MiB of mixed data), the decoder and
// buffers being reused.
func TestExtractAllocsFlat(t *testing.T) {
	data := testenv.MixedData(t, 8<<20)
	small := buildZip(t, []testFile{{name: "f", data: data[:1<<20], method: stdzip.Deflate}}, "")
	large := buildZip(t, []testFile{{name: "f", data: data, method: stdzip.Deflate}}, "")
	buf := make([]byte, 256<<10)
	extract := func(b []byte) func() {
		return func() {
			r, err := NewReader(bytes.NewReader(b), int64(len(b)), &archive.Options{Name: "a.zip"})
			if err != nil {
				t.Fatal(err)
			}
			err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				_, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{rd}, buf)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	a1, a8 := testing.AllocsPerRun(3, extract(small)), testing.AllocsPerRun(3, extract(large))
	t.Logf("%.0f allocations for 1 MiB, %.0f for 8 MiB", a1, a8)
	if a8 > a1+16 {
		t.Errorf("%.0f allocations for 8 MiB against %.0f for 1 MiB: not flat", a8, a1)
	}
}
