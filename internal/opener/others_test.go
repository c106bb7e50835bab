package opener

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestOpenByLeadingBytes checks that ZIP, tar, compressed tar and a
// compressed file are recognised by content whatever their names.
func TestOpenByLeadingBytes(t *testing.T) {
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	tw.WriteHeader(&tar.Header{Name: "a.txt", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg})
	tw.Write([]byte("hello"))
	tw.Close()
	var tgz bytes.Buffer
	gw := gzip.NewWriter(&tgz)
	gw.Write(tarBuf.Bytes())
	gw.Close()
	var gz bytes.Buffer
	gw = gzip.NewWriter(&gz)
	gw.Name = "inner.txt"
	gw.Write(make([]byte, 4096)) // zeros: a file, not an empty tar
	gw.Close()
	zipEmpty := append([]byte("PK\x05\x06"), make([]byte, 18)...)

	dir := t.TempDir()
	cases := []struct {
		name   string
		data   []byte
		format archive.Format
		first  string
	}{
		{"x.bin", tarBuf.Bytes(), "tar", "a.txt"},
		{"y.bin", tgz.Bytes(), "tar.gz", "a.txt"},
		{"z.gz", gz.Bytes(), "gzip", "inner.txt"},
		{"e.zip", zipEmpty, "zip", ""},
		{"empty.tar", make([]byte, 10240), "tar", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if f := r.Info().Format; f != c.format {
				t.Fatalf("format %q, want %q", f, c.format)
			}
			if v := r.Info().Volumes; len(v) != 1 || v[0] != p {
				t.Fatalf("volumes %v", v)
			}
			es := r.Entries()
			if c.first == "" {
				if len(es) != 0 {
					t.Fatalf("%d entries in an empty archive", len(es))
				}
				return
			}
			if len(es) == 0 || es[0].Name != c.first {
				t.Fatalf("entries %v", es)
			}
			err = r.Extract(t.Context(), nil, func(e *archive.Entry, rd io.Reader) error {
				_, err := io.Copy(io.Discard, rd)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
