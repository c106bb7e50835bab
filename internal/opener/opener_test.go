package opener

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/sfxscan"
	"github.com/garc-dev/garc/internal/testenv"
)

func TestMultiReaderAt(t *testing.T) {
	data := []byte("abcdefghijklmnopqrstuvwxyz0123456789")
	cuts := [][]int{{36}, {1, 35}, {10, 0, 10, 16}, {0, 0, 36}, {5, 5, 5, 5, 5, 5, 6}, {35, 1}}
	for _, c := range cuts {
		var parts []io.ReaderAt
		var sizes []int64
		pos := 0
		for _, n := range c {
			parts = append(parts, bytes.NewReader(data[pos:pos+n]))
			sizes = append(sizes, int64(n))
			pos += n
		}
		m, err := NewMultiReaderAt(parts, sizes)
		if err != nil {
			t.Fatal(err)
		}
		if m.Size() != int64(len(data)) {
			t.Fatalf("%v: size %d", c, m.Size())
		}
		for off := 0; off <= len(data); off++ {
			for n := 0; n <= len(data)-off+3; n++ {
				p := make([]byte, n)
				k, err := m.ReadAt(p, int64(off))
				want := len(data) - off
				if want > n {
					want = n
				}
				if k != want || !bytes.Equal(p[:k], data[off:off+k]) {
					t.Fatalf("%v: ReadAt(%d, %d) = %d %q", c, n, off, k, p[:k])
				}
				if k < n && err != io.EOF {
					t.Fatalf("%v: short read at %d without EOF: %v", c, off, err)
				}
				if k == n && err != nil {
					t.Fatalf("%v: full read at %d returned %v", c, off, err)
				}
			}
		}
	}
	if _, err := NewMultiReaderAt([]io.ReaderAt{bytes.NewReader(nil)}, nil); err == nil {
		t.Fatal("mismatched lengths accepted")
	}
	m, _ := NewMultiReaderAt(nil, nil)
	if _, err := m.ReadAt(make([]byte, 1), 0); err != io.EOF {
		t.Fatalf("empty: %v", err)
	}
	if _, err := m.ReadAt(make([]byte, 1), -1); err == nil {
		t.Fatal("negative offset accepted")
	}
}

// TestMultiReaderAtShrunkPart checks that a part shorter than announced
// is an error, not silent zeros.
func TestMultiReaderAtShrunkPart(t *testing.T) {
	m, _ := NewMultiReaderAt([]io.ReaderAt{bytes.NewReader([]byte("ab")), bytes.NewReader([]byte("cd"))}, []int64{3, 2})
	p := make([]byte, 5)
	if _, err := m.ReadAt(p, 0); err == nil || err == io.EOF {
		t.Fatalf("got %v, want an unexpected-EOF error", err)
	}
}

// start7z returns a valid 7z signature header.
func start7z() []byte {
	b := make([]byte, 32)
	copy(b, sfxscan.Sig7z)
	b[7] = 4
	binary.LittleEndian.PutUint64(b[12:], 1234)
	binary.LittleEndian.PutUint64(b[20:], 56)
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:32]))
	return b
}

func TestDetect(t *testing.T) {
	good7z := start7z()
	bad7z := append([]byte(nil), good7z...)
	bad7z[9] ^= 1
	stub := append([]byte("MZ\x90\x00"), bytes.Repeat([]byte{0}, 1000)...)
	cat := func(b ...[]byte) []byte { return bytes.Join(b, nil) }
	rsfx := make([]byte, 40)
	copy(rsfx[28:], "RSFX")
	tests := []struct {
		name   string
		data   []byte
		format archive.Format
		off    int64
		ok     bool
	}{
		{"7z at 0", good7z, archive.Format7z, 0, true},
		{"damaged 7z at 0 still 7z", bad7z, archive.Format7z, 0, true},
		{"rar5", cat(sfxscan.SigRAR5, []byte("rest")), archive.FormatRAR5, 0, true},
		{"rar4", cat(sfxscan.SigRAR4, []byte("rest")), archive.FormatRAR4, 0, true},
		{"rar1.4", cat(sfxscan.SigRAR14, []byte("rest")), archive.FormatRAR14, 0, true},
		{"7z after PE stub", cat(stub, good7z), archive.Format7z, int64(len(stub)), true},
		{"invalid 7z then valid", cat(stub, bad7z, good7z), archive.Format7z, int64(len(stub) + 32), true},
		{"invalid 7z only", cat(stub, bad7z), "", 0, false},
		{"truncated 7z header after stub", cat(stub, good7z[:20]), "", 0, false},
		{"rar5 after stub", cat(stub, sfxscan.SigRAR5), archive.FormatRAR5, int64(len(stub)), true},
		{"rar4 after jpeg", cat([]byte("\xff\xd8\xff\xe0JFIF"), sfxscan.SigRAR4), archive.FormatRAR4, 8, true},
		{"rar1.4 after stub without RSFX", cat(stub, sfxscan.SigRAR14), "", 0, false},
		{"rar1.4 after RSFX stub", cat(rsfx, sfxscan.SigRAR14), archive.FormatRAR14, 40, true},
		{"text", []byte("hello, world\n"), "", 0, false},
		{"empty", nil, "", 0, false},
		{"partial rar sig", []byte("Rar!\x1a\x07"), "", 0, false},
		{"first of two wins", cat(stub, sfxscan.SigRAR4, good7z), archive.FormatRAR4, int64(len(stub)), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok, err := Detect(bytes.NewReader(tc.data), int64(len(tc.data)))
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || (ok && (d.Format != tc.format || d.Offset != tc.off)) {
				t.Fatalf("got %v %+v, want %v %s@%d", ok, d, tc.ok, tc.format, tc.off)
			}
		})
	}
}

// TestDetectScanLimit checks that a signature beyond MaxSFXScan is not
// found and one just inside is.
func TestDetectScanLimit(t *testing.T) {
	for _, tc := range []struct {
		off int
		ok  bool
	}{{MaxSFXScan - 1, true}, {MaxSFXScan, false}} {
		data := make([]byte, tc.off+64)
		copy(data[tc.off:], start7z())
		_, ok, err := Detect(bytes.NewReader(data), int64(len(data)))
		if err != nil || ok != tc.ok {
			t.Fatalf("offset %d: ok=%v err=%v, want %v", tc.off, ok, err, tc.ok)
		}
	}
}

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSplitParts(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "a.7z.001", "a.7z.002", "a.7z.003", "a.7z.005",
		"b.0001", "b.0002", "lone.002", "x_aa", "x_ab", "x_ac", "y_aa", "plain.7z", "c.000")
	rel := func(ps []string) string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return strings.Join(out, " ")
	}
	tests := []struct{ path, want string }{
		{"a.7z.001", "a.7z.001 a.7z.002 a.7z.003"},
		{"a.7z.002", "a.7z.001 a.7z.002 a.7z.003"},
		{"a.7z.003", "a.7z.001 a.7z.002 a.7z.003"},
		{"b.0002", "b.0001 b.0002"},
		{"lone.002", ""},
		{"x_ab", "x_aa x_ab x_ac"},
		{"x_aa", "x_aa x_ab x_ac"},
		{"y_aa", ""},
		{"plain.7z", ""},
		{"c.000", ""},
	}
	for _, tc := range tests {
		if got := rel(SplitParts(filepath.Join(dir, tc.path))); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestOpenNotArchive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.7z")
	os.WriteFile(p, []byte("just some text, no archive here\n"), 0o644)
	_, err := Open(p, nil)
	if !errors.Is(err, archive.ErrNotArchive) {
		t.Fatalf("got %v, want ErrNotArchive", err)
	}
	if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "(tried 7z, RAR, ZIP, tar, gzip, bzip2, xz, zstd and lzma)") {
		t.Fatalf("message %q does not name the file and the cause", err)
	}
	if _, err := Open(dir, nil); !errors.Is(err, archive.ErrNotArchive) || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
	empty := filepath.Join(dir, "empty.rar")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Open(empty, nil); !errors.Is(err, archive.ErrNotArchive) || !strings.Contains(err.Error(), "empty file") {
		t.Fatalf("empty file: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	// A split of non-archive parts.
	os.WriteFile(filepath.Join(dir, "s.001"), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.002"), []byte("def"), 0o644)
	if _, err := Open(filepath.Join(dir, "s.002"), nil); !errors.Is(err, archive.ErrNotArchive) {
		t.Fatalf("split: %v", err)
	}
}

// TestDetectCorpus checks detection against the corpus's SFX and
// embedded archives, whose offsets the corpus records in its features.
func TestDetectCorpus(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, u := range units {
		if u.Format == "other" || u.Expect != "ok" {
			continue
		}
		var ra io.ReaderAt
		var size int64
		if u.Kind == "raw-split" {
			var paths []string
			for _, m := range u.Members {
				paths = append(paths, filepath.Join(root, m))
			}
			m, files, err := openParts(paths)
			if err != nil {
				t.Fatal(err)
			}
			defer files.Close()
			ra, size = m, m.Size()
		} else {
			f, err := os.Open(u.Path(root))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			ra, size = f, st.Size()
		}
		d, ok, err := Detect(ra, size)
		if err != nil || !ok {
			t.Errorf("%s: not detected (%v)", u.Unit, err)
			continue
		}
		want := map[string]archive.Format{"7z": archive.Format7z, "rar5": archive.FormatRAR5, "rar4": archive.FormatRAR4,
			"rar1.5-2": archive.FormatRAR4, "rar1.4": archive.FormatRAR14}[u.Format]
		if d.Format != want {
			t.Errorf("%s: detected %s, want %s", u.Unit, d.Format, want)
		}
		wantOff := int64(0)
		for _, f := range strings.Split(u.Features, ";") {
			f = strings.TrimSpace(f)
			if strings.HasPrefix(f, "sfx-offset=") {
				wantOff = parseInt(strings.TrimPrefix(f, "sfx-offset="))
			} else if i := strings.Index(f, "signature at offset "); i >= 0 && wantOff == 0 {
				wantOff = parseInt(strings.Fields(f[i+len("signature at offset "):])[0])
			}
		}
		if d.Offset != wantOff {
			t.Errorf("%s: signature at %d, want %d", u.Unit, d.Offset, wantOff)
		}
		checked++
	}
	t.Logf("%d units detected", checked)
}

func parseInt(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
