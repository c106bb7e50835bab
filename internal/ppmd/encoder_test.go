package ppmd

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// encode7z compresses data with Writer7z into a PPMd7z stream, optionally
// followed by an end marker.
func encode7z(t testing.TB, data []byte, order int, memSize uint32, endMark bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, err := NewWriter7z(&buf, order, memSize)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if endMark {
		err = z.CloseWithEndMarker()
	} else {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriter7zMatches7zz checks Writer7z against 7-Zip: both must produce
// the same bytes, which pins the encoder (and the shared model) to the
// reference.
func TestWriter7zMatches7zz(t *testing.T) {
	for _, c := range testCases() {
		f := make7z(t, c)
		got := encode7z(t, c.data, f.order, f.memSize, false)
		if !bytes.Equal(got, f.packed) {
			n := 0
			for n < len(got) && n < len(f.packed) && got[n] == f.packed[n] {
				n++
			}
			t.Fatalf("%s: Writer7z output (%d bytes) differs from 7zz (%d bytes) at byte %d", c.name, len(got), len(f.packed), n)
		}
	}
}

// TestModelRoundTrip covers orders and arena sizes 7zz cannot produce.
func TestModelRoundTrip(t *testing.T) {
	data := mixedData(250_000)
	d := &Reader7z{}
	for _, tc := range []struct {
		order int
		mem   uint32
	}{
		{2, MinMemSize},
		{64, MinMemSize},
		{33, 64 << 10},
		{48, 1 << 20},
		{64, 1 << 20},
		{64, 16 << 20},
	} {
		packed := encode7z(t, data, tc.order, tc.mem, false)
		if err := d.Reset(bytes.NewReader(packed), tc.order, tc.mem, int64(len(data))); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("order %d mem %d: err=%v equal=%v", tc.order, tc.mem, err, bytes.Equal(got, data))
		}
	}
}

func TestReader7zEndMarker(t *testing.T) {
	data := textData(50_000)
	packed := encode7z(t, data, 8, 1<<20, true)
	d, err := NewReader7z(bytes.NewReader(packed), 8, 1<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readChunks(d, 1000)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("unknown size: err=%v equal=%v (%d bytes)", err, bytes.Equal(got, data), len(got))
	}
	// Known size with a trailing end marker, as 7-Zip accepts it.
	d.Reset(bytes.NewReader(packed), 8, 1<<20, int64(len(data)))
	got, err = io.ReadAll(d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("sized with end marker: err=%v equal=%v", err, bytes.Equal(got, data))
	}
	// An end marker before the announced size is an error.
	d.Reset(bytes.NewReader(packed), 8, 1<<20, int64(len(data))+1)
	if _, err := io.ReadAll(d); !errors.Is(err, ErrEndMarker) || !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("end marker inside data: %v", err)
	}
	// Unknown size without an end marker: the input runs out.
	plain := encode7z(t, data, 8, 1<<20, false)
	d.Reset(bytes.NewReader(plain), 8, 1<<20, -1)
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("no end marker: %v", err)
	}
}
