package cli

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// surrogate7z is a 7z of two stored files whose UTF-16 names differ only
// in their last unit: a\uD800 (an unpaired surrogate) holds "one",
// a\uFFFD holds "two".
func surrogate7z() []byte {
	content := []byte("onetwo")
	crc := func(p []byte) []byte { return binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(p)) }
	names := []byte{0, 'a', 0, 0x00, 0xD8, 0, 0, 'a', 0, 0xFD, 0xFF, 0, 0}
	hdr := []byte{0x01, 0x04, // Header, MainStreamsInfo
		0x06, 0, 1, 0x09, 6, 0x00, // PackInfo: one stream of 6 bytes
		0x07, 0x0B, 1, 0, 1, 0x01, 0x00, 0x0C, 6, 0x00, // UnpackInfo: one Copy folder
		0x08, 0x0D, 2, 0x09, 3, 0x0A, 1} // SubStreamsInfo: 3 + 3 bytes, CRCs
	hdr = append(append(append(hdr, crc(content[:3])...), crc(content[3:])...), 0x00, 0x00, 0x05, 2, 0x11, byte(len(names)))
	hdr = append(append(hdr, names...), 0x00, 0x00)
	var start [20]byte
	binary.LittleEndian.PutUint64(start[0:], uint64(len(content)))
	binary.LittleEndian.PutUint64(start[8:], uint64(len(hdr)))
	binary.LittleEndian.PutUint32(start[16:], crc32.ChecksumIEEE(hdr))
	b := append([]byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4}, crc(start[:])...)
	return append(append(append(b, start[:]...), content...), hdr...)
}

// Issue 23, point 8: names that differ only in an unpaired UTF-16
// surrogate and U+FFFD extract to two files, named as 7zz names them on
// Unix (the surrogate in WTF-8: a\xed\xa0\x80), not to one file and a
// "file exists" for the second.
func TestSurrogateNamesE2E(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.7z"), surrogate7z(), 0o644)
	r := garc(t, dir, "", "x", "s.7z", "-oout")
	r.expect(t, ExitOK, "x s.7z")
	want := map[string]string{"a\xed\xa0\x80": "one", "a\uFFFD": "two"}
	names := func(d string) []string {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, e := range entries {
			n = append(n, e.Name())
		}
		return n
	}
	got := names(filepath.Join(dir, "out"))
	if len(got) != 2 {
		t.Fatalf("extracted %q, want the two names of %q", got, want)
	}
	for name, content := range want {
		if b, err := os.ReadFile(filepath.Join(dir, "out", name)); err != nil || string(b) != content {
			t.Errorf("%q: %q, %v", name, b, err)
		}
	}
	r = garc(t, dir, "", "l", "s.7z")
	r.expect(t, ExitOK, "l s.7z")
	if !bytes.Contains([]byte(r.stdout), []byte(`a\xed\xa0\x80`)) || !bytes.Contains([]byte(r.stdout), []byte("a\uFFFD")) {
		t.Errorf("l does not show both names:\n%s", r.stdout)
	}
	// 7zz makes the same two names.
	cmd := exec.Command(testenv.SevenZip(t), "x", "-o"+filepath.Join(dir, "out7"), "s.7z")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz x: %v\n%s", err, out)
	}
	if seven := names(filepath.Join(dir, "out7")); !slices.Equal(seven, got) {
		t.Errorf("7zz extracted %q, garc %q", seven, got)
	}
}
