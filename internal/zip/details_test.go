package zip

import (
	stdzip "archive/zip"
	"bytes"
	"encoding/binary"
	"os"
	"testing"
	"time"

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

// TestUnixTime32: the 32-bit times of the UT and UX fields are unsigned
// beyond 2038, as 7-Zip, bsdtar and unzip read a file of 2040 (garc read
// them signed: 1903); a value that only a signed reading brings near the
// entry's DOS time (a file of 1960, DOS time 1980) stays signed.
func TestUnixTime32(t *testing.T) {
	dos := func(year int) (uint16, uint16) { return 0, uint16(year-1980)<<9 | 1<<5 | 1 }
	for _, c := range []struct {
		name string
		id   uint16
		v    int64
		dos  int // DOS year; 0 for no DOS time
		want int64
	}{
		{"UT 2040", extraExtTime, 2208988800, 2040, 2208988800},
		{"UT 2096", extraExtTime, 3979348096, 2096, 3979348096},
		{"UT 1960", extraExtTime, -315619200, 1980, -315619200},
		{"UT 2040 without DOS time", extraExtTime, 2208988800, 0, 2208988800},
		{"UT 2001", extraExtTime, 1000000000, 2001, 1000000000},
		{"UX 2040", extraInfoZipUnix, 2208988800, 2040, 2208988800},
		{"UX 1960", extraInfoZipUnix, -315619200, 1980, -315619200},
	} {
		var extra []byte
		if c.id == extraExtTime {
			extra = binary.LittleEndian.AppendUint32([]byte{0x55, 0x54, 5, 0, 1}, uint32(c.v))
		} else {
			extra = binary.LittleEndian.AppendUint32([]byte{0x55, 0x58, 8, 0}, uint32(c.v))
			extra = binary.LittleEndian.AppendUint32(extra, uint32(c.v))
		}
		h := &stdzip.FileHeader{Name: "f", Extra: extra}
		if c.dos != 0 {
			// Modified would add the writer's own UT field after ours.
			//lint:ignore SA1019 the DOS time alone is wanted
			h.ModifiedTime, h.ModifiedDate = dos(c.dos)
		}
		var buf bytes.Buffer
		w := stdzip.NewWriter(&buf)
		if _, err := w.CreateHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Close()
		r, err := openBytes(t, buf.Bytes(), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Entries()[0].ModTime.Unix(); got != c.want {
			t.Errorf("%s: ModTime %d (%v), want %d", c.name, got, time.Unix(got, 0).UTC(), c.want)
		}
	}
}
