package stream

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// zstdRawFrame is a zstd frame of one raw block holding p (under 8 KiB),
// whose header declares window descriptor wd and no content size.
func zstdRawFrame(wd byte, p []byte) []byte {
	h := uint32(len(p))<<3 | 1 // raw, last
	return append([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, wd, byte(h), byte(h >> 8), byte(h >> 16)}, p...)
}

// decodeZstd decodes data as a zstd file with the limit maxDict.
func decodeZstd(data []byte, maxDict int64) ([]byte, error) {
	d, _, err := NewDecoder(Zstd, bytes.NewReader(data), maxDict, 1)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return io.ReadAll(d)
}

// Windows above klauspost's default of 512 MiB decode up to the limit
// (--max-dict), however large the format lets them be; a window above the
// limit is refused naming the window and the limit, and the advice to
// raise the limit is given because raising it works.
func TestZstdLargeWindows(t *testing.T) {
	const (
		w576 = 0x99 // 2^29 + 2^26: 576 MiB
		w2g  = 0xA8 // 2^31
		w375 = 0xAF // 2^31 + 7·2^28: 3.75 GiB, the largest zstd 1.5 writes is 2 GiB
	)
	small := zstdRawFrame(0x00, []byte("first "))
	for _, c := range []struct {
		name    string
		data    []byte
		maxDict int64
		need    int64 // 0: decodes
		at      int64
	}{
		{"576 MiB, default limit", zstdRawFrame(w576, []byte("hello")), 0, 0, 0},
		{"2 GiB, default limit", zstdRawFrame(w2g, []byte("hello")), 0, 0, 0},
		{"3.75 GiB, default limit", zstdRawFrame(w375, []byte("hello")), 0, 0, 0},
		{"3.75 GiB, limit 8 GiB", zstdRawFrame(w375, []byte("hello")), 8 << 30, 0, 0},
		{"2 GiB, limit 1 GiB", zstdRawFrame(w2g, []byte("hello")), 1 << 30, 1 << 31, 0},
		{"576 MiB, limit 512 MiB", zstdRawFrame(w576, []byte("hello")), 512 << 20, 576 << 20, 0},
		{"second frame 2 GiB, limit 1 GiB", append(small, zstdRawFrame(w2g, []byte("hello"))...), 1 << 30, 1 << 31, int64(len(small))},
		// A single segment declaring 4 TiB of content needs a window
		// the decoder cannot have, whatever --max-dict says: no advice.
		{"single segment of 4 TiB, limit 8 TiB", []byte{0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 4, 0, 0, 0x29, 0, 0, 'h', 'e', 'l', 'l', 'o'}, 8 << 40, 4 << 40, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeZstd(c.data, c.maxDict)
			if c.need == 0 {
				if err != nil || !strings.HasSuffix(string(got), "hello") {
					t.Fatalf("got %q, %v", got, err)
				}
				return
			}
			var le *archive.LimitError
			var ae *archive.Error
			fixed := c.need > zstdMaxWindow
			limit := c.maxDict
			if fixed {
				limit = zstdMaxWindow
			}
			if !errors.As(err, &le) || le.Need != c.need || le.Limit != limit || le.Fixed != fixed ||
				!errors.As(err, &ae) || ae.Offset != c.at {
				t.Fatalf("error %v, want the window %d over the limit %d at offset %d", err, c.need, limit, c.at)
			}
			if advice := strings.Contains(err.Error(), "raise it with --max-dict"); advice == fixed {
				t.Errorf("error %q: advice %v where raising --max-dict helps %v", err, advice, !fixed)
			}
		})
	}
}

// zstdOffsetZero is a frame whose second block's one sequence has no
// literals and Offset_Value 3 while Repeated_Offset1 is 1: offset 0. The
// first block writes "a" and a match of offset 1 (Offset_Value 4), which
// makes Repeated_Offset1 1. Both blocks code their one sequence with RLE
// tables (literal length, offset and match length codes), so the bit
// streams hold only the offsets' extra bits under the end marker.
var zstdOffsetZero = []byte{
	0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, // magic, no content size, 1 KiB window
	0x44, 0x00, 0x00, // compressed block of 8 bytes
	0x08, 'a', // raw literals: "a"
	0x01, 0x54, 0x01, 0x02, 0x00, // one sequence; RLE codes: LL 1, OF 2, ML 0 (3)
	0x04,             // OF extra bits 00 → Offset_Value 4 (offset 1), end marker
	0x3D, 0x00, 0x00, // compressed block of 7 bytes, last
	0x00,                         // no literals
	0x01, 0x54, 0x00, 0x01, 0x00, // one sequence; RLE codes: LL 0, OF 1, ML 0
	0x03, // OF extra bit 1 → Offset_Value 3: Repeated_Offset1 - 1 = 0
}

// zstdOffsetOne is zstdOffsetZero made valid: the first block's literals
// are "ab" and its match has offset 2, so the second block's
// Repeated_Offset1 - 1 is 1. It decodes to "ababaaaa".
var zstdOffsetOne = []byte{
	0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00,
	0x4C, 0x00, 0x00, // compressed block of 9 bytes
	0x10, 'a', 'b', // raw literals: "ab"
	0x01, 0x54, 0x02, 0x02, 0x00, // LL 2, OF 2, ML 0
	0x05, // OF extra bits 01 → Offset_Value 5 (offset 2)
	0x3D, 0x00, 0x00,
	0x00,
	0x01, 0x54, 0x00, 0x01, 0x00,
	0x03,
}

// A sequence of offset 0 is corrupt data (zstd's format description and
// zstd since 1.5.6); klauspost/compress turns it into offset 1.
func TestZstdOffsetZero(t *testing.T) {
	if got, err := decodeZstd(zstdOffsetOne, 0); err != nil || string(got) != "ababaaaa" {
		t.Fatalf("valid frame: %q, %v", got, err)
	}
	got, err := decodeZstd(zstdOffsetZero, 0)
	var ae *archive.Error
	if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset != 17 || !strings.Contains(err.Error(), "offset 0") {
		t.Fatalf("frame with offset 0: %q, %v; want a format error at offset 17 (the block)", got, err)
	}
	// The same as a file: the error names the archive and the entry.
	_, _, err = extractOne(t, "off0.zst", zstdOffsetZero)
	if !errors.As(err, &ae) || ae.Archive != "off0.zst" || ae.Entry != "off0" || ae.Offset != 17 {
		t.Fatalf("extracting: %v", err)
	}
	// Behind a block of no sequences whose count takes two bytes (80 00,
	// as zstd's golden zeroSeq_2B.zst has it), which the check follows.
	zeroSeq2B := []byte{0x24, 0x00, 0x00, 0x08, 'a', 0x80, 0x00}
	withZero := append(append(bytes.Clone(zstdOffsetZero[:6]), zeroSeq2B...), zstdOffsetZero[6:]...)
	if _, err = decodeZstd(withZero, 0); !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset != 17+int64(len(zeroSeq2B)) {
		t.Fatalf("after a block of no sequences: %v", err)
	}
	// The first of two is reported, and the check stops there.
	twice := append(bytes.Clone(zstdOffsetZero), zstdOffsetZero...)
	if _, err = decodeZstd(twice, 0); !errors.As(err, &ae) || ae.Offset != 17 {
		t.Fatalf("two frames with offset 0: %v", err)
	}
	// Behind more than a chunk, which the check reads on its goroutine:
	// random bytes behind 64 KiB of text, which make the first block a
	// compressed one (a file starting with a raw block of the largest
	// size goes to the own decoder, with no check beside it).
	pad := bytes.Repeat([]byte("text, "), 2*zstdCheckChunk/6)
	r := rand.New(rand.NewPCG(5, 6))
	for i := 64 << 10; i < len(pad); i++ {
		pad[i] = byte(r.Uint32())
	}
	big := append(zstdOf(t, pad), zstdOffsetZero...)
	if len(big) < zstdCheckChunk {
		t.Fatalf("padding compressed to %d bytes", len(big))
	}
	if _, err = decodeZstd(big, 0); !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset != int64(len(big)-len(zstdOffsetZero)+17) {
		t.Fatalf("after %d bytes: %v", len(big)-len(zstdOffsetZero), err)
	}
}

// A frame with a content checksum is not decoded a second time: the
// decoder's checksum verifies what it wrote. zstdOffsetZero with a
// checksum over the decoder's reading of its offset 0 (as 1: seven "a")
// decodes to that content; with the checksum of other content (what an
// encoder meant by an offset it wrote wrongly) it is a checksum error.
func TestZstdOffsetZeroChecksummed(t *testing.T) {
	withSum := func(content []byte) []byte {
		f := bytes.Clone(zstdOffsetZero)
		f[4] |= 0x04 // Content_Checksum_flag
		sum := zstdOf(t, content, zstd.WithEncoderCRC(true))
		return append(f, sum[len(sum)-4:]...)
	}
	if got, err := decodeZstd(withSum([]byte("aaaaaaa")), 0); err != nil || string(got) != "aaaaaaa" {
		t.Fatalf("checksum over the decoder's reading: %q, %v", got, err)
	}
	if got, err := decodeZstd(withSum([]byte("aaaabbb")), 0); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("checksum over other content: %q, %v; want a checksum error", got, err)
	}
	// The check passes over such a frame to the next: an offset 0 in a
	// frame without a checksum behind it is found, at its offset.
	first := withSum([]byte("aaaaaaa"))
	_, err := decodeZstd(append(bytes.Clone(first), zstdOffsetZero...), 0)
	var ae *archive.Error
	if !errors.Is(err, archive.ErrFormat) || !strings.Contains(err.Error(), "offset 0") || !errors.As(err, &ae) || ae.Offset != int64(len(first))+17 {
		t.Fatalf("offset 0 behind a checksummed frame: %v; want a format error at offset %d", err, len(first)+17)
	}
}

// The frame and block headers of a checksummed stream are walked on the
// decoder's side, however small the pieces the decoder reads its frame
// header in: no copy goes to a checking goroutine, which never starts.
func TestZstdCheckChecksummedInline(t *testing.T) {
	data := zstdSamples(t)["text"]
	r := rand.New(rand.NewPCG(7, 8))
	for range 600 << 10 {
		data = append(data, byte(r.Uint32()))
	}
	comp := zstdOf(t, data, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	if len(comp) < 2*zstdCheckChunk {
		t.Fatalf("compressed to %d bytes, want more than two chunks", len(comp))
	}
	d, _, err := NewDecoder(Zstd, bytes.NewReader(comp), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := io.ReadAll(d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, %v", len(got), err)
	}
	if chk := d.(*zstdDecoder).chk; chk.done != nil || cap(chk.pending) > 0 {
		t.Errorf("the check started its goroutine (%v) or kept %d bytes for it", chk.done != nil, cap(chk.pending))
	}
}

// zstdSamples returns data that exercises the encoders' table modes:
// text of few and of many words, runs, random bytes, and all mixed.
func zstdSamples(t testing.TB) map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog while garc reads zstd frames and checks every sequence offset")
	var text, many, mixed bytes.Buffer
	for text.Len() < 200<<10 {
		text.WriteString(words[r.IntN(len(words))])
		text.WriteByte(" \n\t,"[r.IntN(4)])
	}
	for many.Len() < 200<<10 {
		n := r.IntN(12) + 1
		for range n {
			many.WriteByte(byte('a' + r.IntN(26)))
		}
		many.WriteString(strings.Repeat(" ", r.IntN(9)))
	}
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	runs := make([]byte, 0, 150<<10)
	for len(runs) < 150<<10 {
		runs = append(runs, bytes.Repeat([]byte{byte(r.IntN(3))}, r.IntN(40)+1)...)
	}
	for i := range 40 {
		switch i % 4 {
		case 0:
			mixed.Write(text.Bytes()[i*1000 : i*1000+2500])
		case 1:
			mixed.Write(random[i*1000 : i*1000+1500])
		case 2:
			mixed.Write(runs[i*1000 : i*1000+2000])
		default:
			mixed.Write(many.Bytes()[i*1000 : i*1000+3500])
		}
	}
	mixed.Write(testenv.GoBinary(t, "gofmt", 60<<10))
	return map[string][]byte{"text": text.Bytes(), "words": many.Bytes(), "random": random, "runs": runs, "mixed": mixed.Bytes()}
}

// The check follows the streams real encoders write (without a content
// checksum, as then it decodes every block) through to their end —
// every table mode, repeated tables and offsets, long windows, several
// frames — and finds nothing in them: a block it cannot read through
// exactly would end the checking early.
func TestZstdCheckFollowsEncoders(t *testing.T) {
	samples := zstdSamples(t)
	type enc struct {
		name string
		slow bool // run on the mixed sample only
		run  func([]byte) []byte
	}
	var encs []enc
	for _, args := range [][]string{{"--fast=5"}, {"-1"}, {"-3"}, {"-9"}, {"-19"}, {"--long=27", "-12"}} {
		encs = append(encs, enc{"zstd " + strings.Join(args, " "), args[0] == "-9" || args[0] == "-19" || args[0] == "--long=27", func(p []byte) []byte {
			return tool(t, p, "zstd", append([]string{"-c", "-q", "-T1", "--no-progress", "--no-check"}, args...)...)
		}})
	}
	for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		encs = append(encs, enc{"klauspost " + l.String(), l >= zstd.SpeedBetterCompression, func(p []byte) []byte {
			return zstdOf(t, p, zstd.WithEncoderLevel(l), zstd.WithEncoderCRC(false))
		}})
	}
	for _, e := range encs {
		for name, data := range samples {
			if e.slow && name != "mixed" {
				continue
			}
			comp := e.run(data)
			if name == "text" { // two frames
				comp = append(comp, e.run(data[:50<<10])...)
				data = append(data, data[:50<<10]...)
			}
			c := newZstdCheck(nil, archive.DefaultMaxDict)
			c.feed(comp)
			if c.err != nil || c.state != zstdMagic || len(c.buf) != 0 || c.skip != 0 {
				t.Errorf("%s, %s: the check stopped in state %d (%d bytes pending, %d to skip): %v", e.name, name, c.state, len(c.buf), c.skip, c.err)
				continue
			}
			if got, err := decodeZstd(comp, 0); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s, %s: decoded %d bytes, %v", e.name, name, len(got), err)
			}
		}
	}
}

// Damaged streams end in an error or in data, never in a panic of the
// check, and closing a decoder read only in part ends its goroutine.
func TestZstdCheckDamage(t *testing.T) {
	before := runtime.NumGoroutine()
	data := zstdSamples(t)["mixed"]
	// Without a checksum: the check decodes every block, past the first
	// chunk on its goroutine.
	comp := zstdOf(t, data, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderCRC(false))
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		bad := bytes.Clone(comp)
		for range 1 + r.IntN(3) {
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		}
		decodeZstd(bad, 0)
	}
	d, _, err := NewDecoder(Zstd, bytes.NewReader(comp), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, d, int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	testenv.CheckGoroutines(t, before)
}

// BenchmarkZstdCheck is the check alone on 32 MiB of mixed data made by
// zstd -3 --no-check (a frame whose blocks it decodes), to compare with
// BenchmarkExtractZstd (the decoder with it).
func BenchmarkZstdCheck(b *testing.B) {
	comp := tool(b, testenv.MixedData(b, 32<<20), "zstd", "-c", "-q", "-3", "-T1", "--no-check")
	b.SetBytes(32 << 20)
	cpu := testenv.StartCPU()
	for b.Loop() {
		c := newZstdCheck(nil, archive.DefaultMaxDict)
		c.feed(comp)
		if c.err != nil || c.state != zstdMagic {
			b.Fatal(c.state, c.err)
		}
	}
	cpu.Report(b, 32<<20)
}

// BenchmarkExtractZstd extracts 32 MiB of mixed data made by zstd -3, as
// `garc x` does.
func BenchmarkExtractZstd(b *testing.B) {
	comp := tool(b, testenv.MixedData(b, 32<<20), "zstd", "-c", "-q", "-3", "-T1")
	buf := make([]byte, 256<<10)
	b.SetBytes(32 << 20)
	cpu := testenv.StartCPU()
	for b.Loop() {
		extractBuffer(b, comp, Zstd, buf)
	}
	cpu.Report(b, 32<<20)
}

// FuzzZstdCheck feeds the offset check hostile frames whole and a byte at
// a time: it must not panic, and both ways must reach the same verdict at
// the same offset.
func FuzzZstdCheck(f *testing.F) {
	f.Add(zstdOf(f, []byte("fuzz fuzz fuzz fuzz"), zstd.WithEncoderLevel(zstd.SpeedBetterCompression)))
	f.Add(zstdRawFrame(0x00, []byte("raw")))
	f.Add(zstdOf(f, bytes.Repeat([]byte("0123456789abcdef"), 300)))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := newZstdCheck(nil, archive.DefaultMaxDict)
		whole.feed(data)
		bytewise := newZstdCheck(nil, archive.DefaultMaxDict)
		for i := range data {
			bytewise.feed(data[i : i+1])
		}
		if (whole.err == nil) != (bytewise.err == nil) || whole.state != bytewise.state {
			t.Fatalf("whole: %v %v; a byte at a time: %v %v", whole.state, whole.err, bytewise.state, bytewise.err)
		}
		if whole.err != nil && whole.err.Error() != bytewise.err.Error() {
			t.Fatalf("whole: %v; a byte at a time: %v", whole.err, bytewise.err)
		}
	})
}

// zstdRunsData is data whose zstd file is mostly RLE blocks: MiBs of
// zeros and of 0xFF with a little text and a short pattern between.
func zstdRunsData() []byte {
	var b []byte
	for i := range 3 {
		b = append(b, make([]byte, (1+i)<<20)...)
		b = append(b, "a little text between the runs, "...)
		b = append(b, bytes.Repeat([]byte{0xFF}, 300<<10)...)
		b = append(b, bytes.Repeat([]byte{0, 0, 0, byte(i)}, 5000)...)
	}
	return b
}

// TestZstdRunsDecoder: a zstd file of mostly RLE blocks, or of mostly
// raw blocks in its first zstdRawLook bytes (random bytes), is decoded by
// the own decoder (zstdRunsDecoder), others by klauspost's (random bytes
// of a block or two, then text); both give the data, and the own decoder
// refuses a window above the limit as the other does.
func TestZstdRunsDecoder(t *testing.T) {
	runs := zstdRunsData()
	mixed := testenv.MixedData(t, 1<<20)
	random := make([]byte, 2<<20)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	randomText := append(bytes.Clone(random[:100<<10]), mixed...)                      // a first block of 100 KiB of random bytes and text
	randomThenText := append(bytes.Clone(random[:300<<10]), bytes.Repeat(mixed, 2)...) // two raw blocks, then compressed ones
	for _, c := range []struct {
		name string
		data []byte
		comp []byte
		own  bool
	}{
		{"runs, zstd -3", runs, tool(t, runs, "zstd", "-c", "-q", "-3"), true},
		{"runs, zstd -19", runs, tool(t, runs, "zstd", "-c", "-q", "-19"), true},
		{"mixed, zstd -3", mixed, tool(t, mixed, "zstd", "-c", "-q", "-3"), false},
		{"random, zstd -3", random, tool(t, random, "zstd", "-c", "-q", "-3"), true},
		{"random then text, zstd -3", randomText, tool(t, randomText, "zstd", "-c", "-q", "-3"), false},
		{"300 KiB of random then text, zstd -3", randomThenText, tool(t, randomThenText, "zstd", "-c", "-q", "-3"), false},
		{"1.5 MiB of random, less than the look ahead", random[:3<<19], tool(t, random[:3<<19], "zstd", "-c", "-q", "-3"), true},
		{"tiny", []byte("tiny"), tool(t, []byte("tiny"), "zstd", "-c", "-q"), false},
	} {
		d, _, err := NewDecoder(Zstd, bytes.NewReader(c.comp), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, own := d.(*zstdRunsDecoder); own != c.own {
			t.Errorf("%s: decoder %T", c.name, d)
		}
		got, err := io.ReadAll(d)
		d.Close()
		if err != nil || !bytes.Equal(got, c.data) {
			t.Errorf("%s: %d bytes, %v; want %d", c.name, len(got), err, len(c.data))
		}
		if _, err := d.Read(make([]byte, 1)); err == nil {
			t.Errorf("%s: read after Close", c.name)
		}
	}
	// Cut within the look ahead: an error at the end of the file.
	cut := tool(t, random, "zstd", "-c", "-q", "-3")[:1<<20+20]
	_, err := decodeZstd(cut, 0)
	var ae *archive.Error
	if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ae) || ae.Offset != int64(len(cut)) {
		t.Fatalf("random cut at %d: %v", len(cut), err)
	}
	comp := tool(t, runs, "zstd", "-c", "-q", "-3") // a window of 2 MiB or more
	_, err = decodeZstd(comp, 1<<20)
	var le *archive.LimitError
	if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &le) || le.Need < 2<<20 || le.Limit != 1<<20 {
		t.Fatalf("window above the limit: %v", err)
	}
	bad := bytes.Clone(comp)
	bad[len(bad)-1] ^= 1 // the content checksum
	if _, err := decodeZstd(bad, 0); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("checksum: %v", err)
	}
}
