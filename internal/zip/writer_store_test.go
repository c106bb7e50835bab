package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// seekReadCloser is content that can be read again (a regular file).
type seekReadCloser struct{ *bytes.Reader }

func (seekReadCloser) Close() error { return nil }

// uncutTarget is a memTarget that cannot be cut back (as a pipe).
type uncutTarget struct{ m *memTarget }

func (u uncutTarget) Write(p []byte) (int, error)              { return u.m.Write(p) }
func (u uncutTarget) WriteAt(p []byte, off int64) (int, error) { return u.m.WriteAt(p, off) }
func (u uncutTarget) Commit() error                            { return u.m.Commit() }
func (u uncutTarget) Abort() error                             { return u.m.Abort() }

// randomBytes returns n bytes that do not compress.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// localEntry is what a local header says of an entry: its method (for
// AES the one in its 0x9901 field), flags and version.
type localEntry struct {
	method, flags, version uint16
}

// localHeaders walks the local headers of an archive written by this
// package, entry after entry, using the central directory's sizes.
func localHeaders(t *testing.T, b []byte, zr *stdzip.Reader) map[string]localEntry {
	t.Helper()
	le := binary.LittleEndian
	got := map[string]localEntry{}
	off := int64(0)
	for _, f := range zr.File {
		h := b[off:]
		if le.Uint32(h) != sigLocal {
			t.Fatalf("%s: no local header at %d", f.Name, off)
		}
		e := localEntry{method: le.Uint16(h[8:]), flags: le.Uint16(h[6:]), version: le.Uint16(h[4:])}
		nlen, xlen := int64(le.Uint16(h[26:])), int64(le.Uint16(h[28:]))
		extra := h[localLen+nlen : localLen+nlen+xlen]
		for len(extra) >= 4 {
			id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
			if id == 0x9901 {
				e.method = le.Uint16(extra[4+n-2:])
			}
			extra = extra[4+n:]
		}
		got[f.Name] = e
		off += localLen + nlen + xlen + int64(f.CompressedSize64)
		if e.flags&flagDescriptor != 0 {
			off += 16
			if f.CompressedSize64 >= 0xFFFFFFFF || f.UncompressedSize64 >= 0xFFFFFFFF || xlen >= 20 && le.Uint16(h[localLen+nlen:]) == extraZip64 {
				off += 8
			}
		}
	}
	return got
}

// An entry that does not compress is written Stored where the archive can
// be cut back, as 7-Zip writes it: taken from the copy of its one buffer
// when small, read again when it can be (a regular file), and kept
// compressed when it cannot be read again or the archive not cut back
// (a pipe, -so). An entry that compresses stays Deflated. Every archive
// reads back with this package's reader and, unencrypted, archive/zip.
func TestWriterStoresIncompressible(t *testing.T) {
	small := randomBytes(100<<10, 1)
	large := randomBytes(600<<10, 2)
	text := strings.Repeat("compressible text of a log line\n", 4000)
	t0 := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	items := func() []WriteItem {
		file := func(name, c string, seekable bool) WriteItem {
			return WriteItem{Name: name, Type: archive.TypeFile, Size: int64(len(c)), ModTime: t0, Open: func() (io.ReadCloser, error) {
				if seekable {
					return seekReadCloser{bytes.NewReader([]byte(c))}, nil
				}
				return io.NopCloser(strings.NewReader(c)), nil
			}}
		}
		return []WriteItem{file("small", string(small), false), file("large-seekable", string(large), true),
			file("large-pipe", string(large), false), file("text", text, true), file("empty", "", false), file("four", "abcd", false)}
	}
	content := map[string]string{"small": string(small), "large-seekable": string(large), "large-pipe": string(large), "text": text, "empty": "", "four": "abcd"}
	stored := map[string]bool{"small": true, "large-seekable": true, "empty": true, "four": true}
	for _, tc := range []struct {
		name  string
		o     WriteOptions
		uncut bool // the target cannot be cut back
	}{
		{name: "deflate", o: WriteOptions{Level: 5}},
		{name: "deflate-mx9", o: WriteOptions{Level: 9}},
		{name: "lzma", o: WriteOptions{Method: "LZMA", Level: 1}},
		{name: "zip64", o: WriteOptions{Level: 1, ForceZip64: true}},
		{name: "aes", o: WriteOptions{Level: 5, Password: "pw"}},
		{name: "zipcrypto", o: WriteOptions{Level: 5, Password: "pw", Encryption: "ZipCrypto"}},
		{name: "streamed", o: WriteOptions{Level: 5, Streamed: true}, uncut: true},
		{name: "uncut", o: WriteOptions{Level: 5}, uncut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memTarget{}
			var out Target = m
			if tc.uncut {
				out = uncutTarget{m}
			}
			o := tc.o
			o.Location = time.UTC
			if _, err := Update(context.Background(), out, nil, &Changes{Add: items()}, &o); err != nil {
				t.Fatal(err)
			}
			b := m.b
			got, _ := readZip(t, b, "pw")
			for n, c := range content {
				if got[n] != c {
					t.Errorf("%s: read back %d bytes, want %d", n, len(got[n]), len(c))
				}
			}
			zr, err := stdzip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			local := localHeaders(t, b, zr)
			overhead := cryptOverhead(o.Password != "", o.Password != "" && o.Encryption == "")
			for _, f := range zr.File {
				method := f.Method
				if method == methodAES {
					method = binary.LittleEndian.Uint16(f.Extra[len(f.Extra)-2:])
				}
				want := stored[f.Name] && !tc.uncut
				if (method == methodStore) != want || local[f.Name].method != method || local[f.Name].flags != f.Flags {
					t.Errorf("%s: central method %d flags %#x, local %+v; want Stored %v", f.Name, method, f.Flags, local[f.Name], want)
				}
				if method == methodStore && (f.CompressedSize64 != f.UncompressedSize64+uint64(overhead) || f.Flags&6 != 0) {
					t.Errorf("%s: Stored, %d bytes of %d, flags %#x", f.Name, f.CompressedSize64, f.UncompressedSize64, f.Flags)
				}
				if method == methodStore && o.Password == "" && !o.ForceZip64 && (f.ReaderVersion != versionStore || local[f.Name].version != versionStore) {
					t.Errorf("%s: Stored, version needed %d, local %d", f.Name, f.ReaderVersion, local[f.Name].version)
				}
				// What stays compressed loses at most 5 bytes per 64 KiB
				// (Deflate's stored blocks) and a few more.
				if method == methodDeflate && f.UncompressedSize64 > 0 && f.CompressedSize64 > f.UncompressedSize64+f.UncompressedSize64>>16*5+16+uint64(overhead) {
					t.Errorf("%s: %d bytes of %d deflated", f.Name, f.CompressedSize64, f.UncompressedSize64)
				}
				if o.Password != "" || method != methodStore && method != methodDeflate {
					continue // archive/zip reads neither encryption nor LZMA
				}
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				d, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || string(d) != content[f.Name] {
					t.Errorf("%s: archive/zip reads %d bytes, %v", f.Name, len(d), err)
				}
			}
		})
	}
}
