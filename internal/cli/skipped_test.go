package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
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

// TestTarDevicesListed: l, l -slt and the JSON listing show a tar's FIFO
// and devices as 7zz does (files with the type in their mode, the device
// numbers in -slt), though x skips them (issue 23, point 17).
func TestTarDevicesListed(t *testing.T) {
	dir := t.TempDir()
	arc := writeTar(t, dir, "dev.tar", []*tar.Header{
		{Name: "pipe", Mode: 0o644, Typeflag: tar.TypeFifo},
		{Name: "null", Mode: 0o666, Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3},
		{Name: "loop0", Mode: 0o660, Typeflag: tar.TypeBlock, Devmajor: 7, Devminor: 0},
		{Name: "f.txt", Mode: 0o644, Typeflag: tar.TypeReg},
	})
	table := garc(t, dir, "", "l", arc)
	table.expect(t, ExitOK, "l")
	for _, row := range []string{".....            0            0  pipe\n", ".....            0            0  null\n",
		".....            0            0  loop0\n", "4 files\n"} {
		if !strings.Contains(table.stdout, row) {
			t.Errorf("l: no %q in\n%s", row, table.stdout)
		}
	}
	js := garc(t, dir, "", "l", "--format=json", arc)
	js.expect(t, ExitOK, "l --format=json")
	var doc struct {
		Entries []struct {
			Path  string `json:"path"`
			Type  string `json:"type"`
			Mode  string `json:"mode"`
			Major *int   `json:"device_major"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Entries {
		s := e.Path + " " + e.Type + " " + e.Mode
		if e.Major != nil {
			s += fmt.Sprintf(" %d", *e.Major)
		}
		got = append(got, s)
	}
	if want := "pipe file prw-r--r-- 0|null file crw-rw-rw- 1|loop0 file brw-rw---- 7|f.txt file -rw-r--r-- 0"; strings.Join(got, "|") != want {
		t.Errorf("JSON entries %q, want %q", strings.Join(got, "|"), want)
	}
	slt := garc(t, dir, "", "l", "-slt", arc)
	slt.expect(t, ExitOK, "l -slt")
	bin := testenv.SevenZip(t)
	cmd := exec.Command(bin, "l", "-slt", arc)
	cmd.Env = append(os.Environ(), "TZ=UTC") // as garc runs
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	entries := func(s string) string { return s[strings.Index(s, "\n----------\n"):] }
	if zz := string(out); entries(slt.stdout) != entries(zz) {
		t.Errorf("l -slt differs from 7zz's:\n%s\n7zz:\n%s", entries(slt.stdout), entries(zz))
	}
}
