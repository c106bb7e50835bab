package tar

import (
	stdtar "archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// listingTar is a tar of a file, a directory, a file of a whole number
// of blocks, a hard link, a symlink and an empty file.
func listingTar(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := stdtar.NewWriter(&buf)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, h := range []stdtar.Header{
		{Name: "h", Typeflag: stdtar.TypeReg, Size: 5, Mode: 0o644},
		{Name: "d/", Typeflag: stdtar.TypeDir, Mode: 0o755},
		{Name: "d/k", Typeflag: stdtar.TypeReg, Size: 1024, Mode: 0o600},
		{Name: "d/k2", Typeflag: stdtar.TypeReg, Size: 1000, Mode: 0o600},
		{Name: "hard", Typeflag: stdtar.TypeLink, Linkname: "h", Mode: 0o644},
		{Name: "l", Typeflag: stdtar.TypeSymlink, Linkname: "h", Mode: 0o777},
		{Name: "empty", Typeflag: stdtar.TypeReg, Mode: 0o644},
	} {
		h.ModTime, h.Uname, h.Gname = mtime, "u", "g"
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(bytes.Repeat([]byte{'x'}, int(h.Size))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPackedSizeAs7zz: an entry's packed size is its data rounded up to
// whole 512-byte blocks, the Packed Size 7zz l -slt shows.
func TestPackedSizeAs7zz(t *testing.T) {
	data := listingTar(t)
	r, err := openBytes("l.tar", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, e := range r.Entries() {
		got[e.Name] = e.PackedSize
	}
	want := map[string]int64{"h": 512, "d": 0, "d/k": 1024, "d/k2": 1024, "hard": 0, "l": 0, "empty": 0}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: packed size %d, want %d", name, got[name], n)
		}
	}

	zz := testenv.SevenZip(t)
	path := filepath.Join(t.TempDir(), "l.tar")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zz, "l", "-slt", path).Output()
	if err != nil {
		t.Fatalf("7zz: %v", err)
	}
	items := strings.Split(string(out), "\n----------\n")
	if len(items) != 2 {
		t.Fatalf("7zz output: %s", out)
	}
	re := regexp.MustCompile(`(?m)^Path = (.*)\n(?:.*\n)*?Packed Size = (\d+)`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(items[1], -1) {
		zzPacked, _ := strconv.ParseInt(m[2], 10, 64)
		if got[m[1]] != zzPacked {
			t.Errorf("%s: packed size %d, 7zz %d", m[1], got[m[1]], zzPacked)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("7zz lists %d entries, want %d", n, len(want))
	}
}

// TestCompressedTarErrorOffset: a broken header of a compressed tar is
// located in the decompressed tar, which the message says; Error.Offset,
// an offset in the file, stays unknown. A plain tar's offset is the file's.
func TestCompressedTarErrorOffset(t *testing.T) {
	data := listingTar(t)
	data[1024+148] ^= 1 // checksum of the second header
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	for _, c := range []struct {
		name, file string
		data       []byte
		offset     int64
		message    string
	}{
		{"plain", "b.tar", data, 1024, "at offset 1024: "},
		{"gzip", "b.tar.gz", gz.Bytes(), -1, "at offset 1024 of the decompressed tar: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := openBytes(c.file, c.data, nil)
			if err == nil {
				r.Entries()
				err = r.Err()
			}
			var ae *archive.Error
			if !errors.As(err, &ae) || !errors.Is(err, archive.ErrFormat) {
				t.Fatalf("error %v", err)
			}
			if ae.Offset != c.offset || !strings.Contains(err.Error(), c.message) {
				t.Errorf("error %q (offset %d), want %q (offset %d)", err, ae.Offset, c.message, c.offset)
			}
		})
	}
}
