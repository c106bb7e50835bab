package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
	ulzma "github.com/ulikunitz/xz/lzma"
)

// TestWriterStreaming exercises the sliding window of the LZMA Writer
// (input much larger than the dictionary) with small writes.
func TestWriterStreaming(t *testing.T) {
	data := append(testData("text", 1<<20, 1), testData("mixed", 3<<19, 2)...)
	for _, level := range []int{1, 5} {
		o := LevelOptions(level)
		o.DictSize = 1 << 16
		var buf bytes.Buffer
		w, err := NewWriter(&buf, o)
		if err != nil {
			t.Fatal(err)
		}
		for p := data; len(p) > 0; {
			n := min(len(p), 100003)
			if _, err := w.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := decodeOurs(t, buf.Bytes(), w.Props(), int64(len(data)))
		if !bytes.Equal(got, data) {
			t.Fatalf("mx%d: streaming round trip differs", level)
		}
		// Reuse after Reset.
		var buf2 bytes.Buffer
		w.Reset(&buf2)
		w.Write(data[:1000])
		w.Close()
		if got := decodeOurs(t, buf2.Bytes(), w.Props(), 1000); !bytes.Equal(got, data[:1000]) {
			t.Fatal("round trip after Reset differs")
		}
	}
}

// TestWriter2Blocks checks block splitting, every chunk type, and that the
// output does not depend on the thread count.
func TestWriter2Blocks(t *testing.T) {
	// Text, then incompressible data (uncompressed chunks), then text
	// again (state reset after an uncompressed chunk).
	var data []byte
	data = append(data, testData("random", 100000, 1)...)
	data = append(data, testData("text", 1500000, 2)...)
	data = append(data, testData("random", 200000, 3)...)
	data = append(data, testData("text", 300000, 4)...)
	var ref []byte
	for _, threads := range []int{1, 2, 3} {
		o := LevelOptions(3)
		o.BlockSize = 1 << 20
		o.Threads = threads
		comp, prop := encodeLZMA2(t, data, o)
		if ref == nil {
			ref = comp
			kinds := chunkKinds(comp)
			for _, k := range []byte{0x01, 0x02, 0xA0, 0x80} {
				if !kinds[k] {
					t.Errorf("no chunk with control %#x", k)
				}
			}
			// Later blocks keep the dictionary: the stream's first
			// chunk is its only dictionary reset.
			if n := dictResets(comp); n != 1 {
				t.Errorf("%d dictionary resets, want 1", n)
			}
		} else if !bytes.Equal(comp, ref) {
			t.Fatalf("threads=%d: output differs from threads=1", threads)
		}
		checkLZMA2(t, fmt.Sprint("threads", threads), comp, prop, int64(len(data)), data)
		r, err := ulzma.Reader2Config{DictCap: int(o.DictSize)}.NewReader2(bytes.NewReader(comp))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ulikunitz: %v", err)
		}
	}
}

// dictResets counts the chunks of an LZMA2 stream that reset the
// dictionary.
func dictResets(b []byte) int {
	n := 0
	for p := 0; p < len(b) && b[p] != 0; {
		c := b[p]
		if c == 1 || c >= 0xE0 {
			n++
		}
		if c < 0x80 {
			p += 3 + (int(b[p+1])<<8 | int(b[p+2])) + 1
			continue
		}
		p += 6 + (int(b[p+3])<<8 | int(b[p+4]))
		if c >= 0xC0 {
			p++
		}
	}
	return n
}

// chunkKinds returns the set of control bytes (LZMA chunks reduced to
// their reset bits) in an LZMA2 stream.
func chunkKinds(b []byte) map[byte]bool {
	m := map[byte]bool{}
	for p := 0; p < len(b) && b[p] != 0; {
		c := b[p]
		if c < 0x80 {
			m[c] = true
			p += 3 + (int(b[p+1])<<8 | int(b[p+2])) + 1
			continue
		}
		m[c&0xE0] = true
		p += 6 + (int(b[p+3])<<8 | int(b[p+4]))
		if c >= 0xC0 {
			p++
		}
	}
	return m
}

func TestLCLPPB(t *testing.T) {
	data := testData("mixed", 100000, 5)
	for _, p := range [][3]int{{0, 0, 0}, {8, 0, 0}, {0, 4, 4}, {3, 1, 2}, {4, 0, 4}} {
		for _, level := range []int{2, 6} {
			o := LevelOptions(level)
			o.LC, o.LP, o.PB = p[0], p[1], p[2]
			comp, props := encodeLZMA(t, data, o)
			if got := decodeOurs(t, comp, props, int64(len(data))); !bytes.Equal(got, data) {
				t.Fatalf("%v mx%d: round trip differs", p, level)
			}
			r, err := ulzma.NewReader(bytes.NewReader(wrapLZMAAlone(comp, props, int64(len(data)))))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%v mx%d: ulikunitz: %v", p, level, err)
			}
		}
	}
}

// TestSevenZipDecodesOurs has 7zz decode our LZMA (.lzma) and LZMA2 (.xz)
// streams.
func TestSevenZipDecodesOurs(t *testing.T) {
	testenv.SevenZip(t)
	dir := t.TempDir()
	for i, data := range [][]byte{testData("mixed", 400000, 9), {}, {'x'}, testData("random", 70000, 3)} {
		level := []int{1, 5, 9, 3}[i]
		o := LevelOptions(level)
		comp, props := encodeLZMA(t, data, o)
		f1 := filepath.Join(dir, fmt.Sprintf("a%d.lzma", i))
		os.WriteFile(f1, wrapLZMAAlone(comp, props, int64(len(data))), 0o644)
		o.BlockSize = 1 << 17
		comp2, prop := encodeLZMA2(t, data, o)
		f2 := filepath.Join(dir, fmt.Sprintf("a%d.xz", i))
		os.WriteFile(f2, wrapXZ(comp2, prop, int64(len(data))), 0o644)
		for _, f := range []string{f1, f2} {
			out, err := exec.Command("7zz", "x", "-so", f).Output()
			if err != nil {
				t.Fatalf("7zz x %s: %v", f, err)
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("7zz decoded %s (%d bytes) differently", f, len(data))
			}
		}
	}
}

func TestWriterOptionsErrors(t *testing.T) {
	for _, o := range []WriterOptions{
		{Level: 5, DictSize: 100},
		{Level: 5, LC: 9},
		{Level: 5, FastBytes: 300},
		{Level: 5, MatchFinder: "bt9"},
	} {
		if _, err := NewWriter(io.Discard, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := NewWriter2(io.Discard, WriterOptions{Level: 5, LC: 4, LP: 1}); err == nil {
		t.Error("lc+lp > 4 accepted for LZMA2")
	}
}

func TestDecodeAllocs(t *testing.T) {
	data := testData("text", 1<<20, 1)
	comp, prop := encodeLZMA2(t, data, LevelOptions(3))
	z, err := NewReader2(bytes.NewReader(comp), prop, int64(len(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(comp)
	allocs := testing.AllocsPerRun(5, func() {
		r.Reset(comp)
		z.Reset(r, prop, int64(len(data)))
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%.0f allocations per decode after Reset", allocs)
	}
}

// checkCorruptErr fails t unless err is nil or a CorruptInputError within
// the n bytes of input, wrapping archive.ErrFormat.
func checkCorruptErr(t *testing.T, err error, n int) {
	t.Helper()
	if err == nil {
		return
	}
	var ce *CorruptInputError
	if !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) || ce.Offset < 0 || ce.Offset > int64(n) {
		t.Fatalf("error %v (%T): want a CorruptInputError wrapping ErrFormat at an offset within the %d input bytes", err, err, n)
	}
}

func FuzzReader(f *testing.F) {
	data := testData("text", 3000, 1)
	comp, props := ulikunitzLZMA(f, data, 3, 0, 2, 1<<16, true)
	f.Add(append(props, comp...))
	comp, props = encodeLZMA(f, data, LevelOptions(5))
	f.Add(append(props, comp...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 5 {
			return
		}
		props := append([]byte(nil), b[:5]...)
		props[1], props[2], props[3], props[4] = 0, 0, 1, 0 // 64 KiB
		for _, size := range []int64{-1, 5000} {
			z, err := NewReader(bytes.NewReader(b[5:]), props, size, 1<<20)
			if err != nil {
				return
			}
			n, err := io.Copy(io.Discard, io.LimitReader(z, 1<<20))
			checkCorruptErr(t, err, len(b)-5)
			if size >= 0 && (err == nil && n != size || n > size) {
				t.Fatalf("got %d bytes (error %v), want %d", n, err, size)
			}
		}
	})
}

// fuzzMaxInput bounds the inputs of FuzzReader2. The fuzzing engine
// minimizes each input that finds new coverage before going on, for up
// to -fuzzminimizetime (a minute by default) and with a pass quadratic in
// the input's length: the seeds of 2.8 KB (grown to 7.4 KB by mutation)
// made every new input cost the whole minute, and a 10-minute run
// executed 396 inputs. Small inputs reach every path of the decoder: one
// LZMA chunk of a few bytes can unpack 2 MiB, enough to grow and wrap any
// window the target allows.
const fuzzMaxInput = 2 << 10

func FuzzReader2(f *testing.F) {
	// Seeds of a few hundred bytes (see fuzzMaxInput): text, then random
	// bytes, so that both literals and matches are coded.
	data := append(testData("text", 1000, 1), testData("random", 100, 1)...)
	comp, prop := ulikunitzLZMA2(f, data, 3, 0, 2, 1<<16)
	f.Add(append([]byte{prop}, comp...))
	comp, prop = encodeLZMA2(f, data, LevelOptions(5))
	f.Add(append([]byte{prop}, comp...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 1 || len(b) > fuzzMaxInput {
			return
		}
		z, err := NewReader2(bytes.NewReader(b[1:]), b[0]%20, -1, 1<<20)
		if err != nil {
			return
		}
		_, err = io.Copy(io.Discard, io.LimitReader(z, 1<<22))
		checkCorruptErr(t, err, len(b)-1)
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello hello hello world"), uint8(5))
	f.Add(testData("mixed", 5000, 1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, level uint8) {
		o := LevelOptions(int(level % 10))
		o.DictSize = 1 << 16
		comp, props := encodeLZMA(t, data, o)
		if got := decodeOurs(t, comp, props, int64(len(data))); !bytes.Equal(got, data) {
			t.Fatal("LZMA round trip differs")
		}
		o.BlockSize = 1 << 16
		comp2, prop := encodeLZMA2(t, data, o)
		z, err := NewReader2(bytes.NewReader(comp2), prop, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("LZMA2 round trip: %v", err)
		}
		// Two threads: parallel blocks and the parallel tree finder
		// give the same bytes.
		o.Threads = 2
		if comp3, _ := encodeLZMA2(t, data, o); !bytes.Equal(comp3, comp2) {
			t.Fatal("LZMA2 output depends on the thread count")
		}
	})
}

// TestDecode7zzStreams decodes LZMA streams from 7z archives and LZMA2
// streams from .xz files made by 7zz with various settings.
func TestDecode7zzStreams(t *testing.T) {
	testenv.SevenZip(t)
	dir := t.TempDir()
	data := testData("mixed", 300000, 11)
	in := filepath.Join(dir, "in.bin")
	os.WriteFile(in, data, 0o644)
	for i, m := range []string{"LZMA:x1", "LZMA:x5", "LZMA:x9:lc1:lp2:pb0", "LZMA:x5:eos", "LZMA:d4k:lc0", "LZMA2:x1", "LZMA2:x5", "LZMA2:x9:lc0:lp2:pb1", "7z:LZMA2:d64k:c128k"} {
		if m[:3] == "7z:" {
			// LZMA2 in a 7z archive, blocks compressed by two threads:
			// dictionary resets in the middle of the stream.
			f := filepath.Join(dir, fmt.Sprintf("t%d.7z", i))
			if out, err := exec.Command("7zz", "a", "-t7z", "-mhc=off", "-mmt2", "-m0="+m[3:], f, in).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", m, err, out)
			}
			b, _ := os.ReadFile(f)
			k := bytes.Index(b[32:], []byte{0x21, 0x21, 0x01})
			if k < 0 {
				t.Fatalf("%s: no LZMA2 coder in the header", m)
			}
			if n := dictResets(b[32:]); n < 2 {
				t.Fatalf("%s: %d dictionary resets, want several", m, n)
			}
			checkLZMA2(t, m, b[32:], b[32+k+3], int64(len(data)), data)
			continue
		}
		if m[:5] == "LZMA2" {
			f := filepath.Join(dir, fmt.Sprintf("t%d.xz", i))
			if out, err := exec.Command("7zz", "a", "-txz", "-m0="+m, f, in).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", m, err, out)
			}
			b, _ := os.ReadFile(f)
			raw, prop, err := parseXZ(b)
			if err != nil {
				t.Fatal(err)
			}
			checkLZMA2(t, m, raw, prop, int64(len(data)), data)
			continue
		}
		f := filepath.Join(dir, fmt.Sprintf("t%d.7z", i))
		if out, err := exec.Command("7zz", "a", "-t7z", "-mhc=off", "-m0="+m, f, in).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", m, err, out)
		}
		b, _ := os.ReadFile(f)
		// The coder record: flags 0x23, id 03 01 01, props size 5, props.
		k := bytes.Index(b[32:], []byte{0x23, 0x03, 0x01, 0x01, 0x05})
		if k < 0 {
			t.Fatalf("%s: no LZMA coder in the header", m)
		}
		props := b[32+k+5 : 32+k+10]
		z, err := NewReader(bytes.NewReader(b[32:]), props, int64(len(data)), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %v", m, err)
		}
	}
}

// TestWriter2BlocksKeepDictionary checks that a block's matches reach
// back into the previous block: random data repeated across a block
// boundary compresses to little more than one copy, for one and two
// threads (block-level and finder-level parallelism), at a tree level
// and a hash-chain level, and the stream decodes with ours and
// ulikunitz/xz.
func TestWriter2BlocksKeepDictionary(t *testing.T) {
	unit := testData("random", 200000, 7)
	var data []byte
	for i := 0; i < 4; i++ {
		data = append(data, unit...)
	}
	for _, level := range []int{3, 5} {
		for _, threads := range []int{1, 2} {
			o := LevelOptions(level)
			o.DictSize, o.BlockSize, o.Threads = 1<<20, 1<<17, threads
			comp, prop := encodeLZMA2(t, data, o)
			name := fmt.Sprintf("mx%d/threads=%d", level, threads)
			if len(comp) > len(unit)+len(unit)/20 {
				t.Errorf("%s: %d bytes for 4 copies of %d random bytes in %d blocks", name, len(comp), len(unit), len(data)>>17)
			}
			if n := dictResets(comp); n != 1 {
				t.Errorf("%s: %d dictionary resets", name, n)
			}
			checkLZMA2(t, name, comp, prop, int64(len(data)), data)
			r, err := ulzma.Reader2Config{DictCap: int(o.DictSize)}.NewReader2(bytes.NewReader(comp))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: ulikunitz: %v", name, err)
			}
			if _, err := exec.LookPath("7zz"); err == nil {
				f := filepath.Join(t.TempDir(), "keep.xz")
				os.WriteFile(f, wrapXZ(comp, prop, int64(len(data))), 0o644)
				if out, err := exec.Command("7zz", "t", f).CombinedOutput(); err != nil {
					t.Fatalf("%s: 7zz t: %v\n%s", name, err, out)
				}
			}
		}
	}
}

// TestWriterRenormalize makes the streaming Writer rebase its stored
// positions every few hundred KiB (as it does every GiB past the first)
// and checks that the output is byte-identical to a run without rebasing
// and decodes, for the hash-chain and binary-tree finders.
func TestWriterRenormalize(t *testing.T) {
	data := append(testData("text", 1<<20, 3), testData("mixed", 1<<20, 4)...)
	data = append(data, data[:1<<19]...)
	for _, level := range []int{1, 5} {
		o := LevelOptions(level)
		o.DictSize = 1 << 16
		ref, props := encodeLZMA(t, data, o)
		saved := normalizeAt
		normalizeAt = 3 << 17
		got, _ := encodeLZMA(t, data, o)
		normalizeAt = saved
		checkLZMA(t, fmt.Sprint("mx", level), got, props, int64(len(data)), data)
		if !bytes.Equal(got, ref) {
			t.Fatalf("mx%d: output with rebasing differs (%d vs %d bytes)", level, len(got), len(ref))
		}
	}
}
