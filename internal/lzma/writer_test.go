package lzma

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	ulzma "github.com/ulikunitz/xz/lzma"
)

func encodeLZMA(t testing.TB, data []byte, o WriterOptions) ([]byte, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func encodeLZMA2(t testing.TB, data []byte, o WriterOptions) ([]byte, byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func decodeOurs(t testing.TB, comp, props []byte, size int64) []byte {
	t.Helper()
	z, err := NewReader(bytes.NewReader(comp), props, size, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out.Bytes()
}

func TestWriterRoundTrip(t *testing.T) {
	for _, level := range []int{1, 3, 5, 9} {
		for _, kind := range dataKinds {
			for _, n := range []int{0, 1, 2, 3, 17, 1000, 100000} {
				data := testData(kind, n, int64(n))
				o := LevelOptions(level)
				for _, eos := range []bool{false, true} {
					o.EOSMarker = eos
					name := fmt.Sprintf("mx%d/%s/%d/eos=%v", level, kind, n, eos)
					comp, props := encodeLZMA(t, data, o)
					size := int64(len(data))
					if eos {
						size = -1
					}
					got := decodeOurs(t, comp, props, size)
					if !bytes.Equal(got, data) {
						t.Fatalf("%s: round trip differs", name)
					}
					if n == 0 && !eos {
						continue // ulikunitz insists on reading past an empty stream
					}
					// ulikunitz decodes it (with the .lzma header).
					r, err := ulzma.NewReader(bytes.NewReader(wrapLZMAAlone(comp, props, map[bool]int64{false: int64(n), true: -1}[eos])))
					if err != nil {
						t.Fatalf("%s: ulikunitz: %v", name, err)
					}
					got, err = io.ReadAll(r)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("%s: ulikunitz decode: %v", name, err)
					}
				}
			}
		}
	}
}

func TestWriter2RoundTrip(t *testing.T) {
	for _, level := range []int{1, 5} {
		for _, kind := range dataKinds {
			for _, n := range []int{0, 1, 1000, 200000} {
				data := testData(kind, n, int64(n))
				o := LevelOptions(level)
				comp, prop := encodeLZMA2(t, data, o)
				name := fmt.Sprintf("mx%d/%s/%d", level, kind, n)
				z, err := NewReader2(bytes.NewReader(comp), prop, int64(len(data)), 0)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(z)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: decode: %v", name, err)
				}
				r, err := ulzma.Reader2Config{DictCap: 1 << 20}.NewReader2(bytes.NewReader(comp))
				if err != nil {
					t.Fatal(err)
				}
				got, err = io.ReadAll(r)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%s: ulikunitz decode: %v", name, err)
				}
			}
		}
	}
}
