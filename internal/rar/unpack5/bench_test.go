package unpack5

import (
	"io"
	"testing"

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

// BenchmarkRAR5 decodes every compressed file of each archive (with a
// CRC32 over the output, as an extractor does).
func BenchmarkRAR5(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			files, err := rartest.WalkRAR5(rartest.CorpusPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder()
			defer d.Close()
			rartest.BenchDecode(b, files, rartest.TotalSize(files, compressed), compressed, func(r io.Reader, f rartest.File, w io.Writer) error {
				if err := d.Reset(r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
					return err
				}
				_, err := d.WriteTo(w)
				return err
			})
		})
	}
}

// compressed selects the files with compressed data.
func compressed(f rartest.File) bool { return !f.Dir && f.Method != 0 }

// BenchmarkRardecode extracts the same archives with
// github.com/nwaples/rardecode/v2 for comparison (stored files excluded
// from the byte count but included in its work, as they are tiny).
func BenchmarkRardecode(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			path := rartest.CorpusPath(b, a.path)
			files, err := rartest.WalkRAR5(path)
			if err != nil {
				b.Fatal(err)
			}
			rartest.BenchExtract(b, path, rartest.TotalSize(files, compressed), openRardecode)
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
