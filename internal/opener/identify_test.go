package opener

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

func tarHeader(name string, ustar bool) []byte {
	h := make([]byte, 1024)
	copy(h, name)
	copy(h[100:], "0000644\x00")
	copy(h[124:], "00000000000\x00")
	copy(h[136:], "00000000000\x00")
	h[156] = '0'
	if ustar {
		copy(h[257:], "ustar\x0000")
	}
	copy(h[148:], "        ")
	var sum int
	for _, c := range h[:512] {
		sum += int(c)
	}
	copy(h[148:], octal6(sum)+"\x00 ")
	return h
}

func octal6(n int) string {
	b := []byte("000000")
	for i := 5; i >= 0; i-- {
		b[i] = byte('0' + n&7)
		n >>= 3
	}
	return string(b)
}

func TestIdentify(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("hello"))
	w.Close()
	iso := make([]byte, IdentifyHead)
	copy(iso[0x8001:], "CD001")
	v7 := tarHeader("file.txt", false)
	badSum := append([]byte(nil), v7...)
	badSum[0] = 'g'
	cases := []struct {
		name string
		head []byte
		want string
	}{
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00"), KindZIP},
		{"empty zip", []byte("PK\x05\x06" + strings.Repeat("\x00", 18)), KindZIP},
		{"gzip", gz.Bytes(), KindGzip},
		{"bzip2", []byte("BZh91AY&SY\x00\x00"), KindBzip2},
		{"empty bzip2", []byte("BZh9\x17\x72\x45\x38\x50\x90\x00\x00\x00\x00"), KindBzip2},
		{"xz", []byte("\xfd7zXZ\x00\x00\x04"), KindXz},
		{"zstd", []byte("\x28\xb5\x2f\xfd\x24\x00"), KindZstd},
		{"lzma", []byte("\x5d\x00\x00\x80\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00"), KindLZMA},
		{"lzma with size", []byte("\x5d\x00\x00\x00\x01\x05\x00\x00\x00\x00\x00\x00\x00\x00"), KindLZMA},
		{"ustar", tarHeader("a", true), KindTar},
		{"v7 tar", v7, KindTar},
		{"v7 tar, wrong checksum", badSum, ""},
		{"iso", iso, KindISO},
		{"cab", []byte("MSCF\x00\x00\x00\x00\x10\x00"), KindCAB},
		{"arj", []byte("\x60\xea\x2a\x00\x1e"), KindARJ},
		{"lzh", []byte("\x1a\x00-lh5-\x00\x00"), KindLZH},
		{"wim", []byte("MSWIM\x00\x00\x00\xd0\x00"), KindWIM},
		{"encrypted dmg", []byte("encrcdsa\x00\x00"), KindDMG},
		{"text", []byte("hello, this is text\n"), ""},
		{"short", []byte("P"), ""},
		{"elf", []byte("\x7fELF\x02\x01\x01"), KindExecutable},
	}
	for _, c := range cases {
		if got := Identify(c.head); got != c.want {
			t.Errorf("%s: Identify = %q, want %q", c.name, got, c.want)
		}
	}
	// A DMG is known by its trailer.
	dmg := make([]byte, 4096)
	copy(dmg[len(dmg)-512:], "koly")
	if got := IdentifyFile(bytes.NewReader(dmg), int64(len(dmg))); got != KindDMG {
		t.Errorf("dmg trailer: %q", got)
	}
}

// Every file of the second corpus (ZIP, tar, streams) is named by its
// format.
func TestIdentifyMoreCorpus(t *testing.T) {
	root := testenv.MoreCorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"zip": KindZIP, "tar": KindTar, "gzip": KindGzip, "tar.gz": KindGzip,
		"bzip2": KindBzip2, "tar.bz2": KindBzip2, "xz": KindXz, "tar.xz": KindXz, "zstd": KindZstd,
		"tar.zst": KindZstd, "lzma": KindLZMA, "tar.lzma": KindLZMA}
	checked := 0
	for _, u := range units {
		w, ok := want[u.Format]
		if !ok || u.Expect != "ok" || u.Kind != "single" {
			continue
		}
		path := u.Path(root)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		got := IdentifyFile(f, st.Size())
		f.Close()
		if got != w {
			t.Errorf("%s: %q, want %q", u.Unit, got, w)
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d units checked", checked)
	}
}

// Open reads ZIP, gzip and tar files and names a format it does not read.
func TestOpenNamesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("hello"))
	w.Close()
	cab := append([]byte("MSCF\x00\x00\x00\x00"), make([]byte, 64)...)
	files := map[string][]byte{
		"a.zip":    append([]byte("PK\x05\x06"), make([]byte, 18)...),
		"a.gz":     gz.Bytes(),
		"a.tar":    tarHeader("file.txt", true),
		"a.txt":    []byte("hello, this is text\n"),
		"a.cab":    cab,
		"b.7z.001": cab,
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	for _, name := range []string{"a.zip", "a.gz", "a.tar"} {
		r, err := Open(filepath.Join(dir, name), nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		r.Close()
	}
	for name, kind := range map[string]string{"a.txt": "", "a.cab": KindCAB, "b.7z.001": KindCAB} {
		_, err := Open(filepath.Join(dir, name), nil)
		if !errors.Is(err, archive.ErrNotArchive) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var fe *UnreadFormatError
		isFE := errors.As(err, &fe)
		switch {
		case kind == "" && (isFE || !strings.Contains(err.Error(), "not an archive")):
			t.Errorf("%s: %v", name, err)
		case kind != "" && (!isFE || fe.Kind != kind || !errors.Is(err, archive.ErrUnsupported) ||
			!strings.Contains(err.Error(), kind+" format, which garc does not read")):
			t.Errorf("%s: %v", name, err)
		}
	}
}
