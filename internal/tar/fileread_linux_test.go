//go:build linux && (amd64 || arm64)

package tar

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
)

// openFileSection writes data to a file in a temporary directory and
// returns it open with a fileSection of its first n bytes; the test is
// skipped where the temporary directory's file system is not one
// fileSection reads (localReads).
func openFileSection(t *testing.T, data []byte, n int64) (*os.File, io.Reader) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s := newFileSection(f, n)
	if s == nil {
		t.Skipf("the file system of %s is not read with raw calls (localReads)", p)
	}
	return f, s
}

// TestFileSection: a fileSection gives the section's bytes in order,
// whatever the sizes of the reads, then io.EOF, at the section's end or
// the file's, with one P and with several; a read after the file is
// closed fails with fs.ErrClosed; what is not an *os.File gets none.
func TestFileSection(t *testing.T) {
	data := make([]byte, 300001)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		name  string
		n     int64
		procs int
	}{
		{"section", 200000, 0},
		{"to the file's end", math.MaxInt64, 0},
		{"one P", 200000, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.procs > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			}
			_, s := openFileSection(t, data, c.n)
			want := data[:min(c.n, int64(len(data)))]
			var got []byte
			buf := make([]byte, 70000)
			for i := 0; ; i++ {
				k, err := s.Read(buf[:1+i*i*97%len(buf)])
				got = append(got, buf[:k]...)
				if err == io.EOF {
					break
				}
				if err != nil || k == 0 {
					t.Fatalf("read %d: %d bytes, %v", i, k, err)
				}
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want %d (or different ones)", len(got), len(want))
			}
			if k, err := s.Read(buf); k != 0 || err != io.EOF {
				t.Errorf("after the end: %d, %v; want 0, io.EOF", k, err)
			}
			// A sized io.ReaderAt, as io.SectionReader was: xz reads its
			// indexes at the end through it to decide whether its blocks
			// are worth decoding in parallel.
			ra, ok := s.(interface {
				io.ReaderAt
				Size() int64
			})
			if !ok {
				t.Fatal("a fileSection is not a sized io.ReaderAt")
			}
			if ra.Size() != c.n {
				t.Errorf("Size %d, want %d", ra.Size(), c.n)
			}
			at := int64(len(want)) - 100
			k, err := ra.ReadAt(buf[:150], at)
			if k != 100 || err != io.EOF || !bytes.Equal(buf[:k], want[at:]) {
				t.Errorf("ReadAt of the last 100 bytes: %d, %v", k, err)
			}
		})
	}
	t.Run("closed", func(t *testing.T) {
		f, s := openFileSection(t, data, int64(len(data)))
		f.Close()
		if k, err := s.Read(make([]byte, 10)); k != 0 || !errors.Is(err, fs.ErrClosed) {
			t.Errorf("read of a closed file: %d, %v; want fs.ErrClosed", k, err)
		}
	})
	if s := newFileSection(bytes.NewReader(data), int64(len(data))); s != nil {
		t.Errorf("a bytes.Reader got a fileSection")
	}
}

// TestReadFile: a compressed tar read from a file (through a
// fileSection) gives the entries, and for a stream cut short the error,
// that it gives read from memory, with one thread and with two.
func TestReadFile(t *testing.T) {
	var plain bytes.Buffer
	for i, size := range []int{0, 1, 511, 300000, 3<<20 + 77} {
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(j*31 + j>>9 + i)
		}
		plain.Write(rawHeader{name: string(rune('a' + i)), typeflag: '0', data: string(data)}.bytes())
	}
	plain.Write(make([]byte, 2*blockSize))
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	w.Write(plain.Bytes())
	w.Close()
	gz := z.Bytes()
	for _, c := range []struct {
		name    string
		data    []byte
		threads int
	}{
		{"gz", gz, 1},
		{"gz threads 2", gz, 2},
		{"gz cut", gz[:len(gz)*3/4], 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem, merr := gzTree(bytes.NewReader(c.data), int64(len(c.data)), c.threads)
			f, _ := openFileSection(t, c.data, int64(len(c.data)))
			got, err := gzTree(f, int64(len(c.data)), c.threads)
			if (err == nil) != (merr == nil) || err != nil && err.Error() != merr.Error() {
				t.Fatalf("from the file: %v; from memory: %v", err, merr)
			}
			if len(got) != len(mem) || c.name != "gz cut" && len(got) != 5 {
				t.Fatalf("from the file: %d entries; from memory: %d", len(got), len(mem))
			}
			for name, w := range mem {
				if got[name] != w {
					t.Errorf("%s: %q from the file, %q from memory", name, got[name], w)
				}
			}
		})
	}
}

// gzTree is the content of the .tar.gz of size bytes in src (extracted).
func gzTree(src io.ReaderAt, size int64, threads int) (map[string]string, error) {
	r, err := Open(src, size, stream.Gzip, &archive.Options{Name: "f.tar.gz", Threads: threads})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return extracted(r)
}
