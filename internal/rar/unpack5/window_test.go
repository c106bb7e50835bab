package unpack5

import (
	"bytes"
	"io"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/rar/lzcore"
)

// TestWindowKeptForSmallerFile: after a large file, a smaller non-solid
// one decodes in the window already held, instead of returning it to the
// pool and taking (in a fresh process: allocating and faulting in) another;
// the smaller file's own dictionary still bounds its distances.
func TestWindowKeptForSmallerFile(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	d := NewDecoder()
	defer d.Close()
	var first *[]byte
	for i, n := range []int{700 << 10, 20 << 10, 300 << 10} {
		ops, want := synthesize(rng, n, 1<<20, false)
		var w bitWriter
		synthBlock(&w, ops, true, true, 0)
		w.Align()
		if err := d.Reset(bytes.NewReader(w.Buf), Params{DictSize: 1 << 20, UnpackedSize: int64(len(want))}); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("file %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
		if i == 0 {
			first = d.winp
			continue
		}
		if d.winp != first {
			t.Errorf("file %d (%d bytes): the window was replaced", i, n)
		}
		if d.dict >= 1<<20 {
			t.Errorf("file %d: dictionary %d, want the file's own (below 1 MiB)", i, d.dict)
		}
	}
}

// TestMinWindow: with Params.MinWindow the first file takes the window the
// largest file will need, so the larger files after it decode in the same
// window instead of regrowing it; the dictionary stays each file's own.
func TestMinWindow(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	d := NewDecoder()
	defer d.Close()
	const largest = 2 << 20
	var first *[]byte
	for i, n := range []int{20 << 10, 300 << 10, 1500 << 10} {
		ops, want := synthesize(rng, n, 4<<20, false)
		var w bitWriter
		synthBlock(&w, ops, true, true, 0)
		w.Align()
		p := Params{DictSize: 4 << 20, UnpackedSize: int64(len(want)), MinWindow: largest}
		if err := d.Reset(bytes.NewReader(w.Buf), p); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("file %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
		if i == 0 {
			first = d.winp
			if d.ring-ringExtra < largest {
				t.Errorf("window %d, want at least MinWindow %d", d.ring-ringExtra, largest)
			}
		} else if d.winp != first {
			t.Errorf("file %d (%d bytes): the window was replaced", i, n)
		}
		if d.dict >= largest && n < largest/2 {
			t.Errorf("file %d: dictionary %d raised to the window", i, d.dict)
		}
	}
}

// TestWindowExactSize: the window of a non-solid file smaller than its
// dictionary is the file's size (plus the ring's few spare bytes), not the
// size rounded up to a power of two, which could be up to twice the memory
// the caller checked against --max-dict; a solid file's is its dictionary.
func TestWindowExactSize(t *testing.T) {
	const spare = ringExtra + winTail
	for _, c := range []struct {
		p    Params
		want int
	}{
		{Params{DictSize: 4 << 20, UnpackedSize: 700<<10 + 1}, 700<<10 + 1 + spare},
		{Params{DictSize: 4 << 20, UnpackedSize: 3<<20 + 5}, 3<<20 + 5 + spare},
		{Params{DictSize: 3 << 20, UnpackedSize: 5 << 20}, 3<<20 + spare},
		{Params{DictSize: 3 << 20, UnpackedSize: -1}, 3<<20 + spare},
		{Params{DictSize: 4 << 20, UnpackedSize: 10}, lzcore.MinWindow + spare},
	} {
		d := NewDecoder()
		if err := d.Reset(bytes.NewReader(nil), c.p); err != nil {
			t.Fatal(err)
		}
		if got := len(*d.winp); got != c.want {
			t.Errorf("%+v: window %d bytes, want %d", c.p, got, c.want)
		}
		d.Close()
	}
}
