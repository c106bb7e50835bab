package sevenzip

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

const benchInputSize = 8 << 20

var (
	benchInputOnce sync.Once
	benchInput     []byte
)

// benchData returns the benchmark input: deterministic mixed data
// (text, binary and random runs) generated in code.
func benchData(b *testing.B) []byte {
	benchInputOnce.Do(func() { benchInput = mixedData(42, benchInputSize) })
	return benchInput
}

// benchArchive builds an archive with 7zz from either one big file or many
// small ones.
func benchArchive(b *testing.B, many bool, args ...string) []byte {
	sevenzz := testenv.SevenZip(b)
	data := benchData(b)
	src := b.TempDir()
	if many {
		const part = 4 << 10
		for i := 0; i*part < len(data); i++ {
			p := filepath.Join(src, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%05d", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data[i*part:min(len(data), (i+1)*part)], 0o644); err != nil {
				b.Fatal(err)
			}
		}
	} else if err := os.WriteFile(filepath.Join(src, "mixed.bin"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	arc := filepath.Join(b.TempDir(), "b.7z")
	run7zz(b, sevenzz, src, arc, args...)
	out, err := os.ReadFile(arc)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchExtract(b *testing.B, many bool, password string, args ...string) {
	benchExtractThreads(b, many, password, 1, args...)
}

func benchExtractThreads(b *testing.B, many bool, password string, threads int, args ...string) {
	arc := benchArchive(b, many, args...)
	opts := &archive.Options{Threads: threads}
	// An encrypted archive is opened once, outside the timed loop, so that
	// the benchmark measures decryption and decoding, not the 2^19-round
	// key derivation (which the reader caches).
	var shared archive.Reader
	if password != "" {
		opts.Password = func() (string, error) { return password, nil }
		var err error
		if shared, err = NewReader(bytes.NewReader(arc), int64(len(arc)), opts); err != nil {
			b.Fatal(err)
		}
		defer shared.Close()
	}
	buf := make([]byte, 64<<10)
	var total int64
	var ms0, ms1 runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	runtime.ReadMemStats(&ms0)
	for i := 0; i < b.N; i++ {
		rd := shared
		if rd == nil {
			var err error
			if rd, err = NewReader(bytes.NewReader(arc), int64(len(arc)), opts); err != nil {
				b.Fatal(err)
			}
		}
		var n int64
		err := rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
			for {
				k, err := r.Read(buf)
				n += int64(k)
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		if rd != shared {
			rd.Close()
		}
		total += n
		b.SetBytes(n)
	}
	runtime.ReadMemStats(&ms1)
	if total > 0 {
		b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/(float64(total)/(1<<20)), "B-alloc/MiB")
	}
}

func BenchmarkExtract7zLZMA(b *testing.B) { benchExtract(b, false, "", "-m0=LZMA", "-mx=5") }
func BenchmarkExtract7zLZMA2(b *testing.B) {
	benchExtract(b, false, "", "-m0=LZMA2", "-mx=5", "-mmt=1")
}
func BenchmarkExtract7zPPMd(b *testing.B)  { benchExtract(b, false, "", "-m0=PPMd") }
func BenchmarkExtract7zBZip2(b *testing.B) { benchExtract(b, false, "", "-m0=BZip2") }
func BenchmarkExtract7zDeflate(b *testing.B) {
	benchExtract(b, false, "", "-m0=Deflate")
}
func BenchmarkExtract7zAESLZMA2(b *testing.B) {
	benchExtract(b, false, "secret", "-m0=LZMA2", "-mx=5", "-mmt=1", "-psecret", "-mhe=on")
}
func BenchmarkExtract7zSolid(b *testing.B) {
	benchExtract(b, true, "", "-m0=LZMA2", "-mx=5", "-ms=on", "-mmt=1")
}
func BenchmarkExtract7zManySmallFiles(b *testing.B) {
	benchExtract(b, true, "", "-m0=LZMA2", "-mx=5", "-ms=off", "-mmt=1")
}

// BenchmarkLZMAEngines compares the LZMA decoders of ulikunitz/xz and
// internal/lzma on the same archives, swapping the constructors in the
// method registry.
func BenchmarkLZMAEngines(b *testing.B) {
	engines := []struct {
		name      string
		lzma, xz2 newDecoderFunc
	}{
		{"xz", newLZMADecoderXZ, newLZMA2DecoderXZ},
		{"garc", newLZMADecoder, newLZMA2Decoder},
	}
	savedLZMA, savedLZMA2 := methods()[methodLZMA].newDecoder, methods()[methodLZMA2].newDecoder
	defer func() { methods()[methodLZMA].newDecoder, methods()[methodLZMA2].newDecoder = savedLZMA, savedLZMA2 }()
	for _, m := range []string{"LZMA", "LZMA2"} {
		for _, e := range engines {
			b.Run(m+"/"+e.name, func(b *testing.B) {
				methods()[methodLZMA].newDecoder, methods()[methodLZMA2].newDecoder = e.lzma, e.xz2
				benchExtract(b, false, "", "-m0="+m, "-mx=5", "-mmt=1")
			})
		}
	}
}

// BenchmarkExtract7zFile measures extraction ("garc t") of the archive
// named by SEVENZIP_BENCH_ARCHIVE (e.g. a 100 MB 7z of mixed-data), for
// comparison with `7zz t -mmt=1` on the same file.
func BenchmarkExtract7zFile(b *testing.B) {
	path := os.Getenv("SEVENZIP_BENCH_ARCHIVE")
	if path == "" {
		b.Skip("set SEVENZIP_BENCH_ARCHIVE to a 7z file to measure it")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	buf := make([]byte, 256<<10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rd, err := NewReader(f, st.Size(), &archive.Options{Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		err = rd.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
			k, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
			n += k
			return err
		})
		rd.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

// BenchmarkExtract7zManySmallFilesThreads2 is the non-solid case decoded
// with two threads (folders prefetched in the background).
func BenchmarkExtract7zManySmallFilesThreads2(b *testing.B) {
	benchExtractThreads(b, true, "", 2, "-m0=LZMA2", "-mx=5", "-ms=off", "-mmt=1")
}

// BenchmarkExtract7zSolidBlocksThreads2 decodes 1 MiB solid blocks with
// two threads.
func BenchmarkExtract7zSolidBlocksThreads2(b *testing.B) {
	benchExtractThreads(b, true, "", 2, "-m0=LZMA2", "-mx=5", "-ms=1m", "-mmt=1")
}
