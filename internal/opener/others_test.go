package opener

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
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

// TestZIPSplitSet opens a PKWARE split set written by Info-ZIP's zip -s
// from its .zip and from any .zNN part, and checks the failures: a .z01
// without its .zip names the .zip, a missing middle part is named, and a
// .zip beside an unrelated .z01 opens on its own.
func TestZIPSplitSet(t *testing.T) {
	zipTool := testenv.Tool(t, "zip")
	dir := t.TempDir()
	data := testenv.MixedData(t, 300<<10)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(zipTool, "-q", "-0", "-s", "64k", "set.zip", "data.bin")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip -s: %v\n%s", err, out)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "set.z[0-9]*"))
	if len(parts) < 3 {
		t.Fatalf("zip wrote %d .zNN parts, want several", len(parts))
	}
	want := append(parts, filepath.Join(dir, "set.zip"))
	for _, open := range []string{"set.zip", "set.z01", filepath.Base(parts[len(parts)-1])} {
		t.Run(open, func(t *testing.T) {
			r, err := Open(filepath.Join(dir, open), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if v := r.Info().Volumes; !slices.Equal(v, want) {
				t.Fatalf("volumes %v, want %v", v, want)
			}
			var got []byte
			err = r.Extract(t.Context(), nil, func(e *archive.Entry, rd io.Reader) error {
				got, err = io.ReadAll(rd)
				return err
			})
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes, %v", len(got), err)
			}
		})
	}

	// A missing middle part is named.
	mid := filepath.Join(dir, "set.z02")
	if err := os.Rename(mid, mid+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(dir, "set.zip"), nil); err == nil || !strings.Contains(err.Error(), "set.z02") {
		t.Fatalf("missing part: %v", err)
	}
	// A .z01 without its .zip names the .zip.
	if err := os.Rename(filepath.Join(dir, "set.zip"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(dir, "set.z01"), nil); err == nil || !strings.Contains(err.Error(), "set.zip") {
		t.Fatalf(".z01 alone: %v", err)
	}
	// An ordinary .zip beside an unrelated .z01 opens on its own.
	cmd = exec.Command(zipTool, "-q", "set.zip", "data.bin")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip: %v\n%s", err, out)
	}
	r, err := Open(filepath.Join(dir, "set.zip"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v := r.Info().Volumes; len(v) != 1 {
		t.Fatalf("volumes %v", v)
	}
}

// TestTarStreamingThroughOpen: the reader Open returns passes on the tar
// reader's Streaming and Err, so that a listing of a broken .tar.gz can
// fail and `x` need not read the entry list first.
func TestTarStreamingThroughOpen(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, name := range []string{"a", "b"} {
		data := bytes.Repeat([]byte(name), 300000)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	var tgz bytes.Buffer
	gw := gzip.NewWriter(&tgz)
	gw.Write(tb.Bytes())
	gw.Close()
	dir := t.TempDir()
	p := filepath.Join(dir, "cut.tgz")
	if err := os.WriteFile(p, tgz.Bytes()[:tgz.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, ok := r.(interface {
		Streaming() bool
		Err() error
	})
	if !ok || !s.Streaming() {
		t.Fatalf("%T: no Streaming/Err, or not streaming", r)
	}
	r.Entries()
	if s.Streaming() || !errors.Is(s.Err(), archive.ErrFormat) {
		t.Fatalf("after Entries: streaming %v, err %v", s.Streaming(), s.Err())
	}
}

// TestTarSkippedThroughOpen: the device and FIFO entries a tar reader
// lists but leaves out of extraction are reported through the reader Open
// returns.
func TestTarSkippedThroughOpen(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "fifo", Mode: 0o644, Typeflag: tar.TypeFifo})
	tw.WriteHeader(&tar.Header{Name: "f", Mode: 0o644, Typeflag: tar.TypeReg})
	tw.Close()
	p := filepath.Join(t.TempDir(), "s.tar")
	if err := os.WriteFile(p, tb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	es := r.Entries() // a plain tar too is read by Entries or Extract, not by Open
	s, ok := r.(interface{ Skipped() []string })
	if !ok || !slices.Equal(s.Skipped(), []string{"fifo"}) || len(es) != 2 {
		t.Fatalf("%T: skipped not passed on (entries %v)", r, r.Entries())
	}
}

// TestZeroStubBeforeRAR is a self-extractor whose stub starts with zero
// blocks: the RAR behind it is the archive, not an empty tar.
func TestZeroStubBeforeRAR(t *testing.T) {
	root := testenv.CorpusRoot(t)
	p := filepath.Join(root, "files", "rarfile", "files__rar5-crc.sfx")
	r, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f := r.Info().Format; f != archive.FormatRAR5 || len(r.Entries()) == 0 {
		t.Fatalf("format %q with %d entries", f, len(r.Entries()))
	}
}

// compressWith compresses data with a command-line tool (gzip, bzip2,
// xz, zstd) reading stdin.
func compressWith(t *testing.T, data []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, name), args...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// TestEmptyCompressedTar opens a compressed stream of nothing but zero
// blocks, as "tar czf e.tar.gz -T /dev/null" writes it, as an empty tar
// (GNU tar and bsdtar extract nothing from it; 7zz extracts the 10 KiB
// e.tar), and longer or odd runs of zeros, or a gzip'd file named so, as a
// compressed file.
func TestEmptyCompressedTar(t *testing.T) {
	gz := func(n int, name string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Name = name
		w.Write(make([]byte, n))
		w.Close()
		return b.Bytes()
	}
	record := make([]byte, 10240)
	cases := []struct {
		name   string
		data   []byte
		format archive.Format // "gzip" and the like: a compressed file
	}{
		{"e.tar.gz", gz(10240, ""), "tar.gz"},
		{"go.tar.gz", gz(1024, ""), "tar.gz"},
		{"b128.tar.gz", gz(128*512, ""), "tar.gz"},
		{"named.tgz", gz(10240, "e.tar"), "tar.gz"},
		{"e.tar.bz2", compressWith(t, record, "bzip2", "-c"), "tar.bz2"},
		{"e.tar.xz", compressWith(t, record, "xz", "-c"), "tar.xz"},
		{"e.tar.lzma", compressWith(t, record, "xz", "-c", "--format=lzma"), "tar.lzma"},
		{"e.tar.zst", compressWith(t, record, "zstd", "-c", "-q"), "tar.zst"},
		{"long.gz", gz(128*512+512, ""), "gzip"},
		{"odd.gz", gz(1536+1, ""), "gzip"},
		{"short.gz", gz(512, ""), "gzip"},
		{"file.gz", gz(10240, "disk.img"), "gzip"},
	}
	dir := t.TempDir()
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
			visited := 0
			err = r.Extract(t.Context(), nil, func(e *archive.Entry, rd io.Reader) error {
				visited++
				_, err := io.Copy(io.Discard, rd)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: 1}[strings.HasPrefix(string(c.format), "tar")]; visited != want || len(r.Entries()) != want {
				t.Fatalf("%d entries extracted, %d listed, want %d", visited, len(r.Entries()), want)
			}
		})
	}
}
