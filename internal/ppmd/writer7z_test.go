package ppmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestWriter7zChunks checks that the output does not depend on how the
// input is split into Write calls, and that Reset gives the same stream
// again.
func TestWriter7zChunks(t *testing.T) {
	data := mixedData(200_000)
	want := encode7z(t, data, 6, 1<<20, false)
	for _, chunk := range []int{1, 7, 4096, 1 << 20} {
		var out bytes.Buffer
		z, err := NewWriter7z(io.Discard, 6, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		z.Reset(&out) // Reset before any data
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			if k, err := z.Write(p[:n]); k != n || err != nil {
				t.Fatalf("chunk %d: wrote %d of %d: %v", chunk, k, n, err)
			}
			p = p[n:]
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("chunk %d: output differs", chunk)
		}
		if z.Written() != int64(len(want)) {
			t.Fatalf("Written %d, want %d", z.Written(), len(want))
		}
		if _, err := z.Write([]byte{1}); !errors.Is(err, ErrClosed) {
			t.Fatalf("write after close: %v", err)
		}
	}
}

// TestWriter7zEmpty: an empty stream is the range coder's five flush
// bytes, which Reader7z accepts for size 0, and with an end marker for an
// unknown size.
func TestWriter7zEmpty(t *testing.T) {
	packed := encode7z(t, nil, 6, 1<<20, false)
	if len(packed) != 5 || packed[0] != 0 {
		t.Fatalf("empty stream % x", packed)
	}
	packed = encode7z(t, nil, 6, 1<<20, true)
	d, err := NewReader7z(bytes.NewReader(packed), 6, 1<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(d); err != nil || len(got) != 0 {
		t.Fatalf("empty with end marker: %d bytes, %v", len(got), err)
	}
}

// TestWriter7zProps covers the parameter checks and the property bytes.
func TestWriter7zProps(t *testing.T) {
	for _, tc := range []struct {
		order int
		mem   uint32
		ok    bool
	}{
		{6, 16 << 20, true},
		{MinOrder, MinMemSize, true},
		{MaxOrder, 1 << 20, true},
		{1, 1 << 20, false},
		{MaxOrder + 1, 1 << 20, false},
		{6, MinMemSize - 1, false},
	} {
		z, err := NewWriter7z(io.Discard, tc.order, tc.mem)
		if !tc.ok {
			if !errors.Is(err, archive.ErrFormat) {
				t.Errorf("order %d mem %d: %v, want ErrFormat", tc.order, tc.mem, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		o, m, err := ParseProps7z(z.Props())
		if err != nil || o != tc.order || m != tc.mem || z.Order() != tc.order || z.MemSize() != tc.mem {
			t.Errorf("props % x parse to %d %d %v, want %d %d", z.Props(), o, m, err, tc.order, tc.mem)
		}
	}
	// A failed ResetProps makes the writer unusable until the next one.
	z, _ := NewWriter7z(io.Discard, 6, 1<<20)
	if err := z.ResetProps(io.Discard, 0, 1<<20); err == nil {
		t.Fatal("ResetProps accepted order 0")
	}
	if _, err := z.Write([]byte("x")); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("write after failed ResetProps: %v", err)
	}
	if err := z.ResetProps(io.Discard, 4, 1<<16); err != nil {
		t.Fatal(err)
	}
	if _, err := z.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
}

type failWriter struct{ n int }

var errSink = errors.New("sink full")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errSink
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriter7zWriteError: an output error stops the encoder and is
// reported by Write or Close and every call after.
func TestWriter7zWriteError(t *testing.T) {
	data := randomData(500_000, 5)
	z, err := NewWriter7z(&failWriter{n: 100_000}, 6, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := z.Write(data)
	cerr := z.Close()
	if !errors.Is(werr, errSink) || !errors.Is(cerr, errSink) {
		t.Fatalf("Write: %v, Close: %v", werr, cerr)
	}
	if z.Written() != 100_000 {
		t.Fatalf("Written %d, want 100000", z.Written())
	}
	// Small output fails only at Close.
	z.Reset(&failWriter{n: 2})
	if _, err := z.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); !errors.Is(err, errSink) {
		t.Fatalf("Close: %v", err)
	}
}

// TestWriter7zAllocs: encoding stream after stream with Reset (and
// ResetProps to a smaller arena) allocates nothing.
func TestWriter7zAllocs(t *testing.T) {
	data := mixedData(300_000)
	var out bytes.Buffer
	out.Grow(1 << 20)
	z, err := NewWriter7z(&out, 8, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	small := false
	run := func() {
		out.Reset()
		if small {
			if err := z.ResetProps(&out, 4, 1<<20); err != nil {
				t.Fatal(err)
			}
		} else {
			z.Reset(&out)
		}
		if _, err := z.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Fatalf("%v allocations per Reset stream, want 0", n)
	}
	small = true
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Fatalf("%v allocations per ResetProps stream, want 0", n)
	}
}

// TestLevelProps7z checks the level table and the size reduction against
// the properties 7zz itself writes for -m0=PPMd -mxN on inputs of a few
// sizes.
func TestLevelProps7z(t *testing.T) {
	want := []struct {
		order int
		mem   uint32
	}{
		{6, 16 << 20}, // level 0: default
		{4, 1 << 20}, {4, 2 << 20}, {5, 4 << 20}, {5, 8 << 20}, {6, 16 << 20},
		{8, 32 << 20}, {16, 64 << 20}, {24, 128 << 20}, {32, 192 << 20},
		{32, 192 << 20}, // above 9: 9
	}
	for level, w := range want {
		o, m := LevelProps7z(level)
		if o != w.order || m != w.mem {
			t.Errorf("level %d: order %d mem %d, want %d %d", level, o, m, w.order, w.mem)
		}
	}
	for _, tc := range []struct {
		mem  uint32
		size int64
		want uint32
	}{
		{16 << 20, -1, 16 << 20},
		{16 << 20, 1 << 20, 16 << 20},
		{16 << 20, 1<<20 - 1, 16 << 20},
		{16 << 20, 1 << 19, 8 << 20},
		{16 << 20, 1<<19 + 1, 16 << 20},
		{16 << 20, 0, 64 << 10},
		{16 << 20, 5000, 128 << 10},
		{192 << 20, 10 << 20, 192 << 20},
		{192 << 20, 9 << 20, 192 << 20},
		{192 << 20, 8 << 20, 128 << 20},
	} {
		if got := ReduceMem7z(tc.mem, tc.size); got != tc.want {
			t.Errorf("ReduceMem7z(%d, %d) = %d, want %d", tc.mem, tc.size, got, tc.want)
		}
	}

	bin := sevenZip(t)
	dir := t.TempDir()
	for _, size := range []int{3000, 700_000} {
		data := textData(size)
		in := filepath.Join(dir, "data.txt")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, level := range []int{1, 3, 5, 7, 9} {
			arc := filepath.Join(dir, "a.7z")
			os.Remove(arc)
			cmd := exec.Command(bin, "a", "-t7z", "-m0=PPMd", "-mx="+string(rune('0'+level)), "-mhc=off", "-bd", arc, in)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("7zz: %v\n%s", err, out)
			}
			fs, err := ppmdFolders(arc)
			if err != nil || len(fs) != 1 {
				t.Fatalf("level %d: %d folders, %v", level, len(fs), err)
			}
			o, m := LevelProps7z(level)
			m = ReduceMem7z(m, int64(size))
			if fs[0].order != o || fs[0].memSize != m {
				t.Errorf("size %d level %d: 7zz wrote order %d mem %d, we use %d %d", size, level, fs[0].order, fs[0].memSize, o, m)
			}
			// Same parameters, same bytes.
			if got := encode7z(t, data, o, m, false); !bytes.Equal(got, fs[0].packed) {
				t.Errorf("size %d level %d: packed stream differs from 7zz's", size, level)
			}
		}
	}
}
