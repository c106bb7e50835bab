package deflate

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// TestAdaptiveWalks checks the adaptive walks of levels 3 and 4: on a
// list of numbers, where a walk finds its match among the first
// candidates, the walks are cut after the first chunks, and that costs
// no size; the gzip writer's chain settings never cut.
func TestAdaptiveWalks(t *testing.T) {
	var b strings.Builder
	for i := 1_000_000; b.Len() < 600_000; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	data := []byte(b.String())
	for _, level := range []int{3, 4} {
		size := func(stale int) (int, bool) {
			var out bytes.Buffer
			w, err := NewWriter(&out, level)
			if err != nil {
				t.Fatal(err)
			}
			w.p.stale = stale
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := inflate(t, out.Bytes()); !bytes.Equal(got, data) {
				t.Fatalf("level %d, stale %d: round trip differs", level, stale)
			}
			return out.Len(), w.ch.cut
		}
		cutSize, cut := size(levels[level].stale)
		if !cut {
			t.Errorf("level %d: the walks over numbers are not cut", level)
		}
		fullSize, _ := size(0)
		if cutSize > fullSize+fullSize/200 {
			t.Errorf("level %d: %d bytes with cut walks, %d without", level, cutSize, fullSize)
		}
	}
	w, err := NewWriterChain(io.Discard, Chain{Depth: 128, Lazy: 16, Good: 8, Nice: 128})
	if err != nil {
		t.Fatal(err)
	}
	if w.p.stale != 0 {
		t.Errorf("NewWriterChain: stale %d, want 0", w.p.stale)
	}
}
