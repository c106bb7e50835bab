package stream

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// gzipWithName is a gzip member of data whose header records name
// (FNAME, any bytes but zero) and comment when they are not nil, stored
// uncompressed.
func gzipWithName(name, comment, data []byte) []byte {
	flags := byte(0)
	if name != nil {
		flags |= gzipFlagName
	}
	if comment != nil {
		flags |= gzipFlagComment
	}
	b := []byte{0x1F, 0x8B, 8, flags, 0, 0, 0, 0, 0, 3}
	if name != nil {
		b = append(append(b, name...), 0)
	}
	if comment != nil {
		b = append(append(b, comment...), 0)
	}
	b = append(b, 1) // final stored block
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(data)))
	b = append(b, data...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(b, uint32(len(data)))
}

// storedNameCases are gzip header names and the path garc extracts each
// to from a file named "arc.gz". 7zz x extracts the same path except
// where the comment says otherwise (the column sevenZip).
var storedNameCases = []struct {
	stored   string
	want     string
	sevenZip string // 7zz's result where it differs
}{
	{"plain.txt", "plain.txt", ""},
	{"../evil.txt", "evil.txt", ""},
	{"a/../../z", "a/z", ""},
	{"/abs/x", "abs/x", ""},
	{"a/b/c", "a/b/c", ""},
	{"./y", "y", ""},
	{" sp ", " sp ", ""},
	{"a\x01b\x1bc", "a\x01b\x1bc", ""},
	{"caf\xe9", "caf\xe9", ""},           // Latin-1 bytes kept, not converted
	{"\u00e9\u20ac", "\u00e9\u20ac", ""}, // UTF-8 as gzip(1) writes it today
	{"", "arc", ""},
	{"a\\b", "a/b", "a\\b"}, // '\' separates in garc; 7zz on Unix keeps it
	{"..\\w", "w", "..\\w"},
	{".", "arc", "_"},
	{"..", "arc", "_"},
	{"//", "arc", "_"},
	{"dir/", "arc", "dir/_"},
	{"a/..", "arc", "a/_"},
	{"C:u", "u", "C:u"}, // garc drops drive prefixes; 7zz on Unix keeps them
	{"C:", "arc", "C:"},
	{"C:..", "arc", "C:.."},
	{"c:/", "arc", "c:/_"},
	{"\\\\server\\share\\f", "server/share/f", "\\\\server\\share\\f"},
}

// TestGzipStoredNameCleaned checks the path a gzip header's name gives:
// never outside the destination, the archive's default name when the
// header names no file.
func TestGzipStoredNameCleaned(t *testing.T) {
	for _, c := range storedNameCases {
		e, got, err := extractOne(t, "arc.gz", gzipWithName([]byte(c.stored), nil, []byte("payload")))
		if err != nil || string(got) != "payload" {
			t.Fatalf("%q: %q, %v", c.stored, got, err)
		}
		if e.Name != c.want {
			t.Errorf("stored name %q: entry %q, want %q", c.stored, e.Name, c.want)
		}
	}
}

// TestGzipStoredNameAs7Zip extracts each case with 7zz and compares the
// file it makes with the table.
func TestGzipStoredNameAs7Zip(t *testing.T) {
	sz := testenv.SevenZip(t)
	for _, c := range storedNameCases {
		dir := t.TempDir()
		arc := filepath.Join(dir, "arc.gz")
		os.WriteFile(arc, gzipWithName([]byte(c.stored), nil, []byte("payload")), 0o644)
		out := filepath.Join(dir, "out")
		if b, err := exec.Command(sz, "x", "-y", "-o"+out, arc).CombinedOutput(); err != nil {
			t.Fatalf("7zz x %q: %v\n%s", c.stored, err, b)
		}
		var files []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(out, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		want := c.want
		if c.sevenZip != "" {
			want = c.sevenZip
		}
		if len(files) != 1 || files[0] != want {
			t.Errorf("stored name %q: 7zz made %q, the table says %q", c.stored, files, want)
		}
	}
}

// TestGzipLongHeaderStrings reads names up to 4095 bytes and comments up
// to 65535, the bounds 7-Zip reads; one byte more is a corrupt header.
func TestGzipLongHeaderStrings(t *testing.T) {
	name := strings.Repeat("d/", 1000) + strings.Repeat("n", 2095)
	for _, c := range []struct {
		what          string
		name, comment []byte
		ok            bool
	}{
		{"name 4095", []byte(name), nil, true},
		{"name 4096", []byte(name + "n"), nil, false},
		{"comment 65535", []byte("c.txt"), bytes.Repeat([]byte("c"), 65535), true},
		{"comment 65536", []byte("c.txt"), bytes.Repeat([]byte("c"), 65536), false},
	} {
		e, got, err := extractOne(t, "arc.gz", gzipWithName(c.name, c.comment, []byte("payload")))
		if !c.ok {
			if err == nil {
				t.Errorf("%s: no error", c.what)
			}
			continue
		}
		if err != nil || string(got) != "payload" {
			t.Fatalf("%s: %q, %v", c.what, got, err)
		}
		if want, _ := cleanStoredName(string(c.name)); e.Name != want {
			t.Errorf("%s: entry %.40q…, want %.40q…", c.what, e.Name, want)
		}
	}
}

// TestDefaultNameAs7Zip checks the name of a stream without a recorded
// name against what 7zz x extracts (values gathered with 7-Zip 26.02).
func TestDefaultNameAs7Zip(t *testing.T) {
	for _, c := range []struct {
		kind       Kind
		file, want string
	}{
		{Gzip, "a.tar.gz", "a.tar"},
		{Gzip, "x.tgz", "x.tar"},
		{Gzip, "x.TGZ", "x.tar"},
		{Gzip, "x.tpz", "x.tar"},
		{Gzip, "x.apk", "x.tar"},
		{Gzip, "x.gzip", "x"},
		{Gzip, "x.gz.gz", "x.gz"},
		{Gzip, "x.tbz2", "x"}, // not a gzip extension: dropped
		{Gzip, "x.txz", "x"},
		{Gzip, "x.tzst", "x"},
		{Gzip, "x.", "x"},
		{Gzip, "a.b.c", "a.b"},
		{Gzip, ".gz", ".gz~"},
		{Gzip, ".tgz", ".tgz.tar"},
		{Gzip, "noext", "noext~"},
		{Gzip, "..gz", "_"},
		{Gzip, "...gz", "_"},
		{Gzip, "x .gz", "x"},
		{Bzip2, "x.tbz2", "x.tar"},
		{Bzip2, "x.tbz", "x.tar"},
		{Bzip2, "x.bzip2", "x"},
		{Bzip2, "x.tgz", "x"},
		{XZ, "x.txz", "x.tar"},
		{XZ, "x.tgz", "x"},
		{Zstd, "x.tzst", "x.tar"},
		{Zstd, "x.zstd", "x"},
		{Zstd, "x.tgz", "x"},
		{LZMA, "a.tar.lzma", "a.tar"},
		{LZMA, "x.tlz", "x"},
	} {
		if got := StoredName(c.kind, filepath.Join("dir", c.file), Header{}); got != c.want {
			t.Errorf("%v %q: %q, want %q", c.kind, c.file, got, c.want)
		}
	}
}
