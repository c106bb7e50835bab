package ppmd

import (
	stdzip "archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// ppmd8Stream compresses data with 7zz as a ZIP method-98 entry and
// returns the raw entry data (the 2-byte header and the range-coded
// symbols).
func ppmd8Stream(t testing.TB, data []byte, method string) []byte {
	t.Helper()
	exe := testenv.SevenZip(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.zip")
	cmd := exec.Command(exe, "a", "-tzip", "-mm="+method, out, "f")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, b)
	}
	zr, err := stdzip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if m := zr.File[0].Method; m != 98 {
		t.Fatalf("method %d", m)
	}
	rc, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// ppmd8Text is text with runs of pseudo-random bytes, enough to fill a
// 1 MiB model several times.
func ppmd8Text(n int) []byte {
	var b bytes.Buffer
	x := uint32(7)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of the PPMd variant I test, word%d\n", i, i%97)
		if i%5 == 0 {
			for j := 0; j < 64; j++ {
				x = x*1664525 + 1013904223
				b.WriteByte(byte(x >> 24))
			}
		}
	}
	return b.Bytes()[:n]
}

// TestReader8 decodes 7zz's method-98 streams (restart and cut-off
// restoration) with one Reader8, Reset between them, and checks the
// header errors.
func TestReader8(t *testing.T) {
	data := ppmd8Text(2 << 20)
	var z Reader8
	for _, method := range []string{"PPMd:o=6:mem=1m:a=0", "PPMd:o=16:mem=1m:a=1", "PPMd:o=2:mem=2m"} {
		raw := ppmd8Stream(t, data, method)
		if err := z.Reset(bufio.NewReader(bytes.NewReader(raw)), int64(len(data)), 64<<20); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		got, err := io.ReadAll(&z)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, %v", method, len(got), err)
		}
	}
	for _, c := range []struct {
		name   string
		header []byte
		maxMem int64
		want   error
	}{
		{"short header", []byte{0x05}, 64 << 20, archive.ErrFormat},
		{"order 1", []byte{0x00, 0x00, 0, 0, 0, 0}, 64 << 20, archive.ErrUnsupported},
		{"restoration method 3", []byte{0x05, 0x30, 0, 0, 0, 0}, 64 << 20, archive.ErrUnsupported},
		{"memory above the limit", []byte{0xF5, 0x00, 0, 0, 0, 0}, 8 << 20, archive.ErrLimit},
		{"no range coder start", []byte{0x05, 0x00, 0}, 64 << 20, archive.ErrFormat},
	} {
		err := z.Reset(bytes.NewReader(c.header), 10, c.maxMem)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// FuzzReader8 decodes arbitrary bytes as a method-98 stream of up to 64
// KiB with small models: the decoder must end (with data or an error
// wrapping a sentinel) and never panic out of Read.
func FuzzReader8(f *testing.F) {
	f.Add([]byte{0x05, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a}, uint16(1000))
	f.Add([]byte{0x0f, 0x10, 0xff, 0xff, 0x00, 0x01, 0x02}, uint16(65535))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		if len(data) >= 2 {
			data[0] &= 0x0F // memory 1 MiB, any order and restoration method
			data[1] &= 0xF0
		}
		var z Reader8
		if err := z.Reset(bytes.NewReader(data), int64(size), 1<<20); err != nil {
			if !errors.Is(err, archive.ErrFormat) && !errors.Is(err, archive.ErrUnsupported) {
				t.Fatalf("reset: %v", err)
			}
			return
		}
		n, err := io.Copy(io.Discard, &z)
		if n > int64(size) || err != nil && !errors.Is(err, archive.ErrFormat) {
			t.Fatalf("%d bytes, %v", n, err)
		}
	})
}
