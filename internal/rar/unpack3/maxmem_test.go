package unpack3

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/rartest"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestMaxMemSynthetic checks that a PPMd block header asking for more
// model memory than Params.MaxMem fails with a LimitError.
func TestMaxMemSynthetic(t *testing.T) {
	// PPM block: flag bit, flags 0x20 (reset, order field 5), MaxMB 255
	// (256 MiB), then range coder bytes.
	stream := []byte{0x80 | 0x20 | 5, 255, 1, 2, 3, 4, 5, 6, 7, 8}
	d := NewDecoder()
	defer d.Close()
	if err := d.Reset(bytes.NewReader(stream), Params{DictSize: 1 << 20, UnpackedSize: 100, Version: 29, MaxMem: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, d)
	var le *archive.LimitError
	if !errors.As(err, &le) || !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("err = %v, want a LimitError", err)
	}
	if le.Need != 256<<20 || le.Limit != 64<<20 {
		t.Fatalf("LimitError %+v", le)
	}
}

// TestMaxMemCorpus decodes a PPMd file whose block asks for 64 MiB with
// limits just above and just below.
func TestMaxMemCorpus(t *testing.T) {
	root := testenv.CorpusRoot(t)
	files, err := rartest.WalkRAR4(filepath.Join(root, "files/junrar/com__github__junrar__ppm__legit-maxmb63.rar"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	defer d.Close()
	tried := 0
	for _, f := range files {
		if f.Dir || f.Method == 0x30 || f.Version != 29 {
			continue
		}
		for _, lim := range []int64{0, 64 << 20, 63 << 20} {
			if err := d.Reset(bytes.NewReader(f.Data), Params{DictSize: f.Dict, UnpackedSize: f.Size, Version: 29, MaxMem: lim}); err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, d)
			if lim == 63<<20 {
				if !errors.Is(err, archive.ErrLimit) {
					t.Fatalf("limit %d: %v, want ErrLimit", lim, err)
				}
			} else if err != nil || n != f.Size {
				t.Fatalf("limit %d: %d bytes, %v", lim, n, err)
			}
		}
		tried++
	}
	if tried == 0 {
		t.Fatal("no compressed file in the archive")
	}
}
