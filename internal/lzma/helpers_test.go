package lzma

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
	ulzma "github.com/ulikunitz/xz/lzma"
)

// testData returns n bytes of a given kind, deterministic for a seed.
func testData(kind string, n int, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	b := make([]byte, n)
	switch kind {
	case "zero":
	case "random":
		rng.Read(b)
	case "repeat":
		pat := make([]byte, 1+rng.Intn(40))
		rng.Read(pat)
		for i := range b {
			b[i] = pat[i%len(pat)]
		}
	case "text":
		words := []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "func ", "return ",
			"if err != nil {\n", "}\n", "package ", "import ", "\t", "lzma ", "range ", "coder ", "0x", "1234", "\n"}
		i := 0
		for i < n {
			w := words[rng.Intn(len(words))]
			if rng.Intn(50) == 0 {
				w = string(rune('A' + rng.Intn(26)))
			}
			i += copy(b[i:], w)
		}
	case "mixed":
		// Text, then binary-like structured data, then random, then a
		// repeat of an earlier region.
		q := n / 4
		copy(b, testData("text", q, seed))
		for i := q; i < 2*q; i++ {
			b[i] = byte(i*7) ^ byte(rng.Intn(4))
		}
		rng.Read(b[2*q : 3*q])
		copy(b[3*q:], b[q/2:])
	default:
		panic(kind)
	}
	return b
}

var dataKinds = []string{"zero", "random", "repeat", "text", "mixed"}

// mixedInput returns n bytes of the standard benchmark input (see
// testenv.MixedData), for benchmarks and opt-in comparisons.
func mixedInput(tb testing.TB, n int) []byte {
	tb.Helper()
	return testenv.MixedData(tb, n)
}

// ulikunitzLZMA compresses with ulikunitz/xz and returns the raw stream
// (header stripped) and the 5-byte 7z properties.
func ulikunitzLZMA(tb testing.TB, data []byte, lc, lp, pb, dictCap int, eos bool) ([]byte, []byte) {
	tb.Helper()
	var buf bytes.Buffer
	cfg := ulzma.WriterConfig{
		Properties:   &ulzma.Properties{LC: lc, LP: lp, PB: pb},
		DictCap:      dictCap,
		SizeInHeader: !eos,
		Size:         int64(len(data)),
		EOSMarker:    eos,
	}
	w, err := cfg.NewWriter(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	b := buf.Bytes()
	return b[13:], append([]byte(nil), b[:5]...)
}

func ulikunitzLZMA2(tb testing.TB, data []byte, lc, lp, pb, dictCap int) ([]byte, byte) {
	tb.Helper()
	var buf bytes.Buffer
	cfg := ulzma.Writer2Config{
		Properties: &ulzma.Properties{LC: lc, LP: lp, PB: pb},
		DictCap:    dictCap,
	}
	w, err := cfg.NewWriter2(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), lzma2PropFor(uint32(dictCap))
}
