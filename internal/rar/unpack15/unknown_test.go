package unpack15

import (
	"bytes"
	"io"
	"testing"
)

// TestUnknownSize decodes the samples without their size: the stream then
// ends with its input, and the output must be the file, followed at most
// by what the padding bits of the last byte decode to.
func TestUnknownSize(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	for _, f := range samples(t) {
		if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: f.Version}); err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: -1, Version: f.Version}); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.HasPrefix(got, want) {
			t.Fatalf("%s: output without size differs", f.Name)
		}
		if extra := len(got) - len(want); extra > 7 {
			t.Errorf("%s: %d bytes more than the size", f.Name, extra)
		}
	}
}
