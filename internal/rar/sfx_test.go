package rar

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sfxscan"
)

// TestSFXScan: Open finds the archive behind a self-extractor stub by the
// rules of internal/sfxscan, the ones the opener's detection uses, so the
// two never disagree: a RAR 1.4 self-extractor (marked "RSFX" at offset
// 28) opens, and a signature starting beyond sfxscan.Limit is not
// searched for (Open used to scan 128 MiB, 32 times the opener's window).
func TestSFXScan(t *testing.T) {
	hello := []byte("hello, world\n")
	stub := func(n int) []byte {
		b := bytes.Repeat([]byte{0x90}, n)
		copy(b, "MZ")
		copy(b[28:], "RSFX")
		return b
	}
	dir := t.TempDir()
	cases := []struct {
		name    string
		data    []byte
		entries int
	}{
		{"rar14-sfx", append(stub(4096), rar14Archive(0, rar14File(0, "A.TXT", 0, 0x20, hello, hello))...), 1},
		{"rar5-sfx", append(stub(4096), newRAR5Builder().main(0).file("a", hello, nil).end(false).bytes()...), 1},
		{"rar5-beyond-limit", append(stub(sfxscan.Limit+1), newRAR5Builder().main(0).file("a", hello, nil).end(false).bytes()...), -1},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".exe")
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p, nil)
		if c.entries < 0 {
			if !errors.Is(err, archive.ErrNotArchive) {
				t.Errorf("%s: want ErrNotArchive, got %v", c.name, err)
			}
			if err == nil {
				r.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := len(r.Entries()); got != c.entries {
			t.Errorf("%s: %d entries, want %d", c.name, got, c.entries)
		}
		r.Close()
	}
}
