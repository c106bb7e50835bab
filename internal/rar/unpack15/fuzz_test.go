package unpack15

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// FuzzDecoder decodes data[:split] as one file and the rest as a solid
// continuation, each of the given size: no panic, no more output than the
// size, errors wrap ErrFormat. Seeded from the corpus.
func FuzzDecoder(f *testing.F) {
	if _, ok := corpus.Root(); ok {
		units, _ := corpusFiles(f)
		for _, files := range units {
			for _, m := range files {
				if isV15(m) && !m.Encrypted && !m.Split && len(m.Data) < 16<<10 {
					f.Add(m.Data, uint32(m.Size), uint16(len(m.Data)), uint32(0))
				}
			}
		}
	}
	f.Add([]byte{0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x06, 0xd9, 0xb7, 0xb6, 0x90, 0x2f, 0xc0, 0xc0}, uint32(1), uint16(16), uint32(1))
	f.Fuzz(func(t *testing.T, data []byte, size uint32, split uint16, size2 uint32) {
		sizes := []int64{int64(size % (256 << 10)), int64(size2 % (256 << 10))}
		cut := min(int(split), len(data))
		parts := [][]byte{data[:cut], data[cut:]}
		d := NewDecoder()
		defer d.Close()
		for i, part := range parts {
			err := d.Reset(bytes.NewReader(part), Params{DictSize: 64 << 10, UnpackedSize: sizes[i], Solid: i == 1, Version: 15})
			if err != nil {
				if !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("Reset: %v", err)
				}
				return
			}
			n, err := io.Copy(io.Discard, d)
			if n > sizes[i] {
				t.Fatalf("%d bytes out of %d", n, sizes[i])
			}
			if err != nil {
				if !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("error %v does not wrap ErrFormat", err)
				}
				return
			}
			if n != sizes[i] {
				t.Fatalf("%d bytes without error, want %d", n, sizes[i])
			}
		}
	})
}
