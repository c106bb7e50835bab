package security

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTarHeaderVariants: how x treats headers the attack review found
// read unlike GNU tar, bsdtar and 7-Zip (issue 23): a negative old GNU
// sparse real size is corrupt (exit 2; garc wrote a 0-byte file, exit
// 0); a directory named "" or "/" is the destination (exit 0; garc
// refused it, exit 1); a Solaris 'X' header is a pax header (garc
// extracted it as a file .../PaxHeaders.N/... and lost the entry's name
// and time); of two pax headers the later applies alone.
func TestTarHeaderVariants(t *testing.T) {
	headerTime := time.Unix(0o14000000000, 0) // tarBlock's mtime
	negative := oldGNUSparseHeader("neg", 0, 3, [][2]int64{{0, 3}}, false)
	copy(negative[483:], "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe") // base-256 -2
	setChecksum(negative)
	negative = append(negative, make([]byte, 512)...)
	copy(negative[512:], "abc")
	for _, c := range []struct {
		name  string
		tar   []byte
		code  int
		files map[string]time.Time // what dest holds: name → mtime
	}{
		{"negative sparse real size", negative, 2, map[string]time.Time{}},
		{"directory named \"\"", cat(tarBlock("", '5', nil), tarBlock("f", '0', []byte("x"))), 0, map[string]time.Time{"f": headerTime}},
		{"directory named /", cat(tarBlock("/", '5', nil), tarBlock("f", '0', []byte("x"))), 0, map[string]time.Time{"f": headerTime}},
		{"Solaris X header", cat(tarBlock("./PaxHeaders.123/f", 'X', paxRecords("path", "solaris-name", "mtime", "1234567890.5")),
			tarBlock("f", '0', []byte("x"))), 0, map[string]time.Time{"solaris-name": time.Unix(1234567890, 5e8)}},
		{"two pax headers", cat(tarBlock("P1", 'x', paxRecords("path", "first", "mtime", "1000")), tarBlock("P2", 'x', paxRecords("path", "second")),
			tarBlock("f", '0', []byte("x"))), 0, map[string]time.Time{"second": headerTime}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "h.tar"), cat(c.tar, make([]byte, 1024)), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runGarc(t, dir, "x", "-odest", "h.tar")
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s", r.code, c.code, r.stderr)
			}
			ents, _ := os.ReadDir(filepath.Join(dir, "dest"))
			got := map[string]time.Time{}
			for _, e := range ents {
				if fi, err := e.Info(); err == nil {
					got[e.Name()] = fi.ModTime()
				}
			}
			if len(got) != len(c.files) {
				t.Errorf("dest holds %v, want %v", got, c.files)
			}
			for name, mt := range c.files {
				if g, ok := got[name]; !ok || !g.Equal(mt) {
					t.Errorf("%s: mtime %v (present %v), want %v", name, g, ok, mt)
				}
			}
		})
	}
}

// gnuNumber is a numeric tar field of 12 bytes: octal, or base-256 when
// the value does not fit eleven octal digits (as GNU tar writes it).
func gnuNumber(v int64) string {
	if v < 1<<33 {
		return fmt.Sprintf("%011o\x00", v)
	}
	b := make([]byte, 12)
	b[0] = 0x80
	for i := 11; i > 0; i, v = i-1, v>>8 {
		b[i] = byte(v)
	}
	return string(b)
}

// oldGNUSparseHeader is the header block of an old GNU sparse entry
// (type 'S') of real size realSize with stored data bytes: its first
// four segments, and whether extension blocks follow.
func oldGNUSparseHeader(name string, realSize, data int64, segs [][2]int64, extended bool) []byte {
	b := make([]byte, 512)
	copy(b, name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], gnuNumber(data))
	copy(b[136:], "14000000000\x00")
	b[156] = 'S'
	copy(b[257:], "ustar  \x00")
	for i, s := range segs[:min(4, len(segs))] {
		copy(b[386+24*i:], gnuNumber(s[0])+gnuNumber(s[1]))
	}
	if extended {
		b[482] = 1
	}
	copy(b[483:], gnuNumber(realSize))
	setChecksum(b)
	return b
}

// setChecksum computes the checksum field of header block b.
func setChecksum(b []byte) {
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b[:512] {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
}

// cat joins byte slices.
func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
