package opener

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// Issue 23, point 13: a compressed file whose content begins like a tar
// but is not wholly one — a tar that breaks off into other data, a tar
// cut short, a tar followed by other data — is read as one compressed
// file with a warning when its name does not say tar, and stays a
// damaged tar (an error) when it does; a whole tar, or one followed by
// zeros only, is a tar whatever the name.
func TestTarInsideCompressedFile(t *testing.T) {
	whole := tarOf(t, []string{"a.txt", "b.bin"}, map[string]string{"a.txt": strings.Repeat("alpha\n", 3000), "b.bin": strings.Repeat("\x01\x02", 5000)})
	noEnd := bytes.TrimRight(whole, "\x00") // no end-of-archive blocks: ends in b.bin's padding
	noEnd = noEnd[:(len(noEnd)+511)&^511]
	other := make([]byte, 200<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range other {
		other[i] = byte(r.Uint32())
	}
	cat := func(p ...[]byte) []byte { return bytes.Join(p, nil) }
	gz := func(p []byte, name string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Name = name
		w.Write(p)
		w.Close()
		return b.Bytes()
	}
	broken := cat(noEnd, other)
	damaged := compressWith(t, broken, "xz", "-c", "-T1")
	damaged[len(damaged)*3/4] ^= 0xFF // in the other data's part of the stream
	cases := []struct {
		name    string
		data    []byte
		content []byte         // the decompressed stream
		format  archive.Format // "xz" and the like: one file
		warning string         // part of the warning, "" for none
		tarErr  string         // part of the tar's error, for a damaged tar
	}{
		{"brk.xz", compressWith(t, broken, "xz", "-c", "-T1"), broken, "xz", "header checksum mismatch", ""},
		{"cut.zst", compressWith(t, whole[:len(whole)/2], "zstd", "-c", "-q"), whole[:len(whole)/2], "zstd", "unexpected end of data", ""},
		{"cut.bz2", compressWith(t, whole[:len(whole)/2], "bzip2", "-c"), whole[:len(whole)/2], "bzip2", "unexpected end of data", ""},
		{"after", gz(cat(whole, other), ""), cat(whole, other), "gzip", fmt.Sprintf("before offset %d of the decompressed data, where other data follows", len(whole)), ""},
		{"zeros.gz", gz(cat(whole, make([]byte, 8192)), ""), nil, "tar.gz", "", ""},
		{"whole.xz", compressWith(t, whole, "xz", "-c", "-T1"), nil, "tar.xz", "", ""},
		{"brk.tar.xz", compressWith(t, broken, "xz", "-c", "-T1"), nil, "tar.xz", "", "header checksum mismatch"},
		{"brk.tgz", gz(broken, ""), nil, "tar.gz", "", "header checksum mismatch"},
		{"named.gz", gz(broken, "backup.tar"), nil, "tar.gz", "", "header checksum mismatch"},
		{"brk.tar.xz.001", compressWith(t, broken, "xz", "-c", "-T1"), nil, "tar.xz", "", "header checksum mismatch"},
		{"damaged.xz", damaged, nil, "tar.xz", "", "header checksum mismatch"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			rd, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if f := rd.Info().Format; f != c.format {
				t.Fatalf("format %q, want %q", f, c.format)
			}
			warnings := OpenWarnings(rd)
			switch {
			case c.warning == "" && len(warnings) > 0:
				t.Fatalf("warnings %v", warnings)
			case c.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].Error(), c.warning) ||
				errors.Is(warnings[0], archive.ErrFormat)):
				t.Fatalf("warnings %v, want one saying %q", warnings, c.warning)
			}
			var tarErr error
			if s, ok := rd.(interface{ Err() error }); ok {
				rd.Entries()
				tarErr = s.Err()
			}
			if (c.tarErr == "") != (tarErr == nil) || tarErr != nil && !strings.Contains(tarErr.Error(), c.tarErr) {
				t.Fatalf("tar error %v, want %q", tarErr, c.tarErr)
			}
			if c.content == nil {
				return
			}
			var got []byte
			err = rd.Extract(t.Context(), nil, func(e *archive.Entry, r io.Reader) error {
				got, err = io.ReadAll(r)
				return err
			})
			if err != nil || !bytes.Equal(got, c.content) || len(rd.Entries()) != 1 {
				t.Fatalf("extracted %d bytes of %d, %d entries, %v", len(got), len(c.content), len(rd.Entries()), err)
			}
		})
	}
}
