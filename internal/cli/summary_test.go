package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/sevenzip"
)

// TestCreateSummary checks garc a's closing line names files, folders,
// content, input and output sizes in readable units, the ratio and the
// time (issue 12.9).
func TestCreateSummary(t *testing.T) {
	var b bytes.Buffer
	summary(&b, &sevenzip.WriteStats{Files: 3, Dirs: 1, BytesIn: 3 << 20, BytesOut: 1 << 20, UnpackedSize: 4 << 20}, 1500*time.Millisecond)
	want := "3 files, 1 folders (4.0 MiB): 3.0 MiB read, 1.0 MiB written (25.0 %) in 1.50 s\n"
	if b.String() != want {
		t.Fatalf("summary %q\nwant    %q", b.String(), want)
	}
}
