package collect

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRawFileRead checks the reader of regular files on one P: it is
// used (and only for regular files, and only with one P), it returns the
// file's bytes whatever the size of the reads, io.EOF at the end and
// after it, nothing for an empty buffer, and os.ErrClosed after Close.
func TestRawFileRead(t *testing.T) {
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
	for _, size := range []int{1, 7, 4096, 1 << 20} {
		r, err := openFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.(*rawFile); !ok {
			t.Fatalf("openFile with one P gave %T, want *rawFile", r)
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
	}
	r, err := openFile(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*os.File); !ok {
		t.Errorf("openFile(%s) gave %T, want *os.File", os.DevNull, r)
	}
	r.Close()
	runtime.GOMAXPROCS(2)
	r, err = openFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*os.File); !ok {
		t.Errorf("openFile with two Ps gave %T, want *os.File", r)
	}
	r.Close()
	if _, err := openFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
