package unpack20

import (
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
	"github.com/nwaples/rardecode/v2"
)

var benchArchives = []struct{ name, path string }{
	{"rar2_mixed", "files/sharpcompress/Archives__Rar2.rar"},
	{"jpeg", "files/unrarkit/Test_Data__Folder_Archive.rar"},
	{"wav_lz", "files/junrar/com__github__junrar__audio__BoatModernEnglish-regular-unpack20.rar"},
	{"wav_audio", "files/junrar/com__github__junrar__audio__BoatModernEnglish-audio-text-unpack20.rar"},
}

// BenchmarkRAR20 decodes every version 20 member of each archive with a
// CRC32 over the output, as an extractor does. Bytes are all members'
// unpacked sizes, as for BenchmarkRardecode.
func BenchmarkRAR20(b *testing.B) {
	for _, a := range benchArchives {
		b.Run(a.name, func(b *testing.B) {
			files, err := rartest.WalkRAR4(rartest.CorpusPath(b, a.path))
			if err != nil {
				b.Fatal(err)
			}
			d := NewDecoder()
			defer d.Close()
			rartest.BenchDecode(b, files, rartest.TotalSize(files, rartest.All), isV20, func(r io.Reader, f rartest.File, w io.Writer) error {
				if err := d.Reset(r, Params{DictSize: f.Dict, UnpackedSize: f.Size, Solid: f.Solid, Version: f.Version}); err != nil {
					return err
				}
				_, err := d.WriteTo(w)
				return err
			})
		})
	}
}

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
