package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --max-dict bounds the .xz and .lzma encoders of a: -mx6's dictionary
// (xz's 8 MiB for .xz, 7-Zip's 64 MiB for .lzma) is halved to fit 64
// MiB (.xz once: 4 MiB), with a notice, and a limit below the smallest encoder is exit 8
// with nothing left behind.
func TestCreateMaxDictEncoder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/a.txt": strings.Repeat("max-dict ", 20000)})
	for _, name := range []string{"o.tar.xz", "o.txt.xz", "o.tar.lzma"} {
		in := "d"
		if name == "o.txt.xz" {
			in = "d/a.txt"
		}
		r := garc(t, dir, "", "a", "-mx6", "--max-dict", "64m", name, in)
		r.expect(t, ExitOK, "a -mx6 --max-dict 64m "+name)
		dict := "of 4096 KiB instead of 8192 KiB" // half of xz's fits
		if strings.HasSuffix(name, ".lzma") {
			dict = "instead of 65536 KiB"
		}
		if !strings.Contains(r.stderr, dict) {
			t.Errorf("%s: no notice of the smaller dictionary:\n%s", name, r.stderr)
		}
		garc(t, dir, "", "t", name).expect(t, ExitOK, "t "+name)
		small := "small-" + name
		garc(t, dir, "", "a", "-mx6", "--max-dict", "2m", small, in).expect(t, ExitLimit, "a --max-dict 2m "+name)
		if _, err := os.Stat(filepath.Join(dir, small)); err == nil {
			t.Errorf("%s left behind", small)
		}
	}
}
