package bzip2

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// compressWithTool compresses data with the bzip2 command at level.
func compressWithTool(t testing.TB, data []byte, level int) []byte {
	t.Helper()
	tool := testenv.Tool(t, "bzip2")
	cmd := exec.Command(tool, "-c", fmt.Sprintf("-%d", level))
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bzip2 -%d: %v: %s", level, err, stderr.String())
	}
	return out.Bytes()
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func textBytes(n int, seed uint64) []byte {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven archivers decode blocks of text and numbers 42 1999 bzip2 huffman burrows wheeler")
	r := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// runBytes has runs of every length from 1 to ~1000 plus one very long
// run, to exercise the RLE1 stage and long RUNA/RUNB sequences.
func runBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, 0, n)
	b = append(b, bytes.Repeat([]byte{'z'}, min(n/3, 400000))...)
	for l := 1; len(b) < n; l++ {
		c := byte(r.IntN(4))
		for range l % 1024 {
			b = append(b, c)
		}
	}
	return b[:n]
}

func decodeOurs(t testing.TB, comp []byte, chunk int) ([]byte, error) {
	t.Helper()
	z := NewReader(bytes.NewReader(comp))
	if chunk == 0 {
		var out bytes.Buffer
		_, err := z.WriteTo(&out)
		return out.Bytes(), err
	}
	var out []byte
	buf := make([]byte, chunk)
	for {
		n, err := z.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func decodeStd(comp []byte) ([]byte, error) {
	return io.ReadAll(stdbzip2.NewReader(bytes.NewReader(comp)))
}

type namedInput struct {
	name string
	data []byte
}

func testInputs() []namedInput {
	return []namedInput{
		{"empty", nil},
		{"one-byte", []byte{'x'}},
		{"four-equal", []byte("aaaa")},
		{"five-equal", []byte("aaaaa")},
		{"random-1.3M", randomBytes(1300000, 1)},
		{"text-2M", textBytes(2000000, 2)},
		{"runs-1.5M", runBytes(1500000, 3)},
		{"zeros-3M", make([]byte, 3<<20)},
	}
}

func TestDifferentialBzip2Tool(t *testing.T) {
	for _, in := range testInputs() {
		for _, level := range []int{1, 9} {
			t.Run(fmt.Sprintf("%s/level%d", in.name, level), func(t *testing.T) {
				comp := compressWithTool(t, in.data, level)
				want, err := decodeStd(comp)
				if err != nil {
					t.Fatalf("compress/bzip2: %v", err)
				}
				if !bytes.Equal(want, in.data) {
					t.Fatalf("compress/bzip2 disagrees with the input")
				}
				for _, chunk := range []int{0, 1, 7, 257, 1000, 4096, 1 << 20} {
					if chunk == 1 && len(in.data) > 300000 {
						continue
					}
					got, err := decodeOurs(t, comp, chunk)
					if err != nil {
						t.Fatalf("chunk %d: %v", chunk, err)
					}
					if !bytes.Equal(got, in.data) {
						t.Fatalf("chunk %d: output differs (got %d bytes, want %d)", chunk, len(got), len(in.data))
					}
				}
			})
		}
	}
}

func TestConcatenatedStreams(t *testing.T) {
	a, b := textBytes(300000, 5), randomBytes(200000, 6)
	comp := append(compressWithTool(t, a, 1), compressWithTool(t, b, 9)...)
	comp = append(comp, compressWithTool(t, nil, 5)...)
	got, err := decodeOurs(t, comp, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]byte{}, a...), b...); !bytes.Equal(got, want) {
		t.Fatalf("output differs")
	}
	// Trailing bytes that are not a stream are an error, as for
	// compress/bzip2.
	if _, err := decodeOurs(t, append(comp, 0, 0, 0, 0), 0); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("trailing garbage: got %v, want ErrFormat", err)
	}
}

func TestReset(t *testing.T) {
	in1, in2 := runBytes(700000, 7), textBytes(100000, 8)
	c1, c2 := compressWithTool(t, in1, 9), compressWithTool(t, in2, 2)
	z := NewReader(bytes.NewReader(c1))
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), in1) {
		t.Fatalf("first stream: %v", err)
	}
	for range 2 {
		if err := z.Reset(bytes.NewReader(c2)); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if _, err := z.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), in2) {
			t.Fatalf("after Reset: %v", err)
		}
	}
	// Decoding again after Reset allocates nothing.
	allocs := testing.AllocsPerRun(3, func() {
		z.Reset(bytes.NewReader(c1))
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Fatalf("%v allocations per decode after Reset", allocs)
	}
}

// sevenZipPackedStream returns the packed data of a 7z archive holding one
// folder, written with an uncompressed header (-mhc=off): the bytes between
// the signature header and the header.
func sevenZipPackedStream(t *testing.T, arc []byte) []byte {
	t.Helper()
	if len(arc) < 32 || string(arc[:2]) != "7z" {
		t.Fatalf("not a 7z archive")
	}
	next := binary.LittleEndian.Uint64(arc[12:])
	if next > uint64(len(arc)-32) {
		t.Fatalf("bad next header offset")
	}
	return arc[32 : 32+next]
}

func TestSevenZipMultiThreaded(t *testing.T) {
	tool := testenv.SevenZip(t)
	dir := t.TempDir()
	data := append(textBytes(1000000, 9), runBytes(1000000, 10)...)
	src := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command(tool, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("7zz %v: %v\n%s", args, err, out)
		}
	}
	for _, mx := range []string{"-mx1", "-mx9"} {
		bz := filepath.Join(dir, "out"+mx+".bz2")
		run("a", "-tbzip2", "-mmt2", mx, bz, src)
		sz := filepath.Join(dir, "out"+mx+".7z")
		run("a", "-m0=BZip2", "-mmt2", "-mhc=off", mx, sz, src)
		bzData, err := os.ReadFile(bz)
		if err != nil {
			t.Fatal(err)
		}
		szData, err := os.ReadFile(sz)
		if err != nil {
			t.Fatal(err)
		}
		for name, comp := range map[string][]byte{"bz2": bzData, "7z": sevenZipPackedStream(t, szData)} {
			for _, chunk := range []int{0, 1000} {
				got, err := decodeOurs(t, comp, chunk)
				if err != nil {
					t.Fatalf("%s %s: %v", name, mx, err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("%s %s: output differs", name, mx)
				}
			}
			z := NewReader(bytes.NewReader(comp))
			if _, err := z.WriteTo(io.Discard); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d stream(s)", name, mx, z.streams)
		}
	}
}

// findBits returns the bit offset of the last occurrence of the 48-bit
// pattern in b, or -1.
func findBits(b []byte, pattern uint64) int {
	for off := len(b)*8 - 48; off >= 0; off-- {
		if readBitsAt(b, off, 48) == pattern {
			return off
		}
	}
	return -1
}

func readBitsAt(b []byte, off, n int) uint64 {
	var v uint64
	for i := range n {
		bit := b[(off+i)/8] >> (7 - (off+i)%8) & 1
		v = v<<1 | uint64(bit)
	}
	return v
}

func writeBitsAt(b []byte, off, n int, v uint64) {
	for i := range n {
		p := off + i
		bit := byte(v>>(n-1-i)) & 1
		b[p/8] = b[p/8]&^(0x80>>(p%8)) | bit<<(7-p%8)
	}
}

func TestCorruptCRC(t *testing.T) {
	data := textBytes(50000, 11)
	comp := compressWithTool(t, data, 9)

	block := bytes.Clone(comp)
	block[12] ^= 0x10 // stored block CRC: bytes 10..13
	if _, err := decodeOurs(t, block, 0); !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("block CRC: got %v, want ErrChecksum", err)
	}

	stream := bytes.Clone(comp)
	off := findBits(stream, endMagic)
	if off < 0 {
		t.Fatal("end of stream marker not found")
	}
	writeBitsAt(stream, off+48+5, 1, readBitsAt(stream, off+48+5, 1)^1)
	got, err := decodeOurs(t, stream, 0)
	if !errors.Is(err, archive.ErrChecksum) {
		t.Fatalf("stream CRC: got %v, want ErrChecksum", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("data before the stream CRC differs")
	}

	// A corrupted data byte fails the block CRC (or the format).
	body := bytes.Clone(comp)
	body[len(body)/2] ^= 0x01
	if _, err := decodeOurs(t, body, 0); !errors.Is(err, archive.ErrChecksum) && !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("corrupt body: got %v", err)
	}
}

// referenceCRC is a bitwise bzip2 CRC, independent of the package's tables.
func referenceCRC(p []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range p {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	return ^crc
}

// TestCRCTables checks crcUpdate against a bit-at-a-time CRC, at lengths
// folded by the tables and by hash/crc32 (around crcClmulMin and
// crcChunk), from a running state as the Reader folds its reads.
func TestCRCTables(t *testing.T) {
	data := randomBytes(3*crcChunk+100, 12)
	for n := 0; n <= len(data); n += 23 {
		if got, want := ^crcUpdate(^uint32(0), data[:n], new([crcChunk]byte)), referenceCRC(data[:n]); got != want {
			t.Fatalf("len %d: %08x, want %08x", n, got, want)
		}
		mid := n * 7 / 13
		if got, want := ^crcUpdate(crcUpdate(^uint32(0), data[:mid], new([crcChunk]byte)), data[mid:n], new([crcChunk]byte)), referenceCRC(data[:n]); got != want {
			t.Fatalf("len %d in two at %d: %08x, want %08x", n, mid, got, want)
		}
	}
}

// TestRandomisedBlock sets the randomised flag of a one-block stream whose
// input has no runs of four, and checks the output against an independent
// model: the bytes at the table's positions have their low bit flipped,
// then the RLE1 stage applies to the result.
func TestRandomisedBlock(t *testing.T) {
	data := make([]byte, 60000)
	r := rand.New(rand.NewPCG(13, 13))
	for i := range data {
		data[i] = byte('a' + 2*r.IntN(8)) // even letters: flips never make runs longer than pairs
		if i >= 1 && data[i] == data[i-1] {
			data[i] = 'z'
		}
	}
	comp := compressWithTool(t, data, 9)

	// Model: flip the low bit at the randomised positions.
	flipped := bytes.Clone(data)
	gap, idx := 0, 0
	for i := range flipped {
		if gap == 0 {
			gap = int(randomGapsForTest[idx])
			idx = (idx + 1) % 512
		}
		gap--
		if gap == 1 {
			flipped[i] ^= 1
		}
	}
	// RLE1 stage over the flipped bytes.
	var want []byte
	run, last := 0, -1
	for _, b := range flipped {
		if run == 4 {
			want = append(want, bytes.Repeat([]byte{byte(last)}, int(b))...)
			run = 0
			continue
		}
		if int(b) == last {
			run++
		} else {
			last, run = int(b), 1
		}
		want = append(want, b)
	}

	mod := bytes.Clone(comp)
	mod[14] |= 0x80 // randomised bit follows the block magic and CRC
	crc := referenceCRC(want)
	binary.BigEndian.PutUint32(mod[10:], crc)
	off := findBits(mod, endMagic)
	writeBitsAt(mod, off+48, 32, uint64(crc))
	got, err := decodeOurs(t, mod, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("randomised output differs")
	}
	if bytes.Equal(got, data) {
		t.Fatalf("randomisation had no effect")
	}
}

// randomGapsForTest spells out the start of the randomisation table
// independently of randgaps.go (enough for the 60000-byte test: 60000
// bytes need about 110 entries of average 550).
var randomGapsForTest = func() [512]uint16 {
	var t [512]uint16
	head := []uint16{619, 720, 127, 481, 931, 816, 813, 233, 566, 247}
	copy(t[:], randomGaps[:])
	for i, v := range head {
		if t[i] != v {
			panic("randomGaps does not start with the format's values")
		}
	}
	return t
}()

func TestTruncatedAndHostile(t *testing.T) {
	comp := compressWithTool(t, textBytes(30000, 14), 9)
	for _, n := range []int{0, 1, 3, 4, 10, 14, 20, 50, 100, len(comp) / 2, len(comp) - 1} {
		if _, err := decodeOurs(t, comp[:n], 0); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("truncated to %d: got %v, want ErrFormat", n, err)
		}
	}
	// Every single-bit flip in the headers must fail cleanly or agree with
	// compress/bzip2.
	for bit := 0; bit < 8*min(len(comp), 120); bit++ {
		mod := bytes.Clone(comp)
		mod[bit/8] ^= 0x80 >> (bit % 8)
		checkAgainstStd(t, mod)
	}
}

// checkAgainstStd requires that ours and compress/bzip2 both fail or both
// produce the same bytes (compress/bzip2 rejects randomised blocks, which
// we decode). Output is capped to keep hostile expansions cheap.
func checkAgainstStd(t *testing.T, comp []byte) {
	t.Helper()
	const limit = 64 << 20
	got, errOurs := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(comp)), limit))
	want, errStd := io.ReadAll(io.LimitReader(stdbzip2.NewReader(bytes.NewReader(comp)), limit))
	if errStd != nil && strings.Contains(errStd.Error(), "randomized") {
		return
	}
	if errOurs != nil && !errors.Is(errOurs, archive.ErrFormat) && !errors.Is(errOurs, archive.ErrChecksum) {
		t.Fatalf("error wraps neither ErrFormat nor ErrChecksum: %v", errOurs)
	}
	if (errOurs == nil) == (errStd == nil) && (errOurs != nil || bytes.Equal(got, want)) {
		return
	}
	// compress/bzip2 departs from the reference decoder on some incomplete
	// Huffman codes (it skips "superfluous" code bits). On disagreement the
	// reference bzip2 command decides.
	ref, errRef := referenceDecode(comp)
	if errRef == errNoReference {
		t.Fatalf("ours: %v, compress/bzip2: %v (no reference bzip2 to decide)", errOurs, errStd)
	}
	if (errOurs == nil) != (errRef == nil) {
		t.Fatalf("ours: %v, reference bzip2: %v (compress/bzip2: %v)", errOurs, errRef, errStd)
	}
	if errOurs == nil && !bytes.Equal(got, ref[:min(len(ref), limit)]) {
		t.Fatalf("outputs differ from the reference bzip2")
	}
}

var errNoReference = errors.New("bzip2 command not found")

// referenceDecode runs bzip2 -dc, the reference decoder.
func referenceDecode(comp []byte) ([]byte, error) {
	tool, err := exec.LookPath("bzip2")
	if err != nil {
		return nil, errNoReference
	}
	cmd := exec.Command(tool, "-dcq")
	cmd.Stdin = bytes.NewReader(comp)
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	return out.Bytes(), err
}

func FuzzDecode(f *testing.F) {
	if _, err := exec.LookPath("bzip2"); err == nil {
		for i, in := range [][]byte{nil, []byte("x"), []byte("aaaaaaaaaaaaaaab"), textBytes(3000, 15), runBytes(5000, 16)} {
			f.Add(compressWithTool(f, in, 1+i%9))
		}
	}
	f.Add([]byte("BZh9"))
	f.Add([]byte("BZh91AY&SY"))
	f.Fuzz(func(t *testing.T, comp []byte) {
		checkAgainstStd(t, comp)
		// The concurrent mode gives the same bytes and the same
		// success or failure.
		const limit = 64 << 20
		one, err1 := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(comp)), limit))
		three, err3 := io.ReadAll(io.LimitReader(NewReaderThreads(bytes.NewReader(comp), 3), limit))
		if (err1 == nil) != (err3 == nil) || !bytes.Equal(one, three) {
			t.Fatalf("threads 1: %d bytes, %v; threads 3: %d bytes, %v", len(one), err1, len(three), err3)
		}
		// After a look into the start (the opener's), which may leave the
		// first block decoded (first.go), a Reader gives the same.
		for _, threads := range []int{1, 2} {
			look := NewReader(bytes.NewReader(comp))
			io.ReadFull(look, make([]byte, 1024))
			look.Close()
			again, err := io.ReadAll(io.LimitReader(NewReaderThreads(bytes.NewReader(comp), threads), limit))
			if (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() || !bytes.Equal(again, one) {
				t.Fatalf("after a look, threads %d: %d bytes, %v; fresh: %d bytes, %v", threads, len(again), err, len(one), err1)
			}
		}
		// Errors are checksum mismatches or located format errors.
		var ce *CorruptInputError
		switch {
		case err1 == nil, errors.Is(err1, archive.ErrChecksum):
		case !errors.As(err1, &ce) || !errors.Is(err1, archive.ErrFormat) || ce.Offset < 0 || ce.Offset > int64(len(comp)):
			t.Fatalf("error %v (%T): want a CorruptInputError within the %d input bytes", err1, err1, len(comp))
		}
	})
}

func TestMoveToFront(t *testing.T) {
	for k := range 256 {
		var mtf, want [256]byte
		for i := range mtf {
			mtf[i] = byte(255 - i)
		}
		want[0] = mtf[k]
		copy(want[1:], mtf[:k])
		copy(want[k+1:], mtf[k+1:])
		if b := moveToFront(&mtf, uint(k)); b != want[0] || mtf != want {
			t.Fatalf("k=%d: wrong result", k)
		}
	}
}

// TestRandomReadSizes reads with sizes that vary call by call, so that
// calls end at every point of the RLE1 stage (inside a run of four,
// between a run and its count, inside a repeat).
func TestRandomReadSizes(t *testing.T) {
	data := append(runBytes(600000, 17), textBytes(100000, 18)...)
	comp := compressWithTool(t, data, 3)
	r := rand.New(rand.NewPCG(19, 19))
	z := NewReader(bytes.NewReader(comp))
	var got []byte
	buf := make([]byte, 4096)
	for {
		k := 1 + r.IntN(600)
		if r.IntN(8) == 0 {
			k = 1 + r.IntN(len(buf))
		}
		n, err := z.Read(buf[:k])
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("output differs")
	}
}

// bitWriter builds hand-made streams for the hostile-input tests.
type bitWriter struct {
	b []byte
	n int // bits written
}

func (w *bitWriter) bits(v uint64, k int) {
	for i := k - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		w.b[len(w.b)-1] |= byte(v>>i&1) << (7 - w.n%8)
		w.n++
	}
}

// handBlock describes one block over the byte values 'a' and 'b'
// (alphabet RUNA, RUNB, MTF index 1, end of block), coded with two tables
// whose codes all have two bits: RUNA=00, RUNB=01, MTF1=10, EOB=11.
type handBlock struct {
	selectors int      // number of selectors written (all zero)
	symbols   []uint64 // 0..3
	origPtr   uint64
	output    []byte // expected output, for the CRCs
}

func (hb handBlock) stream() []byte {
	var w bitWriter
	w.bits('B'<<24|'Z'<<16|'h'<<8|'9', 32)
	w.bits(blockMagic, 48)
	crc := referenceCRC(hb.output)
	w.bits(uint64(crc), 32)
	w.bits(0, 1)
	w.bits(hb.origPtr, 24)
	w.bits(1<<(15-6), 16)           // range 0x60..0x6f used
	w.bits(1<<(15-1)|1<<(15-2), 16) // 'a' and 'b'
	w.bits(2, 3)
	w.bits(uint64(hb.selectors), 15)
	for range hb.selectors {
		w.bits(0, 1)
	}
	for range 2 {
		w.bits(2, 5) // start length 2, then a 0 bit per symbol: keep it
		for range 4 {
			w.bits(0, 1)
		}
	}
	for _, s := range hb.symbols {
		w.bits(s, 2)
	}
	w.bits(endMagic, 48)
	w.bits(uint64(crc), 32) // one block: combined CRC = block CRC
	return w.b
}

func TestHandMadeBlocks(t *testing.T) {
	// "abab": last column of the sorted rotations is "bbaa", origPtr 0 is
	// the rotation "abab". MTF over [a b]: b→1, b→run 1 (RUNA), a→1, a→RUNA.
	valid := handBlock{selectors: 1, symbols: []uint64{2, 0, 2, 0, 3}, origPtr: 0, output: []byte("abab")}
	got, err := decodeOurs(t, valid.stream(), 0)
	if err != nil || string(got) != "abab" {
		t.Fatalf("hand-made block: %q, %v", got, err)
	}
	checkAgainstStd(t, valid.stream())

	// More selectors than bzip2 keeps (18002): the excess is read and
	// ignored.
	many := valid
	many.selectors = 20000
	if got, err := decodeOurs(t, many.stream(), 0); err != nil || string(got) != "abab" {
		t.Fatalf("20000 selectors: %q, %v", got, err)
	}
	checkAgainstStd(t, many.stream())

	hostile := map[string]handBlock{
		"no selectors":      {selectors: 0, symbols: []uint64{2, 3}, output: []byte("b")},
		"huge run":          {selectors: 1, symbols: append(slicesRepeat(1, 25), 3), output: []byte("a")},
		"too few selectors": {selectors: 1, symbols: append(slicesRepeat(2, 60), 3), output: []byte("a")},
		"origPtr past end":  {selectors: 1, symbols: []uint64{2, 0, 2, 0, 3}, origPtr: 4, output: []byte("abab")},
	}
	for name, hb := range hostile {
		comp := hb.stream()
		if _, err := decodeOurs(t, comp, 0); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
		checkAgainstStd(t, comp)
	}
	// Input ending inside the symbols.
	comp := valid.stream()
	for n := len(comp) - 11; n < len(comp); n++ {
		if _, err := decodeOurs(t, comp[:n], 0); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("truncated to %d of %d: got %v, want ErrFormat", n, len(comp), err)
		}
	}
}

func slicesRepeat(v uint64, n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestHostileHeaders corrupts header fields of a real stream.
func TestHostileHeaders(t *testing.T) {
	comp := compressWithTool(t, []byte("hello, hello, hello, world"), 9)
	const hdr = 32 + 48 + 32 // bit offset of the randomised flag
	for name, mod := range map[string]func([]byte){
		"level 0":          func(b []byte) { b[3] = '0' },
		"not BZh":          func(b []byte) { b[2] = 'H' },
		"empty symbol map": func(b []byte) { writeBitsAt(b, hdr+1+24, 16, 0) },
		"origPtr":          func(b []byte) { writeBitsAt(b, hdr+1, 24, 1<<24-1) },
		"block magic":      func(b []byte) { b[4] ^= 0xff },
	} {
		bad := bytes.Clone(comp)
		mod(bad)
		if _, err := decodeOurs(t, bad, 0); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
		checkAgainstStd(t, bad)
	}
}

func TestThreads(t *testing.T) {
	data := append(append(textBytes(1200000, 20), randomBytes(700000, 21)...), runBytes(900000, 22)...)
	comp := append(compressWithTool(t, data, 1), compressWithTool(t, data[:300000], 9)...)
	want := append(bytes.Clone(data), data[:300000]...)
	for _, threads := range []int{0, 1, 2, 3, 8} {
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		for round := range 3 {
			var got bytes.Buffer
			var err error
			if round == 1 {
				// Small reads.
				buf := make([]byte, 999)
				for {
					var n int
					n, err = z.Read(buf)
					got.Write(buf[:n])
					if err != nil {
						break
					}
				}
				if err == io.EOF {
					err = nil
				}
			} else {
				_, err = z.WriteTo(&got)
			}
			if err != nil || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("threads %d round %d: %v", threads, round, err)
			}
			// Abandon a decode midway, then Reset while blocks are in
			// flight.
			z.Reset(bytes.NewReader(comp))
			if _, err := io.ReadFull(z, make([]byte, 150000)); err != nil {
				t.Fatal(err)
			}
			z.Reset(bytes.NewReader(comp))
		}
	}
	// A corrupt block in the middle: the blocks before it come out, then
	// the error.
	bad := bytes.Clone(comp)
	off := findBits(bad[:len(bad)/2], blockMagic)
	writeBitsAt(bad, off+48+3, 1, readBitsAt(bad, off+48+3, 1)^1) // its stored CRC
	for _, threads := range []int{1, 4} {
		got, err := io.ReadAll(NewReaderThreads(bytes.NewReader(bad), threads))
		if !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("threads %d: got %v, want ErrChecksum", threads, err)
		}
		if len(got) == 0 || !bytes.Equal(got, want[:len(got)]) {
			t.Fatalf("threads %d: %d bytes before the error, not a prefix of the data", threads, len(got))
		}
	}
}

// TestCloseGivesBuffersToNextReader: a Reader that looked into the start
// of a stream and was closed leaves its block buffers to the next Reader
// (the opener reads the first KiB of a .bz2 to find a tar inside, then
// opens the stream again), so the second allocates no block buffers, and
// a closed Reader reads no more until Reset.
func TestCloseGivesBuffersToNextReader(t *testing.T) {
	text := textBytes(300000, 71)
	comp := compressWithTool(t, text, 9)
	for _, threads := range []int{1, 2} {
		first := NewReaderThreads(bytes.NewReader(comp), 1)
		head := make([]byte, 1024)
		if _, err := io.ReadFull(first, head); err != nil {
			t.Fatal(err)
		}
		first.Close()
		if n, err := first.Read(head); n != 0 || !errors.Is(err, errClosed) {
			t.Fatalf("Read after Close: %d, %v", n, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		z := NewReaderThreads(bytes.NewReader(comp), threads)
		if _, err := io.ReadFull(z, head); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		// One block buffer at level 9 is about 6 MB; the parallel
		// reader's window is 1 MiB, and its second worker has one.
		limit := uint64(2<<20) + uint64(threads-1)*13<<20
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Fatalf("threads %d: %d bytes allocated after a closed Reader, want at most %d", threads, got, limit)
		}
		z.Close()
		z.Reset(bytes.NewReader(comp))
		if got, err := io.ReadAll(z); err != nil || !bytes.Equal(got, text) {
			t.Fatalf("threads %d: after Close and Reset: %d bytes, %v", threads, len(got), err)
		}
	}
}

// TestFirstBlockHead: reading the first KiB of a stream writes only the
// head of the first block's text (lazyHead bytes, no walk through the
// whole block: the opener's look for a tar inside), and the rest follows
// when it is read, whatever the read sizes, also when a run of four equal
// bytes and its count byte lie on either side of the head's end.
func TestFirstBlockHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for shift := -6; shift <= 6; shift++ {
		// Filler without two equal bytes in a row passes the RLE1
		// stage unchanged, so the run of z starts at lazyHead-4+shift
		// of the block's text.
		filler := make([]byte, lazyHead-4+shift)
		for i := range filler {
			b := byte(rng.IntN(255))
			if i > 0 && b >= filler[i-1] {
				b++
			}
			filler[i] = b
		}
		data := append(filler, bytes.Repeat([]byte("z"), 100)...)
		data = append(data, textBytes(200000, uint64(90+shift))...)
		comp := compressWithTool(t, data, 9)

		z := NewReader(bytes.NewReader(comp))
		head := make([]byte, 1024)
		if _, err := io.ReadFull(z, head); err != nil {
			t.Fatal(err)
		}
		if z.cur.walked != lazyHead || z.cur.n <= lazyHead {
			t.Fatalf("shift %d: %d of %d bytes of the first block written after reading 1 KiB", shift, z.cur.walked, z.cur.n)
		}
		got := append([]byte(nil), head...)
		buf := make([]byte, 4096)
		for i := 0; ; i++ {
			n, err := z.Read(buf[:1+i*37%len(buf)])
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("shift %d: %v", shift, err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("shift %d: %d bytes decoded, want %d (or different ones)", shift, len(got), len(data))
		}
	}
}
