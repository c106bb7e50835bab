package deflate64

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"
)

// fixedBuiltAtInit records, during package initialisation (before any test
// runs), whether the fixed Huffman codes already existed.
var fixedBuiltAtInit = fixedCodes != [2]*[2]huffman{}

// modeValsBuiltAtInit records, likewise, whether the symbols' entry
// values already existed.
var modeValsBuiltAtInit = modeValsTab != nil

// TestModeValsLazy checks that the symbols' entry values are built by the
// first block, not at init (issue 27), and that a dynamic block decodes.
func TestModeValsLazy(t *testing.T) {
	if modeValsBuiltAtInit {
		t.Fatal("symbol entry values built at package initialisation")
	}
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("abcabd, dynamic block "), 50)
	w.Write(want)
	w.Close()
	got, err := io.ReadAll(New(&buf, false))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, %v; want %d", len(got), err, len(want))
	}
	if modeValsTab == nil {
		t.Fatal("symbol entry values not built after decoding")
	}
}

// TestFixedCodesLazy checks that the fixed codes (62 KB of tables) are
// built by the first fixed block, not at init, and then decode correctly.
func TestFixedCodesLazy(t *testing.T) {
	if fixedBuiltAtInit {
		t.Fatal("fixed Huffman codes built at package initialisation")
	}
	// One final fixed-code block holding "a" then end of block: header
	// bits 1 (final) and 01 (fixed), literal 'a' = 8-bit code 0x91, end of
	// block = 7-bit code 0.
	stream := []byte{0x4b, 0x04, 0x00}
	got, err := io.ReadAll(New(bytes.NewReader(stream), false))
	if err != nil || string(got) != "a" {
		t.Fatalf("got %q, %v; want \"a\"", got, err)
	}
	if fixedCodes[0] == nil {
		t.Fatal("fixed codes not built after decoding")
	}
}
