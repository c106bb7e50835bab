package unpack3

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
)

// TestWindowSizing: a file's window is its size (not rounded up, so never
// more than the memory checked against the limit), and a smaller
// non-solid file after it decodes in the same window, with its own
// dictionary as the longest distance.
func TestWindowSizing(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	d := NewDecoder()
	defer d.Close()
	var first *[]byte
	for i, n := range []int{700 << 10, 300 << 10, 500 << 10} {
		ops, want := synth3(rng, n, 1<<20)
		var w bitWriter
		writeOps(&w, ops)
		if err := d.Reset(bytes.NewReader(w.Buf), Params{DictSize: 4 << 20, UnpackedSize: int64(len(want)), Version: 29}); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("file %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
		if i == 0 {
			first = d.winp
			if got := len(*d.winp); got != len(want)+ringExtra {
				t.Errorf("window %d bytes, want %d", got, len(want)+ringExtra)
			}
			continue
		}
		if d.winp != first {
			t.Errorf("file %d (%d bytes): the window was replaced", i, len(want))
		}
		if d.dict != len(want) {
			t.Errorf("file %d: dictionary %d, want the file's size %d", i, d.dict, len(want))
		}
	}
}
