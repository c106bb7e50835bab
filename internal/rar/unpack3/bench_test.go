package unpack3

import (
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
	"github.com/nwaples/rardecode/v2"
)

var benchArchives = []struct{ name, path string }{
	{"binary_data", "files/libarchive/test_read_format_rar_binary_data.rar"},
	{"audio", "files/sharpcompress/Archives__Rar.Audio_program.rar"},
	{"ppmd_lzss", "files/libarchive/test_read_format_rar_ppmd_lzss_conversion.rar"},
	{"filter_e8", "files/libarchive/test_read_format_rar_filter.rar"},
	{"multi_lzss", "files/libarchive/test_read_format_rar_multi_lzss_blocks.rar"},
	{"solid", "files/junrar/com__github__junrar__solid__rar4-solid.rar"},
	{"ppmd_maxmb63", "files/junrar/com__github__junrar__ppm__legit-maxmb63.rar"},
}

func benchPath(b *testing.B, rel string) string {
	root, ok := corpus.Root()
	if !ok {
		b.Skipf("corpus not found at %s", root)
	}
	return filepath.Join(root, rel)
}

// BenchmarkRAR4 decodes every version 2.9 member of each archive with a
// CRC32 over the output, as an extractor does. Bytes are all members'
// unpacked sizes, as for BenchmarkRardecode.
func BenchmarkRAR4(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			files, err := rartest.WalkRAR4(benchPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, f := range files {
				size += f.Size
			}
			d := NewDecoder()
			defer d.Close()
			h := crc32.NewIEEE()
			var r bytes.Reader
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := rartest.StartCPU()
			for b.Loop() {
				for _, f := range files {
					if f.Dir || f.Version != 29 || f.Method == 0x30 {
						continue
					}
					r.Reset(f.Data)
					if err := d.Reset(&r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: 29}); err != nil {
						b.Fatal(err)
					}
					h.Reset()
					if _, err := d.WriteTo(h); err != nil {
						b.Fatal(err)
					}
				}
			}
			cpu.Report(b, size)
		})
	}
}

// BenchmarkRardecode extracts the same archives with
// github.com/nwaples/rardecode/v2 (which also checks CRCs).
func BenchmarkRardecode(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			path := benchPath(b, a.path)
			files, err := rartest.WalkRAR4(path)
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, f := range files {
				size += f.Size
			}
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := rartest.StartCPU()
			for b.Loop() {
				r, err := rardecode.NewReader(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, r); err != nil {
						b.Fatal(err)
					}
				}
			}
			cpu.Report(b, size)
		})
	}
}
