package deflate

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// TestTablesBuiltOnFirstUse checks that the package's initialization
// leaves the length and distance code tables empty and that NewWriter
// builds them (issue 27: every garc process paid for them at start). The
// check runs in a fresh process of this test binary, where no other test
// has made a Writer yet.
func TestTablesBuiltOnFirstUse(t *testing.T) {
	if os.Getenv("GARC_DEFLATE_FRESH") == "1" {
		if lenCode[maxMatch] != 0 || distCodeOf[windowSize-1] != 0 || fixedLit[0] != 0 || fixedDistCode[31] != 0 {
			t.Fatal("the code tables were built before the first Writer")
		}
		if _, err := NewWriter(io.Discard, 5); err != nil {
			t.Fatal(err)
		}
		if fixedLit[0] != 8 || fixedDistCode[31] != 31 {
			t.Fatalf("after NewWriter: fixedLit[0] = %d, fixedDistCode[31] = %d, want 8 and 31", fixedLit[0], fixedDistCode[31])
		}
		if lenCode[maxMatch] != 28 || distCodeOf[windowSize-1] != 29 {
			t.Fatalf("after NewWriter: lenCode[258] = %d, distCodeOf[32767] = %d, want 28 and 29", lenCode[maxMatch], distCodeOf[windowSize-1])
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTablesBuiltOnFirstUse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GARC_DEFLATE_FRESH=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}
}
