package stream

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestGzipSizeAsPigz checks that gzip at -mx6, written in parallel blocks,
// is within 1 % of pigz -6's size on the mixed data (issue 26 point 7),
// and the same bytes with one thread and two.
func TestGzipSizeAsPigz(t *testing.T) {
	pigz := testenv.Tool(t, "pigz")
	data := testenv.MixedData(t, 4<<20)
	cmd := exec.Command(pigz, "-6", "-n", "-c")
	cmd.Stdin = bytes.NewReader(data)
	ref, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	one := compress(t, Gzip, data, WriterOptions{Level: 6, Threads: 1, Size: -1})
	two := compress(t, Gzip, data, WriterOptions{Level: 6, Threads: 2, Size: -1})
	if !bytes.Equal(one, two) {
		t.Error("gzip -mx6 differs between one thread and two")
	}
	if r := float64(len(one)) / float64(len(ref)); r > 1.01 {
		t.Errorf("gzip -mx6 is %d bytes, %.4f× pigz -6's %d", len(one), r, len(ref))
	}
}
