package unpack3

import (
	"io"
	"testing"

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

// BenchmarkRAR4 decodes every version 2.9 member of each archive with a
// CRC32 over the output, as an extractor does. Bytes are all members'
// unpacked sizes, as for BenchmarkRardecode.
func BenchmarkRAR4(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			files, err := rartest.WalkRAR4(rartest.CorpusPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder()
			defer d.Close()
			rartest.BenchDecode(b, files, rartest.TotalSize(files, rartest.All), isV29, func(r io.Reader, f rartest.File, w io.Writer) error {
				if err := d.Reset(r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: 29}); err != nil {
					return err
				}
				_, err := d.WriteTo(w)
				return err
			})
		})
	}
}

// isV29 selects the compressed version 2.9 members.
func isV29(f rartest.File) bool { return !f.Dir && f.Version == 29 && f.Method != 0x30 }

// BenchmarkRardecode extracts the same archives with
// github.com/nwaples/rardecode/v2 (which also checks CRCs).
func BenchmarkRardecode(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			path := rartest.CorpusPath(b, a.path)
			files, err := rartest.WalkRAR4(path)
			if err != nil {
				b.Fatal(err)
			}
			rartest.BenchExtract(b, path, rartest.TotalSize(files, rartest.All), openRardecode)
		})
	}
}

// openRardecode starts an extraction with github.com/nwaples/rardecode/v2.
func openRardecode(src io.Reader) (io.Reader, func() error, error) {
	r, err := rardecode.NewReader(src)
	if err != nil {
		return nil, nil, err
	}
	return r, func() error { _, err := r.Next(); return err }, nil
}
