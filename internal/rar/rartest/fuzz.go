package rartest

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// Resetter is a decoder under test that starts a file from its File
// fields (Dict, Size, Solid, Version) and reads it.
type Resetter interface {
	io.Reader
	ResetFile(src io.Reader, f File) error
	Close() error
}

// AddFuzzSeeds adds the files that keep accepts and whose packed data is
// under 16 KiB as seeds of FuzzSolidPair.
func AddFuzzSeeds(f *testing.F, files []File, keep func(File) bool) {
	for _, m := range files {
		if keep(m) && len(m.Data) < 16<<10 {
			f.Add(m.Data, uint32(m.Size), uint16(len(m.Data)), uint32(0))
		}
	}
}

// FuzzSolidPair runs a fuzz target that decodes data[:split] as one file
// and the rest as its solid continuation, with template's Dict and
// Version and the given sizes (modulo 256 KiB): no panic, no more output
// than the size, a file that ends without error has its full size, reads
// make progress, and errors wrap ErrFormat.
func FuzzSolidPair(f *testing.F, template File, newDecoder func() Resetter) {
	f.Fuzz(func(t *testing.T, data []byte, size uint32, split uint16, size2 uint32) {
		sizes := []int64{int64(size % (256 << 10)), int64(size2 % (256 << 10))}
		cut := min(int(split), len(data))
		parts := [][]byte{data[:cut], data[cut:]}
		d := newDecoder()
		defer d.Close()
		for i, part := range parts {
			file := template
			file.Size, file.Solid = sizes[i], i == 1
			if err := d.ResetFile(bytes.NewReader(part), file); err != nil {
				if !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("Reset: %v", err)
				}
				return
			}
			n, err := ReadBounded(d, sizes[i]+1)
			if n > sizes[i] {
				t.Fatalf("%d bytes out of %d", n, sizes[i])
			}
			if err != nil {
				if !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("error %v does not wrap ErrFormat", err)
				}
				CheckLocated(t, "decode", err, len(part))
				return
			}
			if n != sizes[i] {
				t.Fatalf("%d bytes without error, want %d", n, sizes[i])
			}
		}
	})
}

// CheckUnknownSize decodes each sample with and without its size: without
// it the stream ends with its input, and the output must be the file
// followed by at most maxExtra bytes decoded from the padding bits.
func CheckUnknownSize(t *testing.T, d Resetter, samples []File, maxExtra int) {
	t.Helper()
	for _, f := range samples {
		if err := d.ResetFile(bytes.NewReader(f.Data), f); err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		u := f
		u.Size = -1
		if err := d.ResetFile(bytes.NewReader(f.Data), u); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.HasPrefix(got, want) {
			t.Fatalf("%s: output without size differs", f.Name)
		}
		if extra := len(got) - len(want); extra > maxExtra {
			t.Errorf("%s: %d bytes more than the size", f.Name, extra)
		}
	}
}
