package xz

import (
	"bytes"
	"io"
	"os/exec"
	"testing"

	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/testenv"
)

// Writer's streams are read back by Reader and by the xz tool, for empty
// and non-empty input, and are the same for one and two threads.
func TestWriterRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 3, 70000, 3 << 20} {
		data := sample(n, uint64(n))
		var outs [][]byte
		for _, threads := range []int{1, 2} {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, lzma.WriterOptions{Level: 1, Threads: threads, BlockSize: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(NewReader(bytes.NewReader(buf.Bytes()), 1<<30))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
			}
			outs = append(outs, buf.Bytes())
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%d bytes: output depends on the threads", n)
		}
		xz := testenv.Tool(t, "xz")
		cmd := exec.Command(xz, "-dc")
		cmd.Stdin = bytes.NewReader(outs[0])
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: xz -dc: %v", n, err)
		}
	}
}
