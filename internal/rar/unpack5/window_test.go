package unpack5

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
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
