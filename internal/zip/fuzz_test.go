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
