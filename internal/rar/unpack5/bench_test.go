package unpack5

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
	{"issue1050", "files/sharpcompress/Archives__Rar.issue1050.rar"},
	{"m3-plain-32m", "files/junrar/com__github__junrar__rar5unpack__m3-plain-32m.rar"},
	{"solid", "files/junrar/com__github__junrar__solid__rar5-solid.rar"},
	{"arm", "files/libarchive/test_read_format_rar5_arm.rar"},
	{"multiple_files_solid", "files/libarchive/test_read_format_rar5_multiple_files_solid.rar"},
	{"blake2-htb", "files/junrar/com__github__junrar__blake2__rar5-htb.rar"},
}

func benchPath(b *testing.B, rel string) string {
	root, ok := corpus.Root()
	if !ok {
		b.Skipf("corpus not found at %s", root)
	}
	return filepath.Join(root, rel)
}

// BenchmarkRAR5 decodes every compressed file of each archive (with a
// CRC32 over the output, as an extractor does).
func BenchmarkRAR5(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			files, err := rartest.WalkRAR5(benchPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, f := range files {
				if !f.Dir && f.Method != 0 {
					size += f.Size
				}
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
					if f.Dir || f.Method == 0 {
						continue
					}
					r.Reset(f.Data)
					if err := d.Reset(&r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
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
// github.com/nwaples/rardecode/v2 for comparison (stored files excluded
// from the byte count but included in its work, as they are tiny).
func BenchmarkRardecode(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			path := benchPath(b, a.path)
			files, err := rartest.WalkRAR5(path)
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, f := range files {
				if !f.Dir && f.Method != 0 {
					size += f.Size
				}
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
