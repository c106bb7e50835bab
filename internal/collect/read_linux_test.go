package collect

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestFileReader checks the reader of files to archive, with raw reads
// on one P and plain ones on two: it returns the file's bytes whatever
// the size of the reads, io.EOF at the end and after it, nothing for an
// empty buffer, and os.ErrClosed after Close (and at a second Close).
func TestFileReader(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	want := make([]byte, 300_001)
	x := uint32(1)
	for i := range want {
		x = x*1664525 + 1013904223
		want[i] = byte(x >> 24)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		procs, size int
	}{{1, 1}, {1, 7}, {1, 4096}, {1, 1 << 20}, {2, 7}, {2, 1 << 20}} {
		runtime.GOMAXPROCS(c.procs)
		size := c.size
		r, err := openFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fr, ok := r.(*fileReader); !ok || fr.raw != (c.procs == 1) {
			t.Fatalf("openFile with %d Ps gave %#v, want a *fileReader with raw reads on one P", c.procs, r)
		}
		if n, err := r.Read(nil); n != 0 || err != nil {
			t.Errorf("empty read: %d, %v", n, err)
		}
		var got bytes.Buffer
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				if n != 0 {
					t.Errorf("reads of %d: %d bytes with io.EOF", size, n)
				}
				break
			}
			if err != nil {
				t.Fatalf("reads of %d: %v", size, err)
			}
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("reads of %d: %d bytes, not the file's %d", size, got.Len(), len(want))
		}
		if n, err := r.Read(buf); n != 0 || err != io.EOF {
			t.Errorf("read after the end: %d, %v", n, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(buf); !errors.Is(err, os.ErrClosed) {
			t.Errorf("read after Close: %v, want os.ErrClosed", err)
		}
		if err := r.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("second Close: %v, want os.ErrClosed", err)
		}
	}
	if _, err := openFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestFileReaderFIFO checks that a name that is a FIFO when it is read
// (it was a regular file when collected) neither blocks at the open nor
// at the read, as os.Open does with no writer at the other end: the read
// ends at once, with no data.
func TestFileReaderFIFO(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		r, err := openFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := r.Read(make([]byte, 100))
		if n != 0 || err == nil {
			t.Errorf("%d Ps: read of a FIFO without writer: %d, %v; want 0 and EOF or an error", procs, n, err)
		}
		r.Close()
	}
}
