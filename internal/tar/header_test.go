package tar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// rawHeader is a header block built field by field, with its checksum.
type rawHeader struct {
	name     string
	typeflag byte
	size     string // the raw 12-byte size field; octal of len(data) when empty
	data     string
	magic    string         // "ustar\x0000" when empty
	at       map[int]string // more bytes, by offset in the block
}

func (h rawHeader) bytes() []byte {
	b := make([]byte, blockSize)
	copy(b, h.name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	if h.size == "" {
		h.size = fmt.Sprintf("%011o\x00", len(h.data))
	}
	copy(b[124:], h.size)
	copy(b[136:], "14000000000\x00")
	b[156] = h.typeflag
	if h.magic == "" {
		h.magic = "ustar\x0000"
	}
	copy(b[257:], h.magic)
	for off, s := range h.at {
		copy(b[off:], s)
	}
	var sum int
	copy(b[148:], "        ")
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	data := make([]byte, (len(h.data)+blockSize-1)/blockSize*blockSize)
	copy(data, h.data)
	return append(b, data...)
}

// paxRecord formats one pax record, its length included.
func paxRecord(key, value string) string {
	n := len(key) + len(value) + 3
	for len(fmt.Sprint(n))+len(key)+len(value)+3 != n {
		n++
	}
	return fmt.Sprintf("%d %s=%s\n", n, key, value)
}

func tarOf(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestLenientHeaders covers what GNU tar and libarchive accept and
// archive/tar refused, and the damage that stays an error.
func TestLenientHeaders(t *testing.T) {
	zero := make([]byte, blockSize)
	trailer := append(make([]byte, blockSize-1), '\n')
	file := rawHeader{name: "f", typeflag: '0', data: "hello"}.bytes()
	sparseMap := "#!gnu-sparse-format\n#format:1.0\n1\n4\n3\n"
	for _, c := range []struct {
		name string
		tar  []byte
		want string // "name:size:content" of each file, or an error text
	}{
		{"one zero block ends the archive whatever follows", tarOf(file, zero, trailer), "f:5:hello"},
		{"size field with leading NULs is 0 (GNU tar)", tarOf(rawHeader{name: "e", typeflag: '0', size: "\x00\x00\x00\x00\x00\x00\x00" + "0016\x00"}.bytes()), "e:0:"},
		{"size field with garbage after the digits", tarOf(rawHeader{name: "e", typeflag: '0', size: "0000000001x\x00"}.bytes()), "invalid size field"},
		{"pax record without newline, unused key", tarOf(rawHeader{name: "P", typeflag: 'x', data: "4 x="}.bytes(), file), "f:5:hello"},
		{"pax path without newline", tarOf(rawHeader{name: "P", typeflag: 'x', data: "10 path=ab"}.bytes(), file), "without its newline"},
		{"pax path with NUL", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("path", "a\x00b")}.bytes(), file), "NUL in pax path"},
		{"pax path applied", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("path", "abc")}.bytes(), file), "abc:5:hello"},
		{"pax 1.0 sparse map with comment lines", tarOf(
			rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") + paxRecord("GNU.sparse.name", "sp") + paxRecord("GNU.sparse.realsize", "9")}.bytes(),
			rawHeader{name: "GNUSparseFile/sp", typeflag: '0', size: fmt.Sprintf("%011o\x00", blockSize+3),
				data: sparseMap + strings.Repeat("\x00", blockSize-len(sparseMap)) + "abc"}.bytes()),
			"sp:9:\x00\x00\x00\x00abc\x00\x00"},
		{"sparse map outside the real size", tarOf(
			rawHeader{name: "P", typeflag: 'x', data: paxRecord("GNU.sparse.major", "1") + paxRecord("GNU.sparse.minor", "0") + paxRecord("GNU.sparse.realsize", "5")}.bytes(),
			rawHeader{name: "sp", typeflag: '0', size: fmt.Sprintf("%011o\x00", blockSize+3),
				data: sparseMap + strings.Repeat("\x00", blockSize-len(sparseMap)) + "abc"}.bytes()),
			"invalid sparse map"},
		{"bad checksum", func() []byte { b := tarOf(file); b[0] = 'g'; return b }(), "checksum"},
		{"negative old GNU sparse real size (base-256)", tarOf(rawHeader{name: "s", typeflag: 'S', magic: "ustar  \x00", data: "abc",
			at: map[int]string{386: "00000000000\x0000000000003\x00", 483: "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe"}}.bytes()),
			"negative sparse real size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := listContents(c.tar)
			if err != nil {
				if !strings.Contains(err.Error(), c.want) || !errors.Is(err, archive.ErrFormat) {
					t.Fatalf("error %v, want %q", err, c.want)
				}
				return
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// listContents reads data as a plain tar and returns "name:size:content"
// of its files, separated by spaces.
func listContents(data []byte) (string, error) {
	r, err := Open(bytes.NewReader(data), int64(len(data)), 0, &archive.Options{Name: "t.tar"})
	if err != nil {
		return "", err
	}
	var out []string
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		b, err := io.ReadAll(rd)
		out = append(out, fmt.Sprintf("%s:%d:%s", e.Name, e.Size, b))
		return err
	})
	return strings.Join(out, " "), err
}

// TestParseNumber: octal with the quirks GNU tar accepts, base-256.
func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		field string
		want  int64
		ok    bool
	}{
		{"0000644\x00", 0o644, true},
		{"   644 ", 0o644, true},
		{"\x00 17\x00garbage", 0o17, true},
		{"\x00\x00\x0017", 0, true},
		{"", 0, true},
		{"64x", 0, false},
		{"\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00", 256, true},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe", -2, true},
		{"\x80\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 0, false},
	} {
		got, err := parseNumber([]byte(c.field), "test")
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("%q: %d, %v; want %d, ok %v", c.field, got, err, c.want, c.ok)
		}
	}
}

// TestTrailingSlashDirectory: a regular file entry whose name ends in a
// slash is a directory, whatever the header format, as GNU tar, bsdtar
// and 7-Zip read it; garc made a file of it (only V7 headers were
// converted) and then failed to create the files below it. Data it
// declares is skipped.
func TestTrailingSlashDirectory(t *testing.T) {
	zero := make([]byte, 2*blockSize)
	for _, c := range []struct {
		name string
		tar  []byte
	}{
		{"ustar '0'", tarOf(rawHeader{name: "d/", typeflag: '0'}.bytes())},
		{"ustar NUL", tarOf(rawHeader{name: "d/", typeflag: 0}.bytes())},
		{"pax path", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("path", "d/")}.bytes(), rawHeader{name: "x", typeflag: '0'}.bytes())},
		{"with data", tarOf(rawHeader{name: "d/", typeflag: '0', data: "skipped"}.bytes())},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := tarOf(c.tar, rawHeader{name: "d/f", typeflag: '0', data: "hello"}.bytes(), zero)
			r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar"})
			if err != nil {
				t.Fatal(err)
			}
			es := r.Entries()
			if len(es) != 2 || es[0].Type != archive.TypeDir || es[0].Size != 0 || es[1].Name != "d/f" || es[1].Size != 5 {
				for _, e := range es {
					t.Logf("%q type %v size %d", e.Name, e.Type, e.Size)
				}
				t.Fatalf("want the directory d/ and the file d/f")
			}
		})
	}
}

// TestExtensionsAs7Zip: the words 7zz l -slt puts after the encoding in a
// tar entry's Characteristics, in its order (checked against 7zz 26.02 on
// archives of GNU tar, bsdtar and Python's tarfile): base-256 fields, pax
// keys, old GNU sparse headers, and pax records 7-Zip does not read
// (xattrs, hdrcharset, GNU.sparse.*). garc left out all but the pax keys.
func TestExtensionsAs7Zip(t *testing.T) {
	gnu := "ustar  \x00"
	base256 := "\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01"
	for _, c := range []struct {
		name string
		tar  []byte
		want string
	}{
		{"pax mtime and xattr", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("mtime", "1.5") + paxRecord("SCHILY.xattr.user.a", "b")}.bytes(),
			rawHeader{name: "f", typeflag: '0'}.bytes()), "PAX mtime PAX_unsupported_line"},
		{"pax hdrcharset", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("hdrcharset", "BINARY")}.bytes(),
			rawHeader{name: "f", typeflag: '0'}.bytes()), "PAX PAX_unsupported_line"},
		{"pax path, size and owner", tarOf(rawHeader{name: "P", typeflag: 'x', data: paxRecord("path", "g") + paxRecord("size", "0") + paxRecord("uname", "u")}.bytes(),
			rawHeader{name: "f", typeflag: '0'}.bytes()), "PAX pax_path pax_size"},
		{"GNU long name", tarOf(rawHeader{name: "././@LongLink", typeflag: 'L', data: "long\x00", magic: gnu}.bytes(),
			rawHeader{name: "f", typeflag: '0', magic: gnu}.bytes()), "LongName"},
		{"base-256 mtime", tarOf(rawHeader{name: "f", typeflag: '0', magic: gnu, at: map[int]string{136: base256}}.bytes()), "bin_mtime"},
		{"old GNU sparse, base-256 real size", tarOf(rawHeader{name: "s", typeflag: 'S', magic: gnu, data: "abc",
			at: map[int]string{386: "00000000000\x0000000000003\x00", 483: base256[:11] + "\x05"}}.bytes()), "bin_size SPARSE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := tarOf(c.tar, make([]byte, 2*blockSize))
			r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar"})
			if err != nil {
				t.Fatal(err)
			}
			es := r.Entries()
			if len(es) != 1 {
				t.Fatalf("%d entries", len(es))
			}
			d := r.Info().Details.(*Details).Entry(es[0])
			if got := strings.Join(d.Extensions(), " "); got != c.want {
				t.Errorf("Extensions %q, want %q", got, c.want)
			}
		})
	}
}

// TestExtendedHeaderVariants: of consecutive pax headers before one entry
// the last applies alone (GNU tar, archive/tar and 7-Zip drop the
// earlier one's records; garc merged them, keeping the first one's
// mtime), and a Solaris 'X' header is a pax header (garc listed it as a
// file named …/PaxHeaders.N/… and lost the entry's name and time).
func TestExtendedHeaderVariants(t *testing.T) {
	file := rawHeader{name: "f", typeflag: '0', data: "abc"}.bytes()
	for _, c := range []struct {
		name               string
		tar                []byte
		wantName, wantTime string // the only entry's name and mtime (UTC)
		wantExt, wantCmt   string // Extensions and Comment, as 7zz -slt shows them
	}{
		{"two pax headers", tarOf(
			rawHeader{name: "PaxHeaders/f1", typeflag: 'x', data: paxRecord("path", "first") + paxRecord("mtime", "1000") + paxRecord("foo.bar", "x")}.bytes(),
			rawHeader{name: "PaxHeaders/f2", typeflag: 'x', data: paxRecord("path", "second") + paxRecord("baz.q", "y")}.bytes(), file),
			"second", "2021-01-14T08:25:36Z", "PAX:2 pax_path PAX_unsupported_line", "PaxHeaders/f2\nbaz.q=y\n"},
		{"the later sparse map alone", tarOf(
			rawHeader{name: "P1", typeflag: 'x', data: paxRecord("GNU.sparse.map", "0,1,5,2") + paxRecord("GNU.sparse.size", "8")}.bytes(),
			rawHeader{name: "P2", typeflag: 'x', data: paxRecord("path", "plain")}.bytes(), file),
			"plain", "2021-01-14T08:25:36Z", "PAX:2 pax_path", "P2\n"},
		{"Solaris X header", tarOf(
			rawHeader{name: "./PaxHeaders.123/f", typeflag: 'X', data: paxRecord("path", "solaris-name") + paxRecord("mtime", "1234567890.5") + paxRecord("SCHILY.dev", "5")}.bytes(), file),
			"solaris-name", "2009-02-13T23:31:30.5Z", "PAX mtime pax_path PAX_unsupported_line", "./PaxHeaders.123/f\nSCHILY.dev=5\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := tarOf(c.tar, make([]byte, 2*blockSize))
			r, err := Open(bytes.NewReader(b), int64(len(b)), 0, &archive.Options{Name: "t.tar"})
			if err != nil {
				t.Fatal(err)
			}
			es := r.Entries()
			if len(es) != 1 {
				for _, e := range es {
					t.Logf("entry %q", e.Name)
				}
				t.Fatalf("%d entries, want 1", len(es))
			}
			e := es[0]
			if got := e.ModTime.UTC().Format(time.RFC3339Nano); e.Name != c.wantName || got != c.wantTime || e.Size != 3 || e.IsSparse() {
				t.Errorf("entry %q mtime %s size %d sparse %v; want %q %s 3, not sparse", e.Name, got, e.Size, e.IsSparse(), c.wantName, c.wantTime)
			}
			d := r.Info().Details.(*Details).Entry(e)
			if got := strings.Join(d.Extensions(), " "); got != c.wantExt || e.Comment() != c.wantCmt {
				t.Errorf("Extensions %q, Comment %q; want %q, %q", got, e.Comment(), c.wantExt, c.wantCmt)
			}
		})
	}
}

// TestChecksumOK compares the word-at-a-time checksum with a byte-by-byte
// sum, unsigned and signed, over blocks of random bytes (high bytes
// included, in the checksum field too).
func TestChecksumOK(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	sums := func(b []byte) (unsigned, signed int64) {
		for i, c := range b[:blockSize] {
			if i >= 148 && i < 156 {
				c = ' '
			}
			unsigned += int64(c)
			signed += int64(int8(c))
		}
		return unsigned, signed
	}
	for i := range 2000 {
		block := make([]byte, blockSize)
		for j := range block {
			block[j] = byte(rng.Uint32())
			if i%3 == 0 {
				block[j] &= 0x7F
			}
		}
		unsigned, signed := sums(block)
		want := []int64{unsigned, signed, unsigned + 1, signed - 1}[i%4]
		if want < 0 {
			want = unsigned
		}
		copy(block[148:156], fmt.Sprintf("%07o\x00", want))
		ok := want == unsigned || want == signed
		if got := checksumOK(block); got != ok {
			t.Fatalf("block %d: checksumOK = %v, want %v (stored %d, sums %d and %d)", i, got, ok, want, unsigned, signed)
		}
	}
}
