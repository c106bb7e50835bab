package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
