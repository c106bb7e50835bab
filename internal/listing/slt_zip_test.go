package listing

import (
	stdzip "archive/zip"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/testenv"
)

// checkSLTAs7zz compares garc's -slt listing of path, after its
// "Listing archive" lines, with what the 7zz at zz prints.
func checkSLTAs7zz(t *testing.T, zz, path string) {
	t.Helper()
	cmd := exec.Command(zz, "l", "-slt", path)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("7zz l -slt: %v\n%s", err, out)
	}
	want := withoutWarningCount(string(out[bytes.Index(out, []byte("\n--\n"))+4:]))
	if got := sltOf(t, path); got != want {
		t.Errorf("-slt differs from 7zz\n--- 7zz\n%s\n--- garc\n%s", want, got)
	}
}

// sltOf lists the archive at path, opened as garc opens it, with -slt
// and returns the listing from the line after "--".
func sltOf(t *testing.T, path string) string {
	t.Helper()
	r, err := opener.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	WriteSLT(&b, path, r.Info(), r.Entries(), func(*archive.Entry) bool { return true })
	s := b.String()
	return s[strings.Index(s, "\n--\n")+4:]
}

// archiveBlockOf is the archive block of a -slt listing: what precedes
// the "----------" line.
func archiveBlockOf(slt string) string {
	return slt[:strings.Index(slt, "\n----------\n")]
}

// writeRawSplit writes data as name.001, name.002 … of size bytes each
// and returns the first part's path.
func writeRawSplit(t *testing.T, dir, name string, data []byte, size int) string {
	t.Helper()
	for i := 0; len(data) > 0; i++ {
		n := min(size, len(data))
		if err := os.WriteFile(filepath.Join(dir, name+"."+[]string{"001", "002", "003", "004", "005", "006"}[i]), data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	return filepath.Join(dir, name+".001")
}

// TestSLTZipSetsMatch7zz compares the -slt listings of split ZIP sets
// (name.z01 … name.zip, opened from any part) and raw splits (a.zip.001,
// a.7z.001) with 7zz's: a set's multivolume keys (Physical Size of the
// part named, Embedded Stub Size of the split marker, Total Physical
// Size, Multivolume, Volume Index, Volumes) and the Split container 7-Zip
// lists before the archive of a raw split.
func TestSLTZipSetsMatch7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	zipTool := testenv.Tool(t, "zip")
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	src, dir := t.TempDir(), t.TempDir()
	random := make([]byte, 150<<10)
	rand.New(rand.NewSource(1)).Read(random)
	os.WriteFile(filepath.Join(src, "random"), random, 0o644)
	os.WriteFile(filepath.Join(src, "text"), bytes.Repeat([]byte("text of the split set\n"), 500), 0o644)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, n := range []string{"random", "text"} {
		os.Chtimes(filepath.Join(src, n), mtime, mtime)
	}
	cmd := exec.Command(zipTool, "-q", "-s", "64k", filepath.Join(dir, "set.zip"), "random", "text")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip -s: %v\n%s", err, b)
	}
	single := run(t, src, filepath.Join(dir, "single.zip"), zipTool, "-q", filepath.Join(dir, "single.zip"), "text", "random")
	sample, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample.7z"))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{
		filepath.Join(dir, "set.zip"), filepath.Join(dir, "set.z01"), filepath.Join(dir, "set.z02"),
		writeRawSplit(t, dir, "raw.zip", single, 60000),
		writeRawSplit(t, dir, "raw.7z", sample, 300),
		writeRawSplit(t, dir, "sfx.zip", sfxZip64File(t, random[:100]), 150),
	}
	paths = append(paths, writeSplitSet(t, dir, "made")...)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkSLTAs7zz(t, zz, path)
		})
	}
}

// TestZipArchiveBlock checks the ZIP archive blocks garc prints without
// 7zz: a stub the offsets count and a Zip64 end record under the name of
// the format, of another format and of none; a comment of several lines;
// data after the archive; the Split container of a raw split.
func TestZipArchiveBlock(t *testing.T) {
	dir := t.TempDir()
	sfx := sfxZip64File(t, []byte("payload"))
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var commented bytes.Buffer
	w := newZipWithComment(&commented, "first line\r\nsecond line\n\nlast line\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	size := len(sfx)
	for _, c := range []struct {
		path, want string
	}{
		{write("sfx.zip", sfx), "Path = %s\nWarning: The archive is open with offset\nType = zip\nPhysical Size = " + itoa(size) +
			"\nEmbedded Stub Size = 100\n64-bit = +\nCharacteristics = Zip64\n"},
		{write("sfx.7z", sfx), "Path = %s\nOpen WARNING: Cannot open the file as [7z] archive\nType = zip\nPhysical Size = " + itoa(size) +
			"\nEmbedded Stub Size = 100\n64-bit = +\nCharacteristics = Zip64\n"},
		{write("sfx.bin", sfx), "Path = %s\nType = zip\nPhysical Size = " + itoa(size) + "\nEmbedded Stub Size = 100\n64-bit = +\nCharacteristics = Zip64\n"},
		{write("tail.zip", append(commented.Bytes(), make([]byte, 700)...)), "Path = %s\nType = zip\nWARNINGS:\nThere are data after the end of archive\nPhysical Size = " +
			itoa(commented.Len()) + "\nTail Size = 700\nComment = \n{\nfirst line\nsecond line\n\nlast line\n}\n"},
		{write("unsorted.zip", reversedCentral(t, unixModesZip(t))), "Path = %s\nType = zip\nPhysical Size = " + itoa(len(unixModesZip(t))) +
			"\nCharacteristics = Unsorted_CD\n"},
		{write("comment.zip", commented.Bytes()), "Path = %s\nType = zip\nPhysical Size = " + itoa(commented.Len()) +
			"\nComment = \n{\nfirst line\nsecond line\n\nlast line\n}\n"},
		{writeRawSplit(t, dir, "raw.zip", sfx, 200), "Path = %s\nType = Split\nPhysical Size = 200\nVolumes = " + itoa((size+199)/200) +
			"\nTotal Physical Size = " + itoa(size) + "\n----\nPath = raw.zip\nSize = " + itoa(size) + "\n--\nPath = raw.zip\nWarning: The archive is open with offset\nType = zip\nPhysical Size = " + itoa(size) +
			"\nEmbedded Stub Size = 100\n64-bit = +\nCharacteristics = Zip64\n"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			want := strings.Replace(c.want, "%s", c.path, 1)
			if got := archiveBlockOf(sltOf(t, c.path)); got != want {
				t.Errorf("archive block\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestOpenWarning: 7-Zip tries the format its name's extension names
// first and says so when another format opened the file, or the same one
// after a stub.
func TestOpenWarning(t *testing.T) {
	for _, c := range []struct {
		name     string
		format   archive.Format
		atOffset bool
		want     string
	}{
		{"a.zip", "zip", false, ""},
		{"a.zip", "zip", true, "Warning: The archive is open with offset"},
		{"a.JAR", "zip", true, "Warning: The archive is open with offset"},
		{"a.7z", "zip", false, "Open WARNING: Cannot open the file as [7z] archive"},
		{"a.7z", archive.Format7z, true, "Warning: The archive is open with offset"},
		{"a.tar", "tar.gz", false, "Open WARNING: Cannot open the file as [tar] archive"},
		{"a.tgz", "tar.gz", false, ""},
		{"a.gz", "tar.gz", false, ""},
		{"a.zip", "tar.zst", false, "Open WARNING: Cannot open the file as [zip] archive"},
		{"a.zst", "zstd", false, ""},
		{"a.rar", "zip", false, ""},       // rar names two formats (Rar, Rar5)
		{"a.exe", "zip", true, ""},        // a real executable stub opens as PE first
		{"a.apk", "zip", false, ""},       // zip and gzip
		{"a", archive.Format7z, true, ""}, // no extension
		{"dir.7z/a", "zip", false, ""},
	} {
		if got := openWarning(c.name, c.format, c.atOffset); got != c.want {
			t.Errorf("openWarning(%q, %s, %v) = %q, want %q", c.name, c.format, c.atOffset, got, c.want)
		}
	}
}

// TestZipAttr renders ZIP attributes as 7-Zip's -slt does, from the
// attributes 7-Zip derives (Details.WinAttributes).
func TestZipAttr(t *testing.T) {
	const unix = archive.AttrUnixExtension
	for _, c := range []struct {
		attr uint32
		want string
	}{
		{0o100644<<16 | unix, " -rw-r--r--"},
		{0o040755<<16 | unix | archive.AttrDirectory, "D drwxr-xr-x"},
		{0o120777<<16 | unix, " lrwxrwxrwx"},
		{0o600<<16 | unix, "V 01800000 0rw-------"},
		{0o755<<16 | unix | archive.AttrDirectory, "DVvPM 01A40000 0rwxr-xr-x"},
		{0o1777<<16 | unix, "VvXPUM 03A40000 0rwxrwxrwt"},
		{0o010644<<16 | unix, " prw-r--r--"},
		{0o020620<<16 | unix, " crw--w----"},
		{0o060660<<16 | unix, " brw-rw----"},
		{0o140755<<16 | unix, " srwxr-xr-x"},
		{0o104755<<16 | unix, " -rwsr-xr-x"},
		{0o102644<<16 | unix, " -rw-r-Sr--"},
		{archive.AttrArchive | archive.AttrReadOnly, "RA"},
		{archive.AttrHidden | archive.AttrDirectory, "HD"},
		{0x20 | 0x400000, "AM"},
		{0x20 | 0x1000000, "A 01000000"},
		{0, ""},
	} {
		if got := string(appendZipAttr(nil, c.attr)); got != c.want {
			t.Errorf("appendZipAttr(%#x) = %q, want %q", c.attr, got, c.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// newZipWithComment returns a ZIP writer with one stored entry whose
// archive comment is comment; Close finishes it.
func newZipWithComment(b *bytes.Buffer, comment string) *stdzip.Writer {
	w := stdzip.NewWriter(b)
	f, _ := w.CreateHeader(&stdzip.FileHeader{Name: "f", Method: stdzip.Store, Modified: time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)})
	f.Write([]byte("f"))
	w.SetComment(comment)
	return w
}

// reversedCentral returns a ZIP archive (without comment) with its
// central directory records in reverse order: 7-Zip's Unsorted_CD.
func reversedCentral(t *testing.T, z []byte) []byte {
	t.Helper()
	end := z[len(z)-22:]
	cdSize, cdOff := int(binary.LittleEndian.Uint32(end[12:])), int(binary.LittleEndian.Uint32(end[16:]))
	cd := z[cdOff : cdOff+cdSize]
	var recs [][]byte
	for p := 0; p < len(cd); {
		n := 46 + int(binary.LittleEndian.Uint16(cd[p+28:])) + int(binary.LittleEndian.Uint16(cd[p+30:])) + int(binary.LittleEndian.Uint16(cd[p+32:]))
		recs = append([][]byte{cd[p : p+n]}, recs...)
		p += n
	}
	out := append([]byte(nil), z[:cdOff]...)
	for _, r := range recs {
		out = append(out, r...)
	}
	return append(out, end...)
}

// writeSplitSet writes a PKWARE split set of three parts in dir,
// name.z01 (the split marker and the first entry), name.z02 (the second)
// and name.zip (the central directory), as zip -s makes one, and returns
// the paths of the parts.
func writeSplitSet(t *testing.T, dir, name string) []string {
	t.Helper()
	var b bytes.Buffer
	w := stdzip.NewWriter(&b)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, n := range []string{"first", "second"} {
		f, err := w.CreateRaw(&stdzip.FileHeader{Name: n, Method: stdzip.Store, Modified: mtime, CRC32: crc32.ChecksumIEEE([]byte(n)),
			CompressedSize64: uint64(len(n)), UncompressedSize64: uint64(len(n))})
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(n))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	z := b.Bytes()
	le := binary.LittleEndian
	end := z[len(z)-22:]
	cdOff := int(le.Uint32(end[16:]))
	cd := append([]byte(nil), z[cdOff:len(z)-22]...)
	second := int(le.Uint32(cd[46+len("first")+int(le.Uint16(cd[30:]))+int(le.Uint16(cd[32:]))+42:]))
	parts := [][]byte{append([]byte("PK\x07\x08"), z[:second]...), z[second:cdOff], nil}
	// The records' disks and offsets within their parts: the first
	// entry follows the marker.
	for p, disk := 0, 0; p < len(cd); disk++ {
		le.PutUint16(cd[p+34:], uint16(disk))
		if disk == 0 {
			le.PutUint32(cd[p+42:], 4)
		} else {
			le.PutUint32(cd[p+42:], 0)
		}
		p += 46 + int(le.Uint16(cd[p+28:])) + int(le.Uint16(cd[p+30:])) + int(le.Uint16(cd[p+32:]))
	}
	eocd := append([]byte(nil), end...)
	le.PutUint16(eocd[4:], 2) // this disk
	le.PutUint16(eocd[6:], 2) // the directory's disk
	le.PutUint32(eocd[16:], 0)
	parts[2] = append(cd, eocd...)
	var paths []string
	for i, ext := range []string{".z01", ".z02", ".zip"} {
		p := filepath.Join(dir, name+ext)
		if err := os.WriteFile(p, parts[i], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestZipSplitSetBlock checks the archive block of a split set opened
// from each of its parts without 7zz (TestSLTZipSetsMatch7zz compares
// Info-ZIP's sets with 7zz): the part's Physical Size, the split marker
// as Embedded Stub Size, the set's Total Physical Size, Multivolume, the
// index of the part named and the number of parts.
func TestZipSplitSetBlock(t *testing.T) {
	paths := writeSplitSet(t, t.TempDir(), "set")
	var sizes []int
	total := 0
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, int(st.Size()))
		total += int(st.Size())
	}
	for i, p := range paths {
		want := "Path = " + p + "\nType = zip\nPhysical Size = " + itoa(sizes[i]) + "\nEmbedded Stub Size = 4\nTotal Physical Size = " + itoa(total) +
			"\nMultivolume = +\nVolume Index = " + itoa(i) + "\nVolumes = 3\n"
		if got := archiveBlockOf(sltOf(t, p)); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", filepath.Base(p), got, want)
		}
	}
}

// TestSLTValue: an entry's text value is on one line, line feeds as '_'
// as 7-Zip prints them to a pipe, other controls escaped.
func TestSLTValue(t *testing.T) {
	for in, want := range map[string]string{"a\nb\n": "a_b_", "plain": "plain", "": "", "t\x1b[2J": `t\x1b[2J`} {
		if got := sltValue(in); got != want {
			t.Errorf("sltValue(%q) = %q, want %q", in, got, want)
		}
	}
}
