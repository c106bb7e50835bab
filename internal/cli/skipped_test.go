package cli

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTar writes a tar archive of hdrs (regular files get content
// "data") to dir/name.
func writeTar(t *testing.T, dir, name string, hdrs []*tar.Header) string {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range hdrs {
		if h.Typeflag == tar.TypeReg {
			h.Size = 4
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte("data"))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTarDevicesSkippedWithWarning: x of a tar holding a FIFO and a
// character device creates neither, warns once naming them and exits 1
// (issue 16); many such entries are named up to a limit and counted.
func TestTarDevicesSkippedWithWarning(t *testing.T) {
	dir := t.TempDir()
	arc := writeTar(t, dir, "dev.tar", []*tar.Header{
		{Name: "pipe", Mode: 0o644, Typeflag: tar.TypeFifo},
		{Name: "null", Mode: 0o666, Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3},
		{Name: "f.txt", Mode: 0o644, Typeflag: tar.TypeReg},
	})
	out := filepath.Join(dir, "out")
	r := garc(t, dir, "", "x", arc, "-o", out)
	r.expect(t, ExitWarning, "x")
	if n := strings.Count(r.stderr, "garc: "); n != 1 ||
		!strings.Contains(r.stderr, "skipped 2 device or FIFO entries (garc does not create them): pipe, null\n") ||
		strings.Contains(r.stderr, "Everything is Ok") {
		t.Errorf("stderr %q", r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "f.txt")); err != nil || string(b) != "data" {
		t.Errorf("f.txt: %q, %v", b, err)
	}
	for _, n := range []string{"pipe", "null"} {
		if _, err := os.Lstat(filepath.Join(out, n)); err == nil {
			t.Errorf("%s was created", n)
		}
	}

	// A selection that leaves the devices out: no warning.
	r = garc(t, dir, "", "x", arc, "-o", filepath.Join(dir, "sel"), "f.txt")
	r.expect(t, ExitOK, "x f.txt")

	var hdrs []*tar.Header
	for i := range 25 {
		hdrs = append(hdrs, &tar.Header{Name: fmt.Sprintf("p%02d", i), Mode: 0o644, Typeflag: tar.TypeFifo})
	}
	arc = writeTar(t, dir, "many.tar", hdrs)
	r = garc(t, dir, "", "x", arc, "-o", filepath.Join(dir, "many"))
	r.expect(t, ExitWarning, "x many")
	if n := strings.Count(r.stderr, "garc: "); n != 1 ||
		!strings.Contains(r.stderr, "skipped 25 device or FIFO entries (garc does not create them): p00, p01, p02, p03, p04, p05, p06, p07, p08, p09 and 15 more\n") {
		t.Errorf("many: stderr %q", r.stderr)
	}
}
