package opener

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// zstdRaw is a zstd frame of raw blocks holding p, whose header declares
// the window descriptor wd.
func zstdRaw(wd byte, p []byte) []byte {
	out := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, wd}
	for {
		n := min(len(p), 100<<10)
		h := uint32(n) << 3
		if n == len(p) {
			h |= 1 // last
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
		out = append(out, p[:n]...)
		if p = p[n:]; len(p) == 0 {
			return out
		}
	}
}

// A compressed tar or file whose start cannot be decoded within the
// memory limit is refused when it is opened, naming the limit: l must not
// list it as a compressed file that x then refuses (issue 23, point 9).
func TestCompressedOverLimitRefusedAtOpen(t *testing.T) {
	tarData := tarOf(t, []string{"a.txt"}, map[string]string{"a.txt": "hello"})
	cases := []struct {
		name    string
		data    []byte
		maxDict int64
		need    int64
	}{
		{"w.tar.zst", zstdRaw(0xA8, tarData), 1 << 30, 1 << 31},          // window 2 GiB
		{"w.zst", zstdRaw(0xA8, []byte("plain text")), 1 << 30, 1 << 31}, // a compressed file
		{"d.tar.xz", compressWith(t, tarData, "xz", "-c", "-9"), 1 << 20, 64 << 20},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(p, &archive.Options{MaxDict: c.maxDict})
			if err == nil {
				r.Close()
				t.Fatalf("opened as %s", r.Info().Format)
			}
			var le *archive.LimitError
			var ae *archive.Error
			if !errors.Is(err, archive.ErrLimit) || !errors.As(err, &ae) || ae.Archive != p {
				t.Fatalf("error %v, want a limit error naming %s", err, p)
			}
			if errors.As(err, &le) && (le.Need != c.need || le.Limit != c.maxDict) {
				t.Fatalf("error %v, want %d over %d", err, c.need, c.maxDict)
			}
			// Within the limit it opens.
			r, err = Open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
		})
	}
}
