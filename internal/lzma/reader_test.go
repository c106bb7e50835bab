package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
)

func TestReaderVsUlikunitz(t *testing.T) {
	sizes := []int{0, 1, 2, 5, 100, 4096, 70000, 300000}
	props := [][3]int{{3, 0, 2}, {0, 0, 0}, {8, 4, 4}, {1, 3, 1}, {4, 0, 0}, {0, 2, 4}}
	for _, kind := range dataKinds {
		for _, n := range sizes {
			for pi, p := range props {
				if n > 70000 && pi > 1 {
					continue
				}
				data := testData(kind, n, int64(n+pi))
				for _, eos := range []bool{false, true} {
					name := fmt.Sprintf("%s/%d/lc%dlp%dpb%d/eos=%v", kind, n, p[0], p[1], p[2], eos)
					comp, pr := ulikunitzLZMA(t, data, p[0], p[1], p[2], 1<<16, eos)
					size := int64(len(data))
					if eos {
						size = -1
					}
					checkLZMA(t, name, comp, pr, size, data)
				}
			}
		}
	}
}

func checkLZMA(t *testing.T, name string, comp, props []byte, size int64, want []byte) {
	t.Helper()
	// WriteTo path.
	z, err := NewReader(bytes.NewReader(comp), props, size, 0)
	if err != nil {
		t.Fatalf("%s: NewReader: %v", name, err)
	}
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil {
		t.Fatalf("%s: WriteTo: %v", name, err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%s: WriteTo output differs (got %d bytes, want %d)", name, out.Len(), len(want))
	}
	// Read path with one-byte reads from a one-byte reader, after Reset.
	if err := z.Reset(iotest.OneByteReader(bytes.NewReader(comp)), props, size); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(iotest.OneByteReader(z))
	if err != nil {
		t.Fatalf("%s: Read: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: Read output differs", name)
	}
}

func TestReader2VsUlikunitz(t *testing.T) {
	sizes := []int{0, 1, 100, 70000, 1 << 20, 3<<20 + 5}
	props := [][3]int{{3, 0, 2}, {0, 4, 0}, {4, 0, 4}, {1, 1, 1}}
	for _, kind := range dataKinds {
		for _, n := range sizes {
			for pi, p := range props {
				if n > 70000 && pi > 0 || n > 1<<20 && kind != "text" && kind != "random" {
					continue
				}
				data := testData(kind, n, int64(n+pi))
				for _, dictCap := range []int{1 << 16, 1 << 20} {
					name := fmt.Sprintf("%s/%d/lc%dlp%dpb%d/dict%d", kind, n, p[0], p[1], p[2], dictCap)
					comp, pr := ulikunitzLZMA2(t, data, p[0], p[1], p[2], dictCap)
					checkLZMA2(t, name, comp, pr, int64(len(data)), data)
					checkLZMA2(t, name+"/nosize", comp, pr, -1, data)
				}
			}
		}
	}
}

func checkLZMA2(t *testing.T, name string, comp []byte, props byte, size int64, want []byte) {
	t.Helper()
	z, err := NewReader2(bytes.NewReader(comp), props, size, 0)
	if err != nil {
		t.Fatalf("%s: NewReader2: %v", name, err)
	}
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil {
		t.Fatalf("%s: WriteTo: %v", name, err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%s: WriteTo output differs (got %d bytes, want %d)", name, out.Len(), len(want))
	}
	if err := z.Reset(iotest.HalfReader(bytes.NewReader(comp)), props, size); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(iotest.OneByteReader(z))
	if err != nil {
		t.Fatalf("%s: Read: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: Read output differs", name)
	}
}

func TestReaderLimit(t *testing.T) {
	props := []byte{0x5d, 0, 0, 0, 4} // 64 MiB dictionary
	_, err := NewReader(bytes.NewReader(nil), props, -1, 1<<20)
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	// A small known size needs only a small window.
	if _, err := NewReader(bytes.NewReader(nil), props, 1000, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReader2(bytes.NewReader(nil), 30, -1, 1<<20); !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
}

func TestReaderCorrupt(t *testing.T) {
	data := testData("text", 50000, 3)
	comp, pr := ulikunitzLZMA(t, data, 3, 0, 2, 1<<16, true)
	for _, cut := range []int{0, 1, 4, 5, 100, len(comp) / 2, len(comp) - 1} {
		z, err := NewReader(bytes.NewReader(comp[:cut]), pr, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, z)
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("cut %d: got %v, want ErrFormat", cut, err)
		}
	}
	comp2, p2 := ulikunitzLZMA2(t, data, 3, 0, 2, 1<<16)
	for _, cut := range []int{0, 1, 3, 6, 100, len(comp2) / 2, len(comp2) - 1} {
		z, err := NewReader2(bytes.NewReader(comp2[:cut]), p2, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, z)
		if !errors.Is(err, archive.ErrFormat) {
			t.Errorf("lzma2 cut %d: got %v, want ErrFormat", cut, err)
		}
	}
	// Flipped bytes must give an error or wrong data, never a panic.
	for i := 5; i < len(comp); i += 97 {
		bad := append([]byte(nil), comp...)
		bad[i] ^= 0x55
		z, _ := NewReader(bytes.NewReader(bad), pr, -1, 0)
		io.Copy(io.Discard, z)
	}
}

// TestWindowMemory decodes streams of a few bytes that declare a 64 MiB
// dictionary and no size: the window grows with the output and the input
// buffer with the input, so they cost far less than the dictionary (the
// whole dictionary was allocated up front before, and 128 KiB of input
// buffer).
func TestWindowMemory(t *testing.T) {
	data := testData("text", 300, 1)
	comp, props := ulikunitzLZMA(t, data, 3, 0, 2, 1<<16, true)
	props[1], props[2], props[3], props[4] = 0, 0, 0, 4 // 64 MiB
	comp2, _ := ulikunitzLZMA2(t, data, 3, 0, 2, 1<<16)
	prop2 := lzma2PropFor(64 << 20)
	tests := []struct {
		name   string
		decode func() (io.Reader, error)
	}{
		{"LZMA", func() (io.Reader, error) { return NewReader(bytes.NewReader(comp), props, -1, 1<<30) }},
		{"LZMA2", func() (io.Reader, error) { return NewReader2(bytes.NewReader(comp2), prop2, -1, 1<<30) }},
	}
	for _, tt := range tests {
		const runs = 4
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			z, err := tt.decode()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := io.Copy(&out, z); err != nil || !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("%s: got %d bytes, %v", tt.name, out.Len(), err)
			}
		}
		runtime.ReadMemStats(&after)
		// The first window (16 KiB), the first input buffer (4 KiB)
		// and the model (16 KiB for lc+lp = 3).
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 64<<10 {
			t.Errorf("%s: %d bytes allocated per stream of %d bytes, want at most 64 KiB", tt.name, per, len(data))
		}
	}
}

// TestWindowGrowth decodes streams whose output runs through every step
// of the growing window and then wraps it, through WriteTo, through
// short reads, and again after Reset (the full window reused), and checks
// the window's length after each.
func TestWindowGrowth(t *testing.T) {
	text := testData("text", 2<<20+12345, 5)
	random := testData("random", 700000, 6)
	lo := LevelOptions(1)
	lo.DictSize = 1 << 20
	compText, propsText := encodeLZMA(t, text, lo)
	compText2, propText2 := encodeLZMA2(t, text, lo)
	compRandom2, propRandom2 := encodeLZMA2(t, random, lo)
	short := text[:300000]
	compEOS, propsEOS := ulikunitzLZMA(t, short, 3, 0, 2, 1<<18, true)
	lzma := func(comp, props []byte, size int64) func(*decoder) (io.Reader, *decoder, error) {
		return func(reuse *decoder) (io.Reader, *decoder, error) {
			z := &Reader{}
			if reuse != nil {
				z.d = *reuse
			}
			return z, &z.d, z.Reset(bytes.NewReader(comp), props, size)
		}
	}
	lzma2 := func(comp []byte, prop byte, size int64) func(*decoder) (io.Reader, *decoder, error) {
		return func(reuse *decoder) (io.Reader, *decoder, error) {
			z := &Reader2{}
			if reuse != nil {
				z.d = *reuse
			}
			return z, &z.d, z.Reset(bytes.NewReader(comp), prop, size)
		}
	}
	tests := []struct {
		name   string
		want   []byte
		window int // the full window, slack included
		// open returns a reader of the stream, built on the decoder
		// reuse when it is not nil, and its decoder.
		open func(reuse *decoder) (io.Reader, *decoder, error)
	}{
		{"LZMA/size", text, 1<<20 + windowSlack, lzma(compText, propsText, int64(len(text)))},
		{"LZMA/eos", short, 1<<18 + windowSlack, lzma(compEOS, propsEOS, -1)},
		{"LZMA2/nosize", text, 1<<20 + windowSlack, lzma2(compText2, propText2, -1)},
		{"LZMA2/stored/nosize", random, 1<<20 + windowSlack, lzma2(compRandom2, propRandom2, -1)},
		{"LZMA2/stored/size", random, 700000 + windowSlack, lzma2(compRandom2, propRandom2, int64(len(random)))},
	}
	for _, tt := range tests {
		for _, how := range []string{"WriteTo", "Read", "Reset"} {
			var reuse *decoder
			if how == "Reset" {
				// A decoder whose window has grown to its full length.
				z, d, err := tt.open(nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, z)
				reuse = d
			}
			z, d, err := tt.open(reuse)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case d.window != tt.window:
				t.Fatalf("%s/%s: full window %d, want %d", tt.name, how, d.window, tt.window)
			case reuse == nil && len(d.dict) > tt.window/windowGrowth:
				t.Errorf("%s/%s: window %d at the start, want a fraction of %d", tt.name, how, len(d.dict), tt.window)
			case reuse != nil && len(d.dict) != tt.window:
				t.Errorf("%s/%s: window %d after Reset, want the full %d", tt.name, how, len(d.dict), tt.window)
			}
			var out bytes.Buffer
			if how == "WriteTo" {
				_, err = z.(io.WriterTo).WriteTo(&out)
			} else {
				// Short reads: io.Copy cannot see WriteTo through the
				// wrapper.
				_, err = io.CopyBuffer(&out, struct{ io.Reader }{z}, make([]byte, 1000))
			}
			if err != nil || !bytes.Equal(out.Bytes(), tt.want) {
				t.Fatalf("%s/%s: %d bytes, %v", tt.name, how, out.Len(), err)
			}
			if len(d.dict) != tt.window {
				t.Errorf("%s/%s: window %d after %d bytes, want %d", tt.name, how, len(d.dict), len(tt.want), tt.window)
			}
		}
	}
}

// TestWindowGrowsOnceWhenSized: the window of a stream of known size goes
// from the first window to the full one in one step (no copies of the
// steps between, no old window held beside the new), that of a stream of
// unknown size by every step of windowGrowth.
func TestWindowGrowsOnceWhenSized(t *testing.T) {
	text := testData("text", 2<<20+12345, 5)
	lo := LevelOptions(1)
	lo.DictSize = 1 << 20
	comp, props := encodeLZMA(t, text, lo)
	comp2, prop2 := encodeLZMA2(t, text, lo)
	const full = 1<<20 + windowSlack
	for _, tc := range []struct {
		name  string
		open  func() (io.Reader, *decoder, error)
		steps []int
	}{
		{"LZMA/size", func() (io.Reader, *decoder, error) {
			z, err := NewReader(bytes.NewReader(comp), props, int64(len(text)), 1<<30)
			return z, &z.d, err
		}, []int{firstWindow, full}},
		{"LZMA2/size", func() (io.Reader, *decoder, error) {
			z, err := NewReader2(bytes.NewReader(comp2), prop2, int64(len(text)), 1<<30)
			return z, &z.d, err
		}, []int{firstWindow, full}},
		{"LZMA2/nosize", func() (io.Reader, *decoder, error) {
			z, err := NewReader2(bytes.NewReader(comp2), prop2, -1, 1<<30)
			return z, &z.d, err
		}, []int{firstWindow, full / windowGrowth, full}},
	} {
		z, d, err := tc.open()
		if err != nil {
			t.Fatal(err)
		}
		steps := []int{len(d.dict)}
		var out bytes.Buffer
		buf := make([]byte, 4000)
		for {
			n, err := z.Read(buf)
			out.Write(buf[:n])
			if l := len(d.dict); l != steps[len(steps)-1] {
				steps = append(steps, l)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out.Bytes(), text) {
			t.Fatalf("%s: %d bytes out", tc.name, out.Len())
		}
		if fmt.Sprint(steps) != fmt.Sprint(tc.steps) {
			t.Errorf("%s: window lengths %v, want %v", tc.name, steps, tc.steps)
		}
	}
}
