package zip

import (
	stdzip "archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestDirectoryWithoutCRC: a directory's CRC of 0 is no checksum, as
// 7-Zip lists it (an empty CRC in -slt); an empty file keeps 00000000.
func TestDirectoryWithoutCRC(t *testing.T) {
	b := buildZip(t, []testFile{{name: "d/", mode: os.ModeDir | 0o755}, {name: "d/empty"}}, "")
	rd, err := openBytes(t, b, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rd.Entries() {
		if want := e.Type != archive.TypeDir; e.HasCRC32 != want {
			t.Errorf("%s: HasCRC32 %v, want %v", e.Name, e.HasCRC32, want)
		}
	}
}

// TestCharacteristics: extra fields and flags are named as 7-Zip names
// them, and equal strings are shared.
func TestCharacteristics(t *testing.T) {
	field := func(id uint16, data ...byte) []byte {
		return append([]byte{byte(id), byte(id >> 8), byte(len(data)), byte(len(data) >> 8)}, data...)
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for _, c := range []struct {
		extra []byte
		flags uint16
		want  string
	}{
		{nil, 0, ""},
		{nil, 0x0806, "UTF8"},
		{field(extraExtTime, 3, 1, 2, 3, 4), 0, "UT:MA:1"},
		{cat(field(extraExtTime, 3, 1, 2, 3, 4, 5, 6, 7, 8), field(extraUnixOwner, 1, 0, 0)), 0, "UT:MA:2 ux"},
		{cat(field(extraNTFS, make([]byte, 32)...), field(extraAES, 2, 0, 'A', 'E', 3, 0, 0)), 1, "NTFS WzAES : Encrypt"},
		{cat(field(0x1234), field(extraZip64, make([]byte, 8)...)), 8 | 16, "Zip64 0x1234 : Descriptor 0x10"},
	} {
		var rd Reader
		got := rd.characteristics(c.extra, c.flags)
		if got != c.want {
			t.Errorf("characteristics(% x, %#x) = %q, want %q", c.extra, c.flags, got, c.want)
		}
		if again := rd.characteristics(c.extra, c.flags); again != got {
			t.Errorf("second call %q", again)
		}
	}
}

// TestCentralExtendedTimeModifiedOnly: Info-ZIP's central UT field holds
// the modification time only; bsdtar also puts the access and inode
// change times there, which 7-Zip ignores (its listing shows no Created
// and Accessed). garc used to list the change time as Created.
func TestCentralExtendedTimeModifiedOnly(t *testing.T) {
	const mtime, atime, ctime = 1_000_000_000, 1_100_000_000, 1_200_000_000
	ut := []byte{0x55, 0x54, 13, 0, 7}
	for _, v := range []uint32{mtime, atime, ctime} {
		ut = binary.LittleEndian.AppendUint32(ut, v)
	}
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	fw, err := w.CreateHeader(&stdzip.FileHeader{Name: "f", Extra: ut})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("data"))
	w.Close()
	r, err := openBytes(t, buf.Bytes(), "")
	if err != nil {
		t.Fatal(err)
	}
	e := r.Entries()[0]
	if got := e.ModTime.Unix(); got != mtime {
		t.Errorf("ModTime %d, want %d", got, mtime)
	}
	if x := e.Extra; x != nil && (!x.AccessTime.IsZero() || !x.CreateTime.IsZero()) {
		t.Errorf("AccessTime %v, CreateTime %v, want none", x.AccessTime, x.CreateTime)
	}
}
