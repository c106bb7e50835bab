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

// FuzzStreamReader reads arbitrary bytes with StreamReader, as from a
// pipe. It checks that nothing panics, that every error wraps one of the
// archive sentinels, and that a stream read without error agrees with
// NewReader: the same entries (names, sizes, CRCs) and contents.
func FuzzStreamReader(f *testing.F) {
	items, _ := testItems()
	items = append(items[:3:3], items[len(items)-1]) // the directory, two small files, the link
	plain := writeZip(f, items, WriteOptions{Method: "Deflate", Level: 1})
	f.Add(plain)
	f.Add(withDescriptors(f, plain, false))
	f.Add(withDescriptors(f, writeZip(f, items[:3], WriteOptions{Method: "Store"}), true))
	f.Add(writeZip(f, items[:3], WriteOptions{Method: "Store", Password: "pw"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := &archive.Options{Name: "fuzz.zip", MaxDict: 64 << 20,
			Password: func() (string, error) { return "pw", nil }}
		s, err := NewStreamReader(bytes.NewReader(data), opts)
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("open: error wraps no sentinel: %v", err)
			}
			return
		}
		defer s.Close()
		got := map[string]string{}
		var bad bool
		err = s.Extract(context.Background(), nil, func(e *archive.Entry, r io.Reader) error {
			b, err := io.ReadAll(io.LimitReader(r, 16<<20))
			if err != nil {
				bad = true
				if !wrapsSentinel(err) && !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: error wraps no sentinel: %v", e.Name, err)
				}
			}
			got[e.Name] = string(b)
			return nil
		})
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("extract: %v", err)
			}
			return
		}
		if bad {
			return
		}
		// A stream read well is a valid archive: the file reader
		// must read it the same.
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatalf("the stream reader read it, the file reader: %v", err)
		}
		defer r.Close()
		want := r.Entries()
		list := s.Entries()
		if len(list) != len(want) {
			t.Fatalf("%d entries, the file reader %d", len(list), len(want))
		}
		for i, e := range list {
			w := want[i]
			if e.Name != w.Name || e.Size != w.Size || e.CRC32 != w.CRC32 || e.Type != w.Type {
				t.Fatalf("entry %d: %q %d %08x %v, the file reader %q %d %08x %v", i, e.Name, e.Size, e.CRC32, e.Type, w.Name, w.Size, w.CRC32, w.Type)
			}
		}
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rc io.Reader) error {
			b, err := io.ReadAll(io.LimitReader(rc, 16<<20))
			if err != nil {
				t.Fatalf("%s: the file reader: %v", e.Name, err)
			}
			if e.Type == archive.TypeSymlink {
				b = []byte(e.LinkTarget)
			}
			if g, ok := got[e.Name]; !ok || g != string(b) {
				t.Fatalf("%s: %d bytes, the file reader %d", e.Name, len(g), len(b))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the file reader: %v", err)
		}
	})
}
