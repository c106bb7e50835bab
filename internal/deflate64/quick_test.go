package deflate64

import (
	"bytes"
	"compress/flate"
	"io"
	"math/rand"
	"testing"
)

func TestQuick(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rng.Intn(16)) + 'a'
	}
	for lvl := -2; lvl <= 9; lvl++ {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, lvl)
		w.Write(data)
		w.Close()
		got, err := io.ReadAll(New(bytes.NewReader(b.Bytes()), false))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("level %d: err %v eq %v len %d", lvl, err, bytes.Equal(got, data), len(got))
		}
	}
}
