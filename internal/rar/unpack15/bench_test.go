package unpack15

import (
	"bytes"
	"hash/crc32"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// github.com/nwaples/rardecode/v2 does not decode version 1.5, so there
// is no comparison benchmark here.
var benchArchives = []struct {
	name, path string
	rar14      bool
}{
	{"rar15_mixed", "files/sharpcompress/Archives__Rar15.rar", false},
	{"wav", "files/junrar/com__github__junrar__audio__BoatModernEnglish-regular-unpack15-win.rar", false},
	{"rar14_solid_text", "files/junrar/com__github__junrar__rar14-solid.rar", true},
}

// BenchmarkRAR15 decodes every version 1.5 member of each archive with a
// CRC32 over the output, as an extractor does.
func BenchmarkRAR15(b *testing.B) {
	root, ok := corpus.Root()
	if !ok {
		b.Skipf("corpus not found at %s", root)
	}
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			walk := rartest.WalkRAR4
			if a.rar14 {
				walk = rartest.WalkRAR14
			}
			files, err := walk(filepath.Join(root, a.path))
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
					if !isV15(f) {
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
