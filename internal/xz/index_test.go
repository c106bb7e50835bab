package xz

import (
	"bytes"
	"io"
	"testing"
)

// TestUncompressedSize: the size read from the indexes equals the
// decoded size for single, multi-block, multi-stream and padded files,
// and anything inconsistent gives no size.
func TestUncompressedSize(t *testing.T) {
	a, b := sample(100_000, 1), sample(300_000, 2)
	one := xzCompress(t, a)
	blocks := xzCompress(t, b, "--block-size=65536", "--check=sha256")
	empty := xzCompress(t, nil)
	two := append(append(append([]byte{}, one...), make([]byte, 8)...), blocks...)
	padded := append(append([]byte{}, two...), make([]byte, 12)...)
	for _, c := range []struct {
		name string
		file []byte
		want int64
	}{
		{"one", one, int64(len(a))},
		{"blocks", blocks, int64(len(b))},
		{"empty", empty, 0},
		{"two streams", two, int64(len(a) + len(b))},
		{"padded", padded, int64(len(a) + len(b))},
	} {
		got, ok := UncompressedSize(bytes.NewReader(c.file), int64(len(c.file)))
		if !ok || got != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, got, ok, c.want)
		}
	}
	flip := func(f []byte, off int) []byte {
		g := bytes.Clone(f)
		g[off] ^= 1
		return g
	}
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"nothing", nil},
		{"padding only", make([]byte, 16)},
		{"footer CRC", flip(one, len(one)-12)},
		{"index size", flip(one, len(one)-8)},
		{"index record", flip(one, len(one)-15)},
		{"stream header", flip(one, 7)},
		{"odd padding", append(bytes.Clone(one), 0, 0)},
		{"junk before", append([]byte{1, 2, 3, 4}, one...)},
		{"truncated", one[:len(one)-1]},
	} {
		if got, ok := UncompressedSize(bytes.NewReader(c.file), int64(len(c.file))); ok {
			t.Errorf("%s: %d, want none", c.name, got)
		}
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r     *bytes.Reader
	bytes int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.bytes += int64(len(p))
	return c.r.ReadAt(p, off)
}

// TestUncompressedSizeBounded: a file padded with more zeros than
// maxIndexedPadding gets no size, and finding that out reads little more
// than the padding allowed.
func TestUncompressedSizeBounded(t *testing.T) {
	one := xzCompress(t, sample(1000, 3))
	for _, c := range []struct {
		pad  int
		want bool
	}{{maxIndexedPadding, true}, {8 * maxIndexedPadding, false}} {
		f := append(bytes.Clone(one), make([]byte, c.pad)...)
		ra := &countingReaderAt{r: bytes.NewReader(f)}
		n, ok := UncompressedSize(ra, int64(len(f)))
		if ok != c.want || ok && n != 1000 {
			t.Errorf("padding %d: %d, %v; want %v", c.pad, n, ok, c.want)
		}
		if ra.bytes > maxIndexedPadding+64<<10 {
			t.Errorf("padding %d: read %d bytes", c.pad, ra.bytes)
		}
	}
}

// FuzzUncompressedSize: any input ends without a panic, and a size read
// from the indexes is the size a clean decoding gives.
func FuzzUncompressedSize(f *testing.F) {
	f.Add(xzCompress(f, sample(3000, 4), "--block-size=1000"))
	f.Add(append(xzCompress(f, nil), 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, ok := UncompressedSize(bytes.NewReader(b), int64(len(b)))
		if !ok {
			return
		}
		got, err := io.Copy(io.Discard, NewReader(bytes.NewReader(b), 1<<20))
		if err == nil && got != n {
			t.Fatalf("indexes say %d bytes, decoding gives %d", n, got)
		}
	})
}
