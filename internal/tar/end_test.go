package tar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/testenv"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestCompressedTarTrailerChecked: a compressed tar whose damage is only
// in what follows the tar's end-of-archive blocks in the stream (gzip's
// CRC-32 or size, zstd's content checksum, a cut-off trailer) is
// reported by Extract and by Entries, with the archive's name, although
// the tar itself parses; data after the compressed stream's end (junk
// appended to the file) is not an error, as libarchive and GNU tar read it.
func TestCompressedTarTrailerChecked(t *testing.T) {
	plain := testenv.RepeatTar(3000, "a", "b")
	var gz bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&gz, 6)
	gw.Write(plain)
	gw.Close()
	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	zw.Write(plain)
	zw.Close()
	flip := func(b []byte, at int) []byte {
		c := bytes.Clone(b)
		c[at] ^= 0x10
		return c
	}
	g, z := gz.Bytes(), zs.Bytes()
	for _, c := range []struct {
		name string
		kind stream.Kind
		data []byte
		want error // nil: reads without an error
	}{
		{"gzip whole", stream.Gzip, g, nil},
		{"gzip CRC-32", stream.Gzip, flip(g, len(g)-8), archive.ErrChecksum},
		{"gzip size", stream.Gzip, flip(g, len(g)-1), archive.ErrChecksum},
		{"gzip trailer cut", stream.Gzip, g[:len(g)-4], io.ErrUnexpectedEOF},
		{"gzip junk after", stream.Gzip, append(bytes.Clone(g), "junk after the stream\n"...), nil},
		{"zstd whole", stream.Zstd, z, nil},
		{"zstd checksum", stream.Zstd, flip(z, len(z)-2), archive.ErrChecksum},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(op string, err error) {
				t.Helper()
				switch {
				case c.want == nil && err != nil:
					t.Errorf("%s: %v", op, err)
				case c.want != nil && !errors.Is(err, c.want):
					t.Errorf("%s: error %v, want %v", op, err, c.want)
				case c.want != nil && !bytes.Contains([]byte(err.Error()), []byte("t.tgz")):
					t.Errorf("%s: error %q does not name the archive", op, err)
				}
			}
			r, err := Open(bytes.NewReader(c.data), int64(len(c.data)), c.kind, &archive.Options{Name: "t.tgz"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
				n++
				_, err := io.Copy(io.Discard, rd)
				return err
			})
			if c.want == nil && n != 2 || c.kind == stream.Gzip && n != 2 {
				t.Errorf("Extract handed out %d entries, want 2", n)
			}
			check("Extract", err)
			r, err = Open(bytes.NewReader(c.data), int64(len(c.data)), c.kind, &archive.Options{Name: "t.tgz"})
			if err != nil {
				t.Fatal(err)
			}
			r.Entries()
			check("Entries", r.Err())
			// ReadToEnd (the opener's check of a file whose name does
			// not say tar) reads the rest itself: the same errors.
			r, err = Open(bytes.NewReader(c.data), int64(len(c.data)), c.kind, &archive.Options{Name: "t.tgz"})
			if err != nil {
				t.Fatal(err)
			}
			r.ReadToEnd()
			r.Entries()
			check("Entries after ReadToEnd", r.Err())
		})
	}
}
