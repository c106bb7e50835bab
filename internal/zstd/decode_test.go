package zstd

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// decodeSamples are the inputs the Reader is tested on: empty, tiny,
// text, random bytes, runs of bytes and of short patterns (RLE blocks,
// long matches of small offsets), and mixed data.
func decodeSamples(t testing.TB) map[string][]byte {
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var runs []byte
	for len(runs) < 2<<20 {
		runs = append(runs, bytes.Repeat([]byte{byte(r.IntN(3))}, r.IntN(300<<10))...)
		runs = append(runs, bytes.Repeat(random[:1+r.IntN(7)], r.IntN(20<<10))...)
		runs = append(runs, random[:r.IntN(100)]...)
	}
	return map[string][]byte{
		"empty": nil, "one": {7}, "short": []byte("abcabcabcabcabcabcabcabcabc"),
		"random": random, "runs": runs, "mixed": testenv.MixedData(t, 1<<20),
		"zeros": make([]byte, 600<<10),
	}
}

// decodeAll decodes comp with a Reader of window limit maxWindow.
func decodeAll(comp []byte, maxWindow int64) ([]byte, error) {
	return io.ReadAll(NewReader(bytes.NewReader(comp), maxWindow))
}

// encodings returns data compressed in several ways: klauspost's encoder
// at four levels (streamed: no content size; and whole: with it), with a
// window of 64 KiB (which the Reader's buffer wraps around), without
// a checksum, in two frames with a skippable frame between, by garc's own
// encoder, and by the zstd tool at levels 1, 3 and 19 and with --long
// when it is installed.
func encodings(t testing.TB, data []byte) map[string][]byte {
	out := map[string][]byte{}
	for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		out["klauspost whole "+l.String()] = e.EncodeAll(data, nil)
		var b bytes.Buffer
		e.Reset(&b)
		if _, err := e.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		out["klauspost stream "+l.String()] = b.Bytes()
	}
	small, _ := zstd.NewWriter(nil, zstd.WithWindowSize(64<<10), zstd.WithEncoderConcurrency(1))
	out["klauspost window 64 KiB"] = small.EncodeAll(data, nil) // the output wraps every 64 KiB
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	out["no checksum"] = e.EncodeAll(data, nil)
	half := len(data) / 2
	two := e.EncodeAll(data[:half], nil)
	two = append(two, 0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3)
	out["two frames, no checksum"] = e.EncodeAll(data[half:], two)
	out["own encoder"] = NewEncoder(1<<20).EncodeAll(data, nil)
	if _, err := exec.LookPath("zstd"); err == nil {
		for _, args := range [][]string{{"-1"}, {"-3"}, {"-19"}, {"--long=24", "-5"}} {
			cmd := exec.Command("zstd", append(args, "-c", "-q")...)
			cmd.Stdin = bytes.NewReader(data)
			b, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			out["zstd "+args[0]] = b
		}
	}
	return out
}

// TestReaderDecodes: the Reader's output is the data, whoever encoded it.
func TestReaderDecodes(t *testing.T) {
	for name, data := range decodeSamples(t) {
		for how, comp := range encodings(t, data) {
			got, err := decodeAll(comp, 1<<30)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s, %s: %d bytes, %v; want %d bytes", name, how, len(got), err, len(data))
			}
		}
	}
}

// TestReaderSmallReads: reads of a few bytes at a time give the same
// output.
func TestReaderSmallReads(t *testing.T) {
	data := decodeSamples(t)["runs"]
	comp := NewEncoder(1<<20).EncodeAll(data, nil)
	z := NewReader(bytes.NewReader(comp), 1<<30)
	var got []byte
	buf := make([]byte, 7)
	for {
		n, err := z.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%d bytes, want %d", len(got), len(data))
	}
}

// TestReaderDamage: a truncated or altered stream gives an error that
// wraps archive.ErrFormat or archive.ErrChecksum and names an offset in
// the stream, or (an alteration the format cannot notice) the data.
func TestReaderDamage(t *testing.T) {
	data := decodeSamples(t)["mixed"][:100<<10]
	r := rand.New(rand.NewPCG(5, 6))
	for how, comp := range encodings(t, data) {
		check := func(what string, bad []byte) {
			got, err := decodeAll(bad, 1<<30)
			if err == nil {
				if !strings.HasSuffix(how, "no checksum") && !bytes.Equal(got, data) {
					t.Errorf("%s, %s: no error, %d bytes differ", how, what, len(got))
				}
				return
			}
			var ae *archive.Error
			if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrChecksum) || !errors.As(err, &ae) || ae.Offset < 0 || ae.Offset > int64(len(bad)) {
				t.Errorf("%s, %s: %v", how, what, err)
			}
		}
		for range 20 {
			n := r.IntN(len(comp))
			check("truncated", comp[:n])
		}
		for range 40 {
			bad := bytes.Clone(comp)
			bad[r.IntN(len(bad))] ^= byte(1 << r.IntN(8))
			check("a bit flipped", bad)
		}
	}
}

// TestReaderWindowLimit: a frame whose window exceeds the limit is an
// error wrapping archive.ErrLimit, naming the window; one within it
// decodes.
func TestReaderWindowLimit(t *testing.T) {
	data := decodeSamples(t)["mixed"][:1<<20]
	e, _ := zstd.NewWriter(nil, zstd.WithWindowSize(1<<20), zstd.WithEncoderConcurrency(1))
	var b bytes.Buffer
	e.Reset(&b)
	e.Write(data)
	e.Close()
	if got, err := decodeAll(b.Bytes(), 1<<20); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("within the limit: %v", err)
	}
	_, err := decodeAll(b.Bytes(), 1<<19)
	var le *archive.LimitError
	if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &le) || le.Need != 1<<20 {
		t.Fatalf("over the limit: %v", err)
	}
}

// offsetZero is a frame whose second block's one sequence has no
// literals and Offset_Value 3 while Repeated_Offset1 is 1: offset 0,
// which is corrupt data (RFC 8878 with its errata; zstd since 1.5.6).
// The first block writes "a" and a match of offset 1 (Offset_Value 4).
// Both blocks code their one sequence with RLE tables. offsetOne is the
// same made valid: literals "ab" and a match of offset 2 in the first
// block, so that Repeated_Offset1 - 1 is 1; it decodes to "ababaaaa".
var (
	offsetZero = []byte{
		0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, // magic, no content size, 1 KiB window
		0x44, 0x00, 0x00, // compressed block of 8 bytes
		0x08, 'a', // raw literals: "a"
		0x01, 0x54, 0x01, 0x02, 0x00, // one sequence; RLE codes: LL 1, OF 2, ML 0 (3)
		0x04,             // OF extra bits 00: Offset_Value 4 (offset 1), end marker
		0x3D, 0x00, 0x00, // compressed block of 7 bytes, last
		0x00,                         // no literals
		0x01, 0x54, 0x00, 0x01, 0x00, // one sequence; RLE codes: LL 0, OF 1, ML 0
		0x03, // OF extra bit 1: Offset_Value 3, Repeated_Offset1 - 1 = 0
	}
	offsetOne = []byte{
		0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00,
		0x4C, 0x00, 0x00, // compressed block of 9 bytes
		0x10, 'a', 'b', // raw literals: "ab"
		0x01, 0x54, 0x02, 0x02, 0x00, // LL 2, OF 2, ML 0
		0x05, // OF extra bits 01: Offset_Value 5 (offset 2)
		0x3D, 0x00, 0x00,
		0x00,
		0x01, 0x54, 0x00, 0x01, 0x00,
		0x03,
	}
)

func TestReaderOffsetZero(t *testing.T) {
	if got, err := decodeAll(offsetOne, 1<<30); err != nil || string(got) != "ababaaaa" {
		t.Fatalf("offset 1: %q, %v", got, err)
	}
	_, err := decodeAll(offsetZero, 1<<30)
	var ae *archive.Error
	if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset < 17 || ae.Offset >= int64(len(offsetZero)) {
		t.Fatalf("offset 0: %v", err)
	}
}

// TestReaderReset: a Reader reset to another stream decodes it, with the
// buffers of the first.
func TestReaderReset(t *testing.T) {
	s := decodeSamples(t)
	e := NewEncoder(1 << 20)
	z := NewReader(bytes.NewReader(e.EncodeAll(s["runs"], nil)), 1<<30)
	if _, err := io.ReadAll(z); err != nil {
		t.Fatal(err)
	}
	z.Reset(bytes.NewReader(e.EncodeAll(s["short"], nil)), 1<<30)
	if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, s["short"]) {
		t.Fatalf("%q, %v", got, err)
	}
}

// FuzzReader: whatever the Reader decodes without an error, klauspost's
// decoder decodes to the same bytes; nothing panics.
func FuzzReader(f *testing.F) {
	for _, data := range [][]byte{[]byte("hello, hello, hello"), bytes.Repeat([]byte{0}, 300<<10), testenv.MixedData(f, 64<<10)} {
		for _, comp := range encodings(f, data) {
			f.Add(comp)
		}
	}
	f.Add(offsetZero)
	kp, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20))
	f.Fuzz(func(t *testing.T, comp []byte) {
		got, err := decodeAll(comp, 8<<20)
		if err != nil {
			return
		}
		want, kerr := kp.DecodeAll(comp, nil)
		if kerr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes; klauspost: %d bytes, %v", len(got), len(want), kerr)
		}
	})
}

// TestReaderRawBlocks: raw blocks, which the Reader reads past its input
// buffer straight into the window with the next block's header, decode
// through a reader of short reads (half of what is asked, a byte at a
// time, the data with io.EOF); a stream cut inside or right after a raw
// block is an error at the offset where it ends; a read error comes out
// as it is.
func TestReaderRawBlocks(t *testing.T) {
	data := decodeSamples(t)["random"]
	var comp []byte
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	for _, part := range [][]byte{data[:1000], data, data[1000 : 200<<10]} {
		comp = e.EncodeAll(part, comp)
	}
	want := append(append(bytes.Clone(data[:1000]), data...), data[1000:200<<10]...)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"half":  iotest.HalfReader, "bytes": iotest.OneByteReader, "with EOF": iotest.DataErrReader,
	} {
		got, err := io.ReadAll(NewReader(wrap(bytes.NewReader(comp)), 1<<30))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(got), err, len(want))
		}
	}
	for _, n := range []int{len(comp) / 3, len(comp) / 2, len(comp) - 200<<10, len(comp) - 5} {
		_, err := io.ReadAll(NewReader(iotest.HalfReader(bytes.NewReader(comp[:n])), 1<<30))
		var ae *archive.Error
		if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset != int64(n) {
			t.Errorf("cut at %d: %v", n, err)
		}
	}
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(comp[:len(comp)/2]), iotest.ErrReader(boom))
	if _, err := io.ReadAll(NewReader(r, 1<<30)); err != boom {
		t.Errorf("read error: %v", err)
	}
}
