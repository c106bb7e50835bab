package unpack20

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
	{"rar2_mixed", "files/sharpcompress/Archives__Rar2.rar"},
	{"jpeg", "files/unrarkit/Test_Data__Folder_Archive.rar"},
	{"wav_lz", "files/junrar/com__github__junrar__audio__BoatModernEnglish-regular-unpack20.rar"},
	{"wav_audio", "files/junrar/com__github__junrar__audio__BoatModernEnglish-audio-text-unpack20.rar"},
}

func benchPath(b *testing.B, rel string) string {
	root, ok := corpus.Root()
	if !ok {
		b.Skipf("corpus not found at %s", root)
	}
	return filepath.Join(root, rel)
}

// BenchmarkRAR20 decodes every version 20 member of each archive with a
// CRC32 over the output, as an extractor does. Bytes are all members'
// unpacked sizes, as for BenchmarkRardecode.
func BenchmarkRAR20(b *testing.B) {
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
					if !isV20(f) {
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
