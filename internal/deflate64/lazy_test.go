package deflate64

import (
	"bytes"
	"io"
	"testing"
)

// fixedBuiltAtInit records, during package initialisation (before any test
// runs), whether the fixed Huffman codes already existed.
var fixedBuiltAtInit = fixedCodes != [2]*[2]huffman{}

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
