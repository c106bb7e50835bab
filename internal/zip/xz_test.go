package zip

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
)

// TestXZCorpus runs the .xz units of ../shared/corpus-more through the
// method-95 decoder: good files decode to the listed content, bad ones
// fail with an error wrapping a sentinel. Units needing filters or checks
// we do not implement may fail with ErrUnsupported.
func TestXZCorpus(t *testing.T) {
	root := corpusMoreRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	var good, goodOK, bad, badOK int
	for i := range units {
		u := &units[i]
		if u.Format != "xz" {
			continue
		}
		data, err := os.ReadFile(u.Path(root))
		if err != nil {
			t.Fatal(err)
		}
		x := &xzReader{}
		x.reset(bufio.NewReader(bytes.NewReader(data)), archive.DefaultMaxDict)
		h := sha256.New()
		n, err := io.Copy(h, x)
		if err != nil && !wrapsSentinel(err) {
			t.Errorf("%s: error wraps no sentinel: %v", u.Unit, err)
		}
		switch {
		case u.Expect == "ok" && u.Expected != "" && u.GTNote == "":
			good++
			want, lerr := corpus.Listing(root, u.Expected)
			if lerr != nil || len(want) != 1 {
				t.Fatalf("%s: listing: %v", u.Unit, lerr)
			}
			if err != nil {
				t.Errorf("%s: %v", u.Unit, err)
			} else if n != want[0].Size || hex.EncodeToString(h.Sum(nil)) != want[0].SHA256 {
				t.Errorf("%s: %d bytes, want %d (or content differs)", u.Unit, n, want[0].Size)
			} else {
				goodOK++
			}
		case u.Expect == "error-corrupt":
			bad++
			if err != nil {
				badOK++
			} else {
				t.Errorf("%s: decoded without error", u.Unit)
			}
		}
	}
	t.Logf("xz good: %d/%d, bad refused: %d/%d", goodOK, good, badOK, bad)
}
