package lzma

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
)

// TestShortMatchCopies decodes data made of short periodic runs, so that
// the matches cover every length up to 16 at distances 1-24, overlapping
// their destination or not, and checks the output byte for byte (run
// copies short matches inline, by words or bytes).
func TestShortMatchCopies(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var data []byte
	for len(data) < 1<<20 {
		period := 1 + rng.Intn(24)
		pat := make([]byte, period)
		rng.Read(pat)
		n := 2 + rng.Intn(40)
		for i := 0; i < n; i++ {
			data = append(data, pat[i%period])
		}
		// Repeat an earlier stretch of 2-16 bytes (a non-overlapping
		// short match), then a random byte to break the run.
		if len(data) > 64 {
			k := 2 + rng.Intn(15)
			from := len(data) - 8 - rng.Intn(48)
			data = append(data, data[from:from+k]...)
		}
		data = append(data, byte(rng.Intn(256)))
	}
	for _, level := range []int{1, 5, 9} {
		comp, props := encodeLZMA(t, data, LevelOptions(level))
		z, err := NewReader(bytes.NewReader(comp), props, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			at := 0
			for at < min(len(got), len(data)) && got[at] == data[at] {
				at++
			}
			t.Errorf("level %d: %d bytes, %v; first difference at %d", level, len(got), err, at)
		}
	}
}

// TestShortMatchesAtDictionaryEdge decodes short matches at distances just
// below the dictionary size in a window that has wrapped many times: run
// writes 16 bytes for every short match, and the bytes past the match are
// then the oldest history. Without windowSlack the next match, 1-15 bytes
// later at nearly the full distance, would read bytes already overwritten.
func TestShortMatchesAtDictionaryEdge(t *testing.T) {
	const dictSize = MinDictSize
	rng := rand.New(rand.NewSource(5))
	for _, period := range []int{dictSize, dictSize - 1, dictSize - 5, dictSize - 12} {
		block := make([]byte, period)
		rng.Read(block)
		data := make([]byte, 0, 64*period)
		for len(data) < 64*period {
			// The block again, with every ninth byte changed: matches
			// of eight bytes at distance period, a literal between.
			for i, b := range block {
				if rng.Intn(9) == 0 {
					b = byte(rng.Intn(256))
					block[i] = b
				}
				data = append(data, b)
			}
		}
		o := LevelOptions(5)
		o.DictSize = dictSize
		comp, props := encodeLZMA(t, data, o)
		z, err := NewReader(bytes.NewReader(comp), props, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		if w := len(z.d.dict) - windowSlack; w != dictSize {
			t.Fatalf("window of %d bytes for a dictionary of %d", w, dictSize)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			at := 0
			for at < min(len(got), len(data)) && got[at] == data[at] {
				at++
			}
			t.Errorf("period %d: %d bytes, %v; first difference at %d", period, len(got), err, at)
		}
	}
}
