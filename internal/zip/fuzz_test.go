package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// FuzzReader opens arbitrary bytes as a ZIP archive and extracts every
// entry with a password. It checks that nothing panics, that every error
// wraps one of the archive sentinels (or is a cancellation), and that no
// entry yields more bytes than its declared size. The seeds in
// testdata/fuzz/FuzzReader are small archives made by 7zz (every method
// it writes, ZipCrypto, AES) and by archive/zip.
func FuzzReader(f *testing.F) {
	f.Add(buildZip(f, []testFile{
		{name: "a/", mode: 0o755 | 1<<31},
		{name: "a/b.txt", data: []byte("hello hello hello hello"), method: stdzip.Deflate},
		{name: "c", data: []byte("stored"), method: stdzip.Store},
	}, "comment"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := &archive.Options{Name: "fuzz.zip", MaxDict: 64 << 20,
			Password: func() (string, error) { return "pw", nil }}
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("open: error wraps no sentinel: %v", err)
			}
			return
		}
		defer r.Close()
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
			n, err := io.Copy(io.Discard, io.LimitReader(rc, 16<<20))
			if e.Size >= 0 && n > e.Size {
				t.Fatalf("%s: %d bytes, declared %d", e.Name, n, e.Size)
			}
			if err != nil && !wrapsSentinel(err) && !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: error wraps no sentinel: %v", e.Name, err)
			}
			return nil
		})
		if err != nil && !wrapsSentinel(err) {
			t.Fatalf("extract: %v", err)
		}
	})
}

// FuzzPPMd8 decodes arbitrary bytes as a method-98 stream of up to 64 KiB
// with small models: the decoder must end (with data or an error wrapping
// a sentinel) and never panic out of Read.
func FuzzPPMd8(f *testing.F) {
	f.Add([]byte{0x05, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a}, uint16(1000))
	f.Add([]byte{0x0f, 0x10, 0xff, 0xff, 0x00, 0x01, 0x02}, uint16(65535))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		if len(data) >= 2 {
			data[0] &= 0x0F // memory 1 MiB, any order and restoration method
			data[1] &= 0xF0
		}
		z := &ppmd8Reader{}
		if err := z.reset(bytes.NewReader(data), int64(size), 1<<20); err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("reset: %v", err)
			}
			return
		}
		n, err := io.Copy(io.Discard, z)
		if n > int64(size) || err != nil && !wrapsSentinel(err) {
			t.Fatalf("%d bytes, %v", n, err)
		}
	})
}
