package unpack5

import (
	"bytes"
	"io"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/filters"
)

// TestDecodeInChunks checks that output is decoded a chunk at a time, not
// window by window, so that readers find it in the cache, and that a
// delta block longer than a chunk is still decoded whole into the window
// and filtered from there (no copy into fbuf).
func TestDecodeInChunks(t *testing.T) {
	const (
		size     = 1 << 20
		blockLen = 3 * decodeChunk
	)
	rng := rand.New(rand.NewSource(1))
	ops := []synthOp{{filter: &filterDesc{start: 0, length: blockLen, typ: filterDelta, channels: 3}}}
	var out []byte
	for len(out) < size {
		if len(out) > 64 && rng.Intn(4) == 0 {
			l, dist := 2+rng.Intn(30), uint64(1+rng.Intn(len(out)))
			for _, b := range []uint64{0x100, 0x2000, 0x40000} {
				if dist > b {
					l++
				}
			}
			ops = append(ops, synthOp{length: l, dist: dist})
			for range l {
				out = append(out, out[len(out)-int(dist)])
			}
			continue
		}
		b := byte(rng.Intn(256))
		ops = append(ops, synthOp{lit: b})
		out = append(out, b)
	}
	want := append([]byte(nil), out...)
	filters.RARDelta(want[:blockLen], out[:blockLen], 3)
	var w bitWriter
	synthBlock(&w, ops, true, true, 0)
	w.Align()

	d := NewDecoder()
	defer d.Close()
	if err := d.Reset(bytes.NewReader(w.Buf), Params{DictSize: 4 << 20, UnpackedSize: int64(len(want))}); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 4096)
	maxAhead := int64(0)
	for {
		n, err := d.Read(buf)
		got = append(got, buf[:n]...)
		if len(got) > blockLen {
			maxAhead = max(maxAhead, d.total-d.rpos)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs (%d bytes, want %d)", len(got), len(want))
	}
	if cap(d.fbuf) != 0 {
		t.Errorf("the delta block was collected into fbuf (%d bytes) instead of filtered in the window", cap(d.fbuf))
	}
	if maxAhead > decodeChunk+maxMatch {
		t.Errorf("decoded up to %d bytes ahead of the reader, want at most a chunk (%d) and a match", maxAhead, decodeChunk)
	}
}
