package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMarkOfWebSwitch: --mark-of-web takes on or off (anything else is a
// usage error, exit 7) for x and e, and 7-Zip's -snz is accepted as
// --mark-of-web=on. Whether the stream is written is Windows' part
// (internal/extract's TestMarkOfWebExtracted, under Wine in the Windows
// lane); here, without alternate data streams, extraction is unchanged.
func TestMarkOfWebSwitch(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sample.7z"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"x", "--mark-of-web=off", sample, "-oa"},
		{"x", "--mark-of-web=on", sample, "-ob"},
		{"x", "-snz", sample, "-oc"},
		{"e", "-snz", sample, "-od"},
		{"e", "--mark-of-web=off", sample, "-oe"},
	} {
		garc(t, dir, "", args...).expect(t, 0, strings.Join(args, " "))
	}
	r := garc(t, dir, "", "x", "--mark-of-web=maybe", sample, "-of")
	r.expect(t, 7, "--mark-of-web=maybe")
	if !strings.Contains(r.stderr, `--mark-of-web must be on or off, not "maybe"`) {
		t.Errorf("stderr: %s", r.stderr)
	}
}
