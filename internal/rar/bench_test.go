package rar

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/nwaples/rardecode/v2"
)

// benchArchive is a corpus archive used by the benchmarks.
type benchArchive struct {
	name, path, password string
}

var benchRAR5 = []benchArchive{
	{"issue1050", "files/sharpcompress/Archives__Rar.issue1050.rar", ""},
	{"m3-plain-32m", "files/junrar/com__github__junrar__rar5unpack__m3-plain-32m.rar", ""},
	{"m5-solid-128k", "files/junrar/com__github__junrar__rar5unpack__m5-solid-128k.rar", ""},
	{"delta", "files/junrar/com__github__junrar__rar5filters__rar5-delta.rar", ""},
	{"arm", "files/libarchive/test_read_format_rar5_arm.rar", ""},
	{"blake2", "files/sharpcompress/Archives__Rar5.crc_blake2.rar", ""},
	{"enc-p", "files/junrar/com__github__junrar__rar5unpack__m3-enc-p.rar", "junrar"},
}

var benchRAR4 = []benchArchive{
	{"binary_data", "files/libarchive/test_read_format_rar_binary_data.rar", ""},
	{"audio_program", "files/sharpcompress/Archives__Rar.Audio_program.rar", ""},
	{"ppmd_lzss", "files/libarchive/test_read_format_rar_ppmd_lzss_conversion.rar", ""},
	{"filter", "files/libarchive/test_read_format_rar_filter.rar", ""},
	{"solid", "files/sharpcompress/Archives__Rar.solid.rar", ""},
	{"encrypted", "files/unrarkit/Test_Data__Test_Archive__Password_.rar", "password"},
	{"v20-folder", "files/unrarkit/Test_Data__Folder_Archive.rar", ""},
	{"v20-audio", "files/junrar/com__github__junrar__audio__BoatModernEnglish-audio-text-unpack20.rar", ""},
	{"v15", "files/sharpcompress/Archives__Rar15.rar", ""},
}

func benchOpts(pw string) *archive.Options {
	o := &archive.Options{}
	if pw != "" {
		o.Password = func() (string, error) { return pw, nil }
	}
	return o
}

// extractDiscard extracts every entry of path to io.Discard and returns
// the number of bytes produced.
func extractDiscard(tb testing.TB, path, pw string) int64 {
	r, err := Open(path, benchOpts(pw))
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var total int64
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		n, err := io.Copy(io.Discard, rd)
		total += n
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

func rardecodeDiscard(path, pw string) (int64, error) {
	var opts []rardecode.Option
	if pw != "" {
		opts = append(opts, rardecode.Password(pw))
	}
	rc, err := rardecode.OpenReader(path, opts...)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var total int64
	for {
		_, err := rc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, err
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

func runBench(b *testing.B, list []benchArchive) {
	root := testenv.CorpusRoot(b)
	for _, a := range list {
		path := filepath.Join(root, a.path)
		b.Run(a.name+"/garc", func(b *testing.B) {
			r, err := Open(path, benchOpts(a.password))
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, e := range r.Entries() {
				if e.Size > 0 && e.Type == archive.TypeFile {
					size += e.Size
				}
			}
			err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				_, err := io.Copy(io.Discard, rd)
				return err
			})
			r.Close()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			b.ResetTimer()
			cpu := testenv.StartCPU()
			for i := 0; i < b.N; i++ {
				sharedKeys.Clear() // pay the key derivation like a fresh process
				extractDiscard(b, path, a.password)
			}
			b.StopTimer()
			cpu.Report(b, size)
			runtime.ReadMemStats(&ms1)
			if size > 0 {
				b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/(float64(size)/(1<<20)), "allocB/MiB")
			}
		})
		b.Run(a.name+"/rardecode", func(b *testing.B) {
			n, err := rardecodeDiscard(path, a.password)
			if err != nil {
				b.Skipf("rardecode cannot read it: %v", err)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testenv.StartCPU()
			for i := 0; i < b.N; i++ {
				if _, err := rardecodeDiscard(path, a.password); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu.Report(b, n)
		})
	}
}

func BenchmarkRAR5(b *testing.B) { runBench(b, benchRAR5) }
func BenchmarkRAR4(b *testing.B) { runBench(b, benchRAR4) }
