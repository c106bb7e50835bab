package zstd

import (
	"bytes"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/testenv"
)

// samples are inputs of every kind the encoder meets: empty, tiny, text,
// random bytes, runs of one byte, UTF-16 text and a mix of them.
func samples(t testing.TB) map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var runs []byte
	for len(runs) < 1<<20 {
		runs = append(runs, bytes.Repeat([]byte{byte(r.IntN(3))}, r.IntN(200<<10))...)
		runs = append(runs, random[:r.IntN(100)]...)
	}
	var utf16 []byte
	for _, c := range bytes.Repeat([]byte("Grüße, the quick brown fox — 0123456789\n"), 4000) {
		utf16 = append(utf16, c, 0)
	}
	mixed := testenv.MixedData(t, 3<<20)
	return map[string][]byte{
		"empty": nil, "one": {7}, "short": []byte("abcabcabcabcabcabcabcabcabc"),
		"random": random, "runs": runs, "utf16": utf16, "mixed": mixed,
		"zeros": make([]byte, 600<<10),
	}
}

// decoder is klauspost's, the tests' oracle.
var decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))

func decode(t testing.TB, comp []byte) []byte {
	t.Helper()
	got, err := decoder.DecodeAll(comp, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return got
}

// encodeStream writes data to a frame in pieces of size piece.
func encodeStream(t testing.TB, e *Encoder, data []byte, piece int) []byte {
	var buf bytes.Buffer
	e.Reset(&buf)
	for p := data; len(p) > 0; {
		k := min(piece, len(p))
		if _, err := e.Write(p[:k]); err != nil {
			t.Fatal(err)
		}
		p = p[k:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every sample comes back from klauspost's decoder and from zstd, as one
// frame with its size or written in pieces, also with a window smaller
// than the input, so that the history moves down the buffer.
func TestRoundTrip(t *testing.T) {
	zstdTool := ""
	for name, data := range samples(t) {
		for _, window := range []int{1 << 22, 1 << 16} {
			e := NewEncoder(window)
			for _, comp := range [][]byte{e.EncodeAll(data, nil), encodeStream(t, e, data, 1<<20+17), encodeStream(t, e, data, 5000)} {
				if got := decode(t, comp); !bytes.Equal(got, data) {
					t.Fatalf("%s, window %d: decoded %d bytes, not the %d written", name, window, len(got), len(data))
				}
				if zstdTool == "" {
					zstdTool = testenv.Tool(t, "zstd")
				}
				if got, err := zstdDecode(zstdTool, comp); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s, window %d: zstd -d: %v, %d bytes", name, window, err, len(got))
				}
			}
		}
	}
}

// zstdDecode decodes comp with the zstd tool, which checks the content
// checksum.
func zstdDecode(tool string, comp []byte) ([]byte, error) {
	cmd := exec.Command(tool, "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(comp)
	return cmd.Output()
}

// A block of one byte repeated is an RLE block of 4 bytes, as zstd writes
// it (but the frame's first block), and a frame of 16 such blocks takes
// less than 100 bytes.
func TestRunBlocks(t *testing.T) {
	data := make([]byte, 16*blockMax)
	comp := encodeStream(t, NewEncoder(1<<22), data, 1<<20)
	if len(comp) > 100 {
		t.Errorf("%d zero bytes compress to %d bytes", len(data), len(comp))
	}
	if got := decode(t, comp); !bytes.Equal(got, data) {
		t.Errorf("decoded %d bytes", len(got))
	}
}

// Two frames from one encoder are the same bytes as from two: nothing of
// a frame leaks into the next.
func TestResetForgets(t *testing.T) {
	s := samples(t)
	e := NewEncoder(1 << 22)
	encodeStream(t, e, s["mixed"], 1<<20)
	again := encodeStream(t, e, s["utf16"], 1<<20)
	fresh := encodeStream(t, NewEncoder(1<<22), s["utf16"], 1<<20)
	if !bytes.Equal(again, fresh) {
		t.Errorf("a used encoder writes %d bytes, a new one %d", len(again), len(fresh))
	}
}

// A frame longer than the positions its tables keep (posMask+1 bytes)
// comes back whole: entries from farther back alias to nearer positions
// and are candidates only where the window holds their bytes.
func TestFrameBeyondPositions(t *testing.T) {
	mixed := samples(t)["mixed"]
	var data []byte
	for i := 0; len(data) < 2*(posMask+1)+5<<20; i++ {
		// Repeats of 3 MiB, each a little changed, at distances that
		// alias as the positions wrap.
		data = append(data, mixed[i*4099%len(mixed):]...)
		data = append(data, byte(i))
	}
	comp := encodeStream(t, NewEncoder(1<<22), data, 1<<20)
	if got := decode(t, comp); !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, not the %d written", len(got), len(data))
	}
	if len(comp) > len(data)/8 {
		t.Errorf("%d bytes of repeats compress to %d", len(data), len(comp))
	}
}

// FuzzEncode encodes its input whole (with the content size) and in
// pieces with a window of 64 KiB, and checks that klauspost's decoder and
// zstd give it back.
func FuzzEncode(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabc0123456789"), uint16(7))
	f.Add(bytes.Repeat([]byte{0}, 300<<10), uint16(1000))
	f.Add(bytes.Repeat([]byte("a\x00b\x00c\x00"), 30000), uint16(65535))
	tool := testenv.Tool(f, "zstd")
	e := NewEncoder(1 << 16)
	f.Fuzz(func(t *testing.T, data []byte, piece uint16) {
		// Inputs grow past the window by repeating with a twist.
		if len(data) > 0 && piece&1 == 1 {
			for len(data) < 200<<10 {
				data = append(data, data[:min(len(data), int(piece)+1)]...)
				data = append(data, byte(len(data)))
			}
		}
		for _, comp := range [][]byte{e.EncodeAll(data, nil), encodeStream(t, e, data, int(piece)+1)} {
			if got := decode(t, comp); !bytes.Equal(got, data) {
				t.Fatalf("klauspost decodes %d bytes, not the %d written", len(got), len(data))
			}
			if got, err := zstdDecode(tool, comp); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("zstd -d: %v, %d bytes of %d", err, len(got), len(data))
			}
		}
	})
}
