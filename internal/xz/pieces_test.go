package xz

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestPiecesHoldTheStream writes blocks' streams of several sizes in
// writes of random sizes into one pieces buffer and checks that it gives
// back each stream exactly, holds no more than the largest stream and
// one piece, and reuses its pieces from block to block.
func TestPiecesHoldTheStream(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var b pieces
	largest := 0
	for _, n := range []int{0, 1, pieceSize, 3*pieceSize + 12345, 1000, 2*pieceSize - 1} {
		data := make([]byte, n)
		rng.Read(data)
		b.Reset()
		for p := data; len(p) > 0; {
			k := min(len(p), 1+rng.Intn(300000))
			if m, err := b.Write(p[:k]); m != k || err != nil {
				t.Fatalf("Write: %d of %d, %v", m, k, err)
			}
			p = p[k:]
		}
		if b.Len() != n {
			t.Fatalf("Len %d, want %d", b.Len(), n)
		}
		if got := bytes.Join(b.bufs[:b.used], nil); !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: the pieces hold other bytes (%d)", n, len(got))
		}
		largest = max(largest, n)
		held := 0
		for _, p := range b.bufs {
			held += cap(p)
		}
		if held > largest+pieceSize {
			t.Errorf("after a stream of %d bytes: %d bytes held, want at most %d", n, held, largest+pieceSize)
		}
	}
}
