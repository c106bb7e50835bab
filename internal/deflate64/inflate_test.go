package deflate64

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// testData returns named inputs: random, text-like, repetitive with long
// matches and far distances, and real binary code.
func testData(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewSource(1))
	m := map[string][]byte{}
	m["empty"] = nil
	m["one"] = []byte{'x'}
	random := make([]byte, 300<<10)
	rng.Read(random)
	m["random"] = random
	words := strings.Fields("the quick brown fox jumps over a lazy dog while archive decoders inflate blocks of huffman codes")
	var text bytes.Buffer
	for text.Len() < 1<<20 {
		text.WriteString(words[rng.Intn(len(words))])
		text.WriteByte(" \n"[rng.Intn(2)])
	}
	m["text"] = text.Bytes()
	// Long runs (matches far longer than 258) and repeats 40-60 KiB back.
	var rep bytes.Buffer
	block := make([]byte, 50<<10)
	rng.Read(block)
	for i := 0; i < 8; i++ {
		rep.Write(block)
		rep.Write(bytes.Repeat([]byte{byte(i)}, 70000+i))
		rep.Write(block[:1000+rng.Intn(5000)])
	}
	m["repeats"] = rep.Bytes()
	m["binary"] = testenv.GoBinary(t, "gofmt", 2<<20)
	return m
}

func flateCompress(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func inflateAll(r io.Reader, deflate64 bool) ([]byte, error) {
	return io.ReadAll(New(r, deflate64))
}

// TestPlainDeflate decodes compress/flate output at every level, with
// whole, 1-byte and odd-sized input reads.
func TestPlainDeflate(t *testing.T) {
	for name, data := range testData(t) {
		for _, level := range []int{flate.HuffmanOnly, flate.NoCompression, 1, 5, 9} {
			comp := flateCompress(t, data, level)
			got, err := inflateAll(bytes.NewReader(comp), false)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s level %d: err %v, %d of %d bytes, first difference at %d", name, level, err, len(got), len(data), firstDiff(got, data))
			}
			if len(data) > 400<<10 && level != 5 {
				continue
			}
			got, err = inflateAll(iotest.OneByteReader(bytes.NewReader(comp)), false)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s level %d, 1-byte input: err %v", name, level, err)
			}
			got, err = io.ReadAll(iotest.OneByteReader(New(iotest.HalfReader(bytes.NewReader(comp)), false)))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s level %d, 1-byte output: err %v", name, level, err)
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestDeflate64ModeReadsDeflate: a Deflate stream that uses neither length
// code 285 nor distance codes 30/31 decodes the same in Deflate64 mode.
func TestDeflate64ModeReadsDeflate(t *testing.T) {
	data := testData(t)["text"]
	comp := flateCompress(t, data, flate.HuffmanOnly)
	got, err := inflateAll(bytes.NewReader(comp), true)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("err %v", err)
	}
}

func need7zz(t testing.TB) string { return testenv.SevenZip(t) }

// zipDeflate64 compresses data with 7-Zip into a zip archive using method
// Deflate64 and returns the raw compressed stream of the single member.
func zipDeflate64(t testing.TB, data []byte, level string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(need7zz(t), "a", "-tzip", "-mm=Deflate64", "-mx="+level, "-bd", "a.zip", "f")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, out)
	}
	z, err := os.ReadFile(filepath.Join(dir, "a.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if len(z) < 30 || binary.LittleEndian.Uint32(z) != 0x04034b50 {
		t.Fatal("no zip local header")
	}
	method := binary.LittleEndian.Uint16(z[8:])
	csize := int(binary.LittleEndian.Uint32(z[18:]))
	start := 30 + int(binary.LittleEndian.Uint16(z[26:])) + int(binary.LittleEndian.Uint16(z[28:]))
	if method != 9 || start+csize > len(z) {
		t.Fatalf("unexpected zip member: method %d, size %d", method, csize)
	}
	return z[start : start+csize]
}

func TestDeflate64Against7zz(t *testing.T) {
	need7zz(t)
	for name, data := range testData(t) {
		if len(data) < 100 || name == "random" { // 7-Zip stores these uncompressed
			continue
		}
		for _, level := range []string{"1", "9"} {
			if level == "9" && name != "repeats" && name != "mixed" {
				continue // slow to make, and -mx=1 covers the same codes
			}
			comp := zipDeflate64(t, data, level)
			got, err := inflateAll(bytes.NewReader(comp), true)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s -mx=%s: err %v, %d of %d bytes, first difference at %d", name, level, err, len(got), len(data), firstDiff(got, data))
			}
			if name == "repeats" {
				// The fixture must use what only Deflate64 has, or
				// this test proves nothing: plain mode must reject it.
				if _, err := inflateAll(bytes.NewReader(comp), false); err == nil {
					t.Errorf("repeats -mx=%s: plain Deflate accepted a Deflate64 stream", level)
				}
			}
		}
	}
}

// TestCorpusDeflate64 decodes the solid Deflate64 folder of py7zr's
// deflate64.7z (its packed stream starts right after the 32-byte signature
// header) and compares it with 7zz's extraction of the members in order.
func TestCorpusDeflate64(t *testing.T) {
	exe := need7zz(t)
	path := filepath.Join(testenv.CorpusRoot(t), "files", "py7zr", "data__deflate64.7z")
	arc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command(exe, "l", "-slt", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, line := range strings.Split(string(list), "\n") {
		name, ok := strings.CutPrefix(line, "Path = ")
		if !ok || strings.HasSuffix(name, ".7z") {
			continue
		}
		out, err := exec.Command(exe, "x", "-so", path, name).Output()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, out...)
	}
	got, err := inflateAll(bytes.NewReader(arc[32:]), true)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("err %v, %d of %d bytes, first difference at %d", err, len(got), len(want), firstDiff(got, want))
	}
	t.Logf("%d bytes", len(got))
}

func TestCorrupt(t *testing.T) {
	data := testData(t)["text"][:100000]
	comp := flateCompress(t, data, 6)
	for _, n := range []int{0, 1, 2, 10, len(comp) / 2, len(comp) - 1} {
		_, err := inflateAll(bytes.NewReader(comp[:n]), false)
		var ce *CorruptInputError
		if !errors.Is(err, archive.ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &ce) || ce.Offset != int64(n) {
			t.Errorf("truncated to %d: err = %v, want a CorruptInputError at offset %d", n, err, n)
		}
	}
	tooFar := flateDistanceTooFar()
	cases := []struct {
		name     string
		in       []byte
		min, max int64
	}{
		{"block type 3", []byte{0x07}, 0, 0},
		{"stored length", []byte{0x01, 0x05, 0x00, 0x05, 0x00}, 1, 5},
		{"distance too far", tooFar, 1, int64(len(tooFar))},
		{"incomplete lengths", []byte{0x05, 0xE0, 0xFF}, 0, 3},
	}
	for _, tc := range cases {
		_, err := inflateAll(bytes.NewReader(tc.in), false)
		var ce *CorruptInputError
		if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ce) || ce.Offset < tc.min || ce.Offset > tc.max {
			t.Errorf("%s: err = %v, want a CorruptInputError wrapping ErrFormat at offset %d..%d", tc.name, err, tc.min, tc.max)
		}
	}
	boom := errors.New("boom")
	_, err := inflateAll(io.MultiReader(bytes.NewReader(comp[:100]), iotest.ErrReader(boom)), false)
	if !errors.Is(err, boom) {
		t.Errorf("reader error: got %v", err)
	}
	d := New(bytes.NewReader(comp), false)
	d.Close()
	if _, err := d.Read(make([]byte, 10)); err == nil {
		t.Error("read after Close succeeded")
	}
}

// flateDistanceTooFar is a fixed-Huffman block whose first symbol is a
// match: length 3 (code 257, 7 bits 0000001), distance code 0 (5 bits).
func flateDistanceTooFar() []byte {
	var bits uint64
	n := uint(0)
	put := func(v uint64, k uint) { bits |= v << n; n += k }
	put(1, 1) // final
	put(1, 2) // fixed
	// Huffman codes are sent most significant bit first.
	put(reverse(0b0000001, 7), 7)
	put(0, 5)
	put(0, 7) // end of block
	var out []byte
	for i := uint(0); i < n; i += 8 {
		out = append(out, byte(bits>>i))
	}
	return out
}

func reverse(v uint64, n uint) uint64 {
	var r uint64
	for i := uint(0); i < n; i++ {
		r = r<<1 | v&1
		v >>= 1
	}
	return r
}

func TestReset(t *testing.T) {
	m := testData(t)
	a, b := flateCompress(t, m["text"], 6), flateCompress(t, m["random"], 1)
	d := New(bytes.NewReader(a), false)
	if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, m["text"]) {
		t.Fatal("first stream", err)
	}
	d.Reset(bytes.NewReader(b))
	if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, m["random"]) {
		t.Fatal("second stream", err)
	}
	rc := NewReader(bytes.NewReader(nil))
	if _, ok := rc.(*Decompressor); !ok {
		t.Fatal("NewReader does not return a *Decompressor")
	}
	src := bytes.NewReader(a)
	buf := make([]byte, 4096)
	allocs := testing.AllocsPerRun(5, func() {
		src.Reset(a)
		d.Reset(src)
		for {
			if _, err := d.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per stream after Reset", allocs)
	}
}

func FuzzInflate(f *testing.F) {
	f.Add(flateCompress(f, []byte("hello hello hello hello"), 9), false)
	f.Add(flateCompress(f, bytes.Repeat([]byte("ab"), 1000), 1), true)
	f.Add([]byte{0x07}, false)
	// Seed with the start of a real Deflate64 stream from the corpus.
	if root, ok := corpus.Root(); ok {
		if arc, err := os.ReadFile(filepath.Join(root, "files", "py7zr", "data__deflate64.7z")); err == nil && len(arc) > 32+4096 {
			f.Add(arc[32:32+4096], true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, d64 bool) {
		got, err := io.ReadAll(io.LimitReader(New(bytes.NewReader(data), d64), 1<<24))
		var ce *CorruptInputError
		if err != nil && (!errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) || ce.Offset < 0 || ce.Offset > int64(len(data))) {
			t.Fatalf("error %v (%T): want a CorruptInputError within the %d input bytes", err, err, len(data))
		}
		if d64 {
			return
		}
		// Whatever the standard library accepts must decode the same.
		want, werr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), 1<<24))
		if werr == nil && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("compress/flate decodes %d bytes, we gave %d, err %v", len(want), len(got), err)
		}
	})
}

func BenchmarkInflate(b *testing.B) {
	data := testData(b)
	for _, name := range []string{"mixed", "text", "binary"} {
		in, ok := data[name]
		if !ok {
			continue
		}
		comp := flateCompress(b, in, 6)
		b.Run(name+"/ours", func(b *testing.B) { benchInflate(b, in, comp, false) })
		b.Run(name+"/stdlib", func(b *testing.B) {
			src := bytes.NewReader(comp)
			r := flate.NewReader(src)
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				src.Reset(comp)
				r.(flate.Resetter).Reset(src, nil)
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}

func BenchmarkInflate64(b *testing.B) {
	need7zz(b)
	in := testenv.MixedData(b, 2000000)
	comp := zipDeflate64(b, in, "9")
	benchInflate(b, in, comp, true)
}

// TestAppendUnread checks that the input read past the end of a Deflate
// stream comes back whole, whatever the bit position of the stream's end
// and however the input arrives.
func TestAppendUnread(t *testing.T) {
	trailer := []byte("TRAILER: the bytes after the stream, 8+ long")
	for _, size := range []int{0, 1, 7, 100, 5000, 70000} {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression} {
			data := make([]byte, size)
			rand.New(rand.NewSource(int64(size))).Read(data[:size/2])
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			w.Write(data)
			w.Close()
			packed := append(b.Bytes(), trailer...)
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = bytes.NewReader(packed)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				d := New(r, false)
				got, err := io.ReadAll(d)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("size %d level %d: %d bytes, %v", size, level, len(got), err)
				}
				rest, _ := io.ReadAll(r)
				if unread := d.AppendUnread(nil); !bytes.Equal(append(unread, rest...), trailer) {
					t.Fatalf("size %d level %d one-byte %v: unread %q + rest %q, want %q", size, level, oneByte, unread, rest, trailer)
				}
			}
		}
	}
}

// readSizes records the size of each Read of its reader.
type readSizes struct {
	r     io.Reader
	sizes []int
}

func (r *readSizes) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.sizes = append(r.sizes, n)
	return n, err
}

// TestInputReads: the input is read 64 KiB at a time. zlib stores
// incompressible data (random bytes, compressed files in a .tar.gz or a
// ZIP) in blocks of about 16 KiB, which 16 KiB reads met with a system
// call each, four times those of 7-Zip's reader and a fifth of the CPU
// time of garc t of 100 MB of them. Truncated input still fails at the
// offset where it ends.
func TestInputReads(t *testing.T) {
	data := make([]byte, 1<<20+12345)
	rand.New(rand.NewSource(3)).Read(data)
	var packed bytes.Buffer
	w, err := flate.NewWriter(&packed, 6)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	rs := &readSizes{r: bytes.NewReader(packed.Bytes())}
	got, err := io.ReadAll(New(rs, false))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes, %v; want %d bytes", len(got), err, len(data))
	}
	if want := packed.Len()/(64<<10) + 2; len(rs.sizes) > want {
		t.Errorf("%d bytes read in %d reads, want at most %d (sizes %v)", packed.Len(), len(rs.sizes), want, rs.sizes)
	}
	for _, n := range []int{100, 16<<10 + 7, 3<<16 + 1, 200000, packed.Len() - 1} {
		_, err := io.ReadAll(New(iotest.HalfReader(bytes.NewReader(packed.Bytes()[:n])), false))
		var ce *CorruptInputError
		if !errors.As(err, &ce) || !ce.Truncated || ce.Offset != int64(n) {
			t.Errorf("truncated to %d: err = %v, want a truncation at offset %d", n, err, n)
		}
	}
}

// TestStoredIntoReadBuffer decodes stored blocks followed by matches
// into them, read with buffers of a byte, below, at and above directMin
// (from which stored bytes are copied straight into the reader's
// buffer), and more than a stored block and the window hold.
func TestStoredIntoReadBuffer(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var data []byte
	for i := range 6 {
		random := make([]byte, 20000+i*13000)
		rng.Read(random)
		data = append(data, random...)
		// Repeats reaching back into the stored bytes.
		for j := range 4 {
			from := len(data) - 19000 + j*4001
			data = append(data, data[from:from+300+i*50]...)
		}
	}
	for _, level := range []int{flate.NoCompression, 1, 9} {
		comp := flateCompress(t, data, level)
		for _, size := range []int{1, directMin - 1, directMin, directMin + 1, 70000, 1 << 20} {
			d := New(bytes.NewReader(comp), false)
			buf := make([]byte, size)
			var got []byte
			for {
				n, err := d.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("level %d, reads of %d: %v", level, size, err)
				}
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("level %d, reads of %d: %d of %d bytes, first difference at %d", level, size, len(got), len(data), firstDiff(got, data))
			}
		}
	}
}
