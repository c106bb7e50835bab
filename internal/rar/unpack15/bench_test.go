package unpack15

import (
	"io"
	"testing"

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
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			walk := rartest.WalkRAR4
			if a.rar14 {
				walk = rartest.WalkRAR14
			}
			files, err := walk(rartest.CorpusPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder()
			defer d.Close()
			rartest.BenchDecode(b, files, rartest.TotalSize(files, rartest.All), isV15, func(r io.Reader, f rartest.File, w io.Writer) error {
				if err := d.Reset(r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
					return err
				}
				_, err := d.WriteTo(w)
				return err
			})
		})
	}
}
