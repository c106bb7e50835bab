package opener

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// pipe is a stream that can only be read: no Seek, no ReadAt, as
// standard input from a pipe. It hands out at most 3000 bytes a read, as
// a pipe does in pieces, and counts the reads.
type pipe struct {
	r     *bytes.Reader
	reads int
}

func (p *pipe) Read(b []byte) (int, error) {
	p.reads++
	return p.r.Read(b[:min(len(b), 3000)])
}

// tarOf builds a tar of the files (name → content), in name order given.
func tarOf(t *testing.T, names []string, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, n := range names {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[n]))
	}
	tw.Close()
	return b.Bytes()
}

func gzipOf(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Name = name
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// TestStreamReadsAsItArrives opens tars (plain and compressed) and a
// single compressed file from a pipe: they are read as they arrive (the
// Reader is one pass: a second reading fails with ErrReadOnce instead of
// reading the pipe again), the physical size is what the stream held,
// and nothing is copied to the spool directory.
func TestStreamReadsAsItArrives(t *testing.T) {
	big := strings.Repeat("garc reads pipes. ", 40000)
	files := map[string]string{"a/one.txt": "one", "a/big.txt": big, "b.txt": "bee"}
	plain := tarOf(t, []string{"a/one.txt", "a/big.txt", "b.txt"}, files)
	zst := compressWith(t, plain, "zstd", "-c", "-q")
	cases := []struct {
		name   string
		data   []byte
		format archive.Format
		want   map[string]string
	}{
		{"tar", plain, "tar", files},
		{"tar.gz", gzipOf(t, plain, ""), "tar.gz", files},
		{"tar.zst", zst, "tar.zst", files},
		{"tar.bz2", compressWith(t, plain, "bzip2", "-c"), "tar.bz2", files},
		{"tar.xz", compressWith(t, plain, "xz", "-c"), "tar.xz", files},
		{"gzip", gzipOf(t, []byte(big), "big.txt"), "gzip", map[string]string{"big.txt": big}},
		{"xz", compressWith(t, []byte(big), "xz", "-c"), "xz", map[string]string{"~": big}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := NewStream(&pipe{r: bytes.NewReader(c.data)}, "-", dir)
			defer s.Close()
			r, err := s.Open(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Info().Format != c.format {
				t.Fatalf("format %q, want %q", r.Info().Format, c.format)
			}
			got := contents(t, r)
			if len(got) != len(c.want) {
				t.Fatalf("%d entries, want %d", len(got), len(c.want))
			}
			for n, v := range c.want {
				if got[n] != v {
					t.Errorf("%s: %d bytes, want %d", n, len(got[n]), len(v))
				}
			}
			if got := r.Info().PhysicalSize; got != int64(len(c.data)) {
				t.Errorf("physical size %d, want %d", got, len(c.data))
			}
			err = r.Extract(context.Background(), nil, func(*archive.Entry, io.Reader) error { return nil })
			if !errors.Is(err, ErrReadOnce) {
				t.Errorf("second reading: %v, want ErrReadOnce", err)
			}
			if _, err := s.Open(nil); !errors.Is(err, ErrReadOnce) {
				t.Errorf("second Open: %v, want ErrReadOnce", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the spool directory holds %v", ents)
			}
		})
	}
}

// TestStreamListsOnce lists a compressed tar from a pipe: Entries reads
// it once, and the stream is read to its end.
func TestStreamListsOnce(t *testing.T) {
	files := map[string]string{"x": "1", "y": "22"}
	data := gzipOf(t, tarOf(t, []string{"x", "y"}, files), "")
	p := &pipe{r: bytes.NewReader(data)}
	s := NewStream(p, "-", t.TempDir())
	r, err := s.Open(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Entries()); n != 2 {
		t.Fatalf("%d entries", n)
	}
	if p.r.Len() != 0 || r.Info().PhysicalSize != int64(len(data)) {
		t.Errorf("%d bytes left unread, physical size %d of %d", p.r.Len(), r.Info().PhysicalSize, len(data))
	}
}

// TestStreamSpools copies a 7z (which needs its end header) to a
// temporary file that has no name in the spool directory, and opens it
// again from there (a password asked for again).
func TestStreamSpools(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := NewStream(&pipe{r: bytes.NewReader(data)}, "-", dir)
	for range 2 {
		r, err := s.Open(nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Info().Format != archive.Format7z || len(contents(t, r)) == 0 {
			t.Fatalf("%+v", r.Info())
		}
		r.Close()
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("the spool directory holds %v", ents)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStreamErrors: an empty stream is not an archive; a spool directory
// that cannot take the copy is named in the error; data of no format is
// named as a file's is.
func TestStreamErrors(t *testing.T) {
	if _, err := NewStream(strings.NewReader(""), "-", t.TempDir()).Open(nil); !errors.Is(err, archive.ErrNotArchive) {
		t.Errorf("empty: %v", err)
	}
	seven, _ := os.ReadFile(sample)
	_, err := NewStream(bytes.NewReader(seven), "-", "/nonexistent/dir").Open(nil)
	if err == nil || !strings.Contains(err.Error(), "temporary copy") {
		t.Errorf("no spool directory: %v", err)
	}
	_, err = NewStream(strings.NewReader(strings.Repeat("text ", 1000)), "-", t.TempDir()).Open(nil)
	if !errors.Is(err, archive.ErrNotArchive) {
		t.Errorf("text: %v", err)
	}
}

// TestOnePassReads checks the source's rules directly: the recorded start
// is read again after replay, a read behind the stream fails with
// ErrReadOnce, a read ahead of it while recording fails, and one ahead
// after replay skips.
func TestOnePassReads(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	s := &onePass{r: bytes.NewReader(data), recording: true}
	b := make([]byte, 4)
	if n, err := s.ReadAt(b, 0); n != 4 || err != nil || string(b) != "0123" {
		t.Fatalf("%d %v %q", n, err, b)
	}
	if _, err := s.ReadAt(b, 10); !errors.Is(err, errAhead) {
		t.Errorf("ahead while recording: %v", err)
	}
	s.replay()
	if n, err := s.ReadAt(b[:2], 0); n != 2 || err != nil || string(b[:2]) != "01" {
		t.Fatalf("replay: %d %v %q", n, err, b[:2])
	}
	if n, err := s.ReadAt(b, 2); n != 4 || err != nil || string(b) != "2345" {
		t.Fatalf("across the recorded end: %d %v %q", n, err, b)
	}
	if _, err := s.ReadAt(b, 0); !errors.Is(err, ErrReadOnce) {
		t.Errorf("behind: %v", err)
	}
	if n, err := s.ReadAt(b, 16); n != 4 || (err != nil && err != io.EOF) || string(b) != "ghij" {
		t.Errorf("skip ahead: %d %v %q", n, err, b)
	}
	if n, err := s.ReadAt(b, 20); n != 0 || err != io.EOF {
		t.Errorf("at the end: %d %v", n, err)
	}
}

// TestRemoveTemporariesClosesSpool: a temporary copy that still has a name
// (as on Windows, where an open file cannot lose it) is closed before its
// name is removed, so that the removal works there too.
func TestRemoveTemporariesClosesSpool(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "spool")
	if err != nil {
		t.Fatal(err)
	}
	spools.add(f.Name(), f)
	RemoveTemporaries()
	if _, err := f.Write([]byte{1}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write after RemoveTemporaries: %v, want %v", err, os.ErrClosed)
	}
	if _, err := os.Lstat(f.Name()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the copy is still there: %v", err)
	}
	if len(spools.paths) != 0 {
		t.Errorf("spools still names %v", spools.paths)
	}
}
