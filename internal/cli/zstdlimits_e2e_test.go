package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// zstdLong31 compresses data with `zstd --long=31` from a pipe, which
// declares a window of 2 GiB in the frame header however small the data.
func zstdLong31(t *testing.T, data []byte) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, "zstd"), "-q", "-c", "--long=31")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd --long=31: %v", err)
	}
	return out
}

// Issue 23, points 7 and 9: zstd windows of 2 GiB (zstd --long=31)
// decode within the default --max-dict of 4g; above --max-dict, t, l and
// x of a .zst and of a .tar.zst all stop with exit 8 naming the window
// and the limit, and the advice to raise --max-dict, which works.
func TestZstdLargeWindowE2E(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": "hello from a 2 GiB window\n"})
	tarCmd := exec.Command(testenv.Tool(t, "tar"), "cf", "-", "src")
	tarCmd.Dir = dir
	tarData, err := tarCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "w.tar.zst"), zstdLong31(t, tarData), 0o644)
	os.WriteFile(filepath.Join(dir, "w.zst"), zstdLong31(t, []byte("plain\n")), 0o644)
	const refusal = "zstd window size 2147483648 exceeds the limit 1073741824 (raise it with --max-dict)"
	for _, name := range []string{"w.zst", "w.tar.zst"} {
		for _, cmd := range []string{"l", "t", "x"} {
			args := []string{cmd, "--max-dict", "1g", name}
			if cmd == "x" {
				args = append(args, "-oout-"+name)
			}
			r := garc(t, dir, "", args...)
			r.expect(t, ExitLimit, strings.Join(args, " "))
			if !strings.Contains(r.stderr, refusal) {
				t.Errorf("%s: stderr %q does not say %q", strings.Join(args, " "), r.stderr, refusal)
			}
			if cmd == "x" {
				if entries, _ := os.ReadDir(filepath.Join(dir, "out-"+name)); len(entries) > 0 {
					t.Errorf("%s extracted %d entries", strings.Join(args, " "), len(entries))
				}
			}
		}
	}
	garc(t, dir, "", "t", "w.zst").expect(t, ExitOK, "t w.zst")
	garc(t, dir, "", "x", "w.tar.zst", "-oout").expect(t, ExitOK, "x w.tar.zst")
	got, err := os.ReadFile(filepath.Join(dir, "out", "src", "a.txt"))
	if err != nil || string(got) != "hello from a 2 GiB window\n" {
		t.Fatalf("extracted %q, %v", got, err)
	}
}

// Issue 23, point 11: a zstd sequence of offset 0 is corrupt data (exit
// 2), as zstd since 1.5.6 says; the frame is built by hand (see
// internal/stream's zstdOffsetZero).
func TestZstdOffsetZeroE2E(t *testing.T) {
	dir := t.TempDir()
	frame := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00,
		0x44, 0x00, 0x00, 0x08, 'a', 0x01, 0x54, 0x01, 0x02, 0x00, 0x04,
		0x3D, 0x00, 0x00, 0x00, 0x01, 0x54, 0x00, 0x01, 0x00, 0x03}
	os.WriteFile(filepath.Join(dir, "off0.zst"), frame, 0o644)
	for _, args := range [][]string{{"t", "off0.zst"}, {"x", "off0.zst", "-oout"}} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitFatal, strings.Join(args, " "))
		if !strings.Contains(r.stderr, "at offset 17: zstd: sequence 1 of the block has offset 0") {
			t.Errorf("%s: stderr %q", strings.Join(args, " "), r.stderr)
		}
	}
}
