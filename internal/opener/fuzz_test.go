package opener

import (
	"bytes"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sfxscan"
)

// FuzzDetect checks that detection never panics and that what it reports
// is really there.
func FuzzDetect(f *testing.F) {
	f.Add(start7z())
	f.Add(append([]byte("MZ\x90\x00junk"), start7z()...))
	f.Add(append([]byte("junk"), sfxscan.SigRAR5...))
	f.Add(append(make([]byte, 40), sfxscan.SigRAR14...))
	f.Add([]byte("Rar!\x1a\x07\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok, err := Detect(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		if d.Offset < 0 || d.Offset >= int64(len(data)) {
			t.Fatalf("offset %d outside %d bytes", d.Offset, len(data))
		}
		rest := data[d.Offset:]
		var sig []byte
		switch d.Format {
		case archive.Format7z:
			sig = sfxscan.Sig7z
			if d.Offset > 0 && !sfxscan.Valid7zStart(rest) {
				t.Fatal("7z after a prefix without a valid start header")
			}
		case archive.FormatRAR5:
			sig = sfxscan.SigRAR5
		case archive.FormatRAR4:
			sig = sfxscan.SigRAR4
		case archive.FormatRAR14:
			sig = sfxscan.SigRAR14
		default:
			t.Fatalf("format %q", d.Format)
		}
		if !bytes.HasPrefix(rest, sig) {
			t.Fatalf("%s reported at %d without its signature", d.Format, d.Offset)
		}
	})
}
