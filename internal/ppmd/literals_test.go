package ppmd

import (
	"bytes"
	"errors"
	"testing"
)

// decodeAllSymbols decodes symbols with DecodeSymbol until an error.
func decodeAllSymbols(t *testing.T, input []byte) ([]byte, error) {
	t.Helper()
	m := NewModel()
	if err := m.Init(8, 1<<20); err != nil {
		t.Fatal(err)
	}
	var d RARDecoder
	if err := d.Init(m, bytes.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		c, err := d.DecodeSymbol()
		if err != nil {
			return out, err
		}
		out = append(out, byte(c))
	}
}

// decodeAllLiterals decodes the same symbols with DecodeLiterals in chunks
// of the given size, putting the escape symbols back into the output.
func decodeAllLiterals(t *testing.T, input []byte, chunk int, esc byte) ([]byte, error) {
	t.Helper()
	m := NewModel()
	if err := m.Init(8, 1<<20); err != nil {
		t.Fatal(err)
	}
	var d RARDecoder
	if err := d.Init(m, bytes.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	var out []byte
	buf := make([]byte, chunk)
	for {
		n, escaped, err := d.DecodeLiterals(buf, esc)
		for _, c := range buf[:n] {
			if c == esc {
				t.Fatalf("escape byte %#x stored", esc)
			}
		}
		out = append(out, buf[:n]...)
		if err != nil {
			if escaped {
				t.Fatal("escaped together with an error")
			}
			return out, err
		}
		if escaped {
			out = append(out, esc)
		} else if n != chunk {
			t.Fatalf("%d bytes without escape or error, want %d", n, chunk)
		}
	}
}

func TestDecodeLiteralsMatchesDecodeSymbol(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		input := randomData(8<<10, seed)
		want, wantErr := decodeAllSymbols(t, input)
		if len(want) < 20 {
			t.Fatalf("seed %d: only %d symbols decoded", seed, len(want))
		}
		for _, chunk := range []int{1, 3, 64, 1 << 16} {
			for _, esc := range []byte{0, 2, 0x41, 0xFF} {
				got, err := decodeAllLiterals(t, input, chunk, esc)
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d chunk %d esc %#x: output differs (%d vs %d bytes)", seed, chunk, esc, len(got), len(want))
				}
				var ce, wce *CorruptInputError
				if (err == nil) != (wantErr == nil) || err != nil && (!errors.As(err, &ce) || !errors.As(wantErr, &wce) || *ce != *wce) {
					t.Fatalf("seed %d chunk %d: error %v, want %v", seed, chunk, err, wantErr)
				}
			}
		}
	}
}

func TestDecodeLiteralsState(t *testing.T) {
	var d RARDecoder
	if _, _, err := d.DecodeLiterals(make([]byte, 4), 2); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("DecodeLiterals before Init: %v", err)
	}
	m := NewModel()
	if err := m.Init(6, 1<<16); err != nil {
		t.Fatal(err)
	}
	if err := d.Init(m, bytes.NewReader(randomData(64, 1))); err != nil {
		t.Fatal(err)
	}
	if n, esc, err := d.DecodeLiterals(nil, 2); n != 0 || esc || err != nil {
		t.Fatalf("empty dst: %d %v %v", n, esc, err)
	}

	m.minContext = m.size - 2 // a record running off the arena
	if _, _, err := d.DecodeLiterals(make([]byte, 4), 2); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("broken model: %v, want ErrCorrupt", err)
	}
	if _, _, err := d.DecodeLiterals(make([]byte, 4), 2); !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("after an error: %v, want ErrNotInitialized", err)
	}
}

// TestReader7zTruncatedChunks cuts 7z PPMd streams short and checks that
// every read size gives the same bytes before the same error: the loop of
// decodeSymbols drops the symbol decoded with the input's failure, where
// the read size decides which symbol that is.
func TestReader7zTruncatedChunks(t *testing.T) {
	runs := bytes.Repeat([]byte{0}, 200000)
	runs = append(runs, textData(50000)...)
	for _, c := range []struct {
		name string
		data []byte
	}{{"mixed", mixedData(200000)}, {"runs", runs}} {
		packed := encode7z(t, c.data, 6, 1<<20, false)
		for _, cut := range []int{len(packed) / 3, len(packed) - 7} {
			var want []byte
			var wantErr error
			for i, chunk := range []int{1, 13, 4096, 1 << 20} {
				d, err := NewReader7z(bytes.NewReader(packed[:cut]), 6, 1<<20, int64(len(c.data)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := readChunks(d, chunk)
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("%s cut %d chunk %d: %v, want ErrTruncated", c.name, cut, chunk, err)
				}
				if !bytes.Equal(got, c.data[:len(got)]) {
					t.Fatalf("%s cut %d chunk %d: output is not the input's start", c.name, cut, chunk)
				}
				if i == 0 {
					want, wantErr = got, err
					continue
				}
				if len(got) != len(want) || err.Error() != wantErr.Error() {
					t.Errorf("%s cut %d chunk %d: %d bytes, %v; chunk 1: %d bytes, %v", c.name, cut, chunk, len(got), err, len(want), wantErr)
				}
			}
		}
	}
}
