package listing

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/testenv"
)

// rawTar builds tar archives block by block, for headers the common
// writers do not make: pax times with trailing zeros, records 7-Zip does
// not read, global headers anywhere, ustar prefixes.
type rawTar struct{ b bytes.Buffer }

// header appends a ustar header block (name split at prefix when prefix
// is not empty) and size bytes of data.
func (r *rawTar) header(prefix, name string, typeflag byte, data string) {
	var h [512]byte
	copy(h[0:100], name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0001750\x00")
	copy(h[116:], "0001750\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", len(data)))
	copy(h[136:], fmt.Sprintf("%011o\x00", 1700000005))
	h[156] = typeflag
	copy(h[257:], "ustar\x0000")
	copy(h[265:], "user")
	copy(h[297:], "group")
	copy(h[345:], prefix)
	copy(h[148:], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	r.b.Write(h[:])
	r.b.WriteString(data)
	r.b.Write(make([]byte, -len(data)&511))
}

// pax appends an extended header of the given type ('x' or 'g') named
// name with the records "key=value".
func (r *rawTar) pax(typeflag byte, name string, records ...string) {
	var data strings.Builder
	for _, rec := range records {
		n := len(rec) + 3
		for len(fmt.Sprint(n))+len(rec)+2 != n {
			n++
		}
		fmt.Fprintf(&data, "%d %s\n", n, rec)
	}
	r.header("", name, typeflag, data.String())
}

func (r *rawTar) bytes() []byte { return append(r.b.Bytes(), make([]byte, 1024)...) }

// tarSamples are tar archives with 7-Zip's keys garc once left out:
// PREFIX, pax time fractions, the pax header's Comment, the global
// header's Comment and PAX_GLOBAL_ERROR.
func tarSamples() map[string][]byte {
	var times rawTar
	times.pax('x', "././@PaxHeader", "mtime=1700000005.0")
	times.header("", "zero-digit", '0', "a")
	times.pax('x', "././@PaxHeader", "mtime=1700000005.120", "atime=1700000005")
	times.header("", "three-digits", '0', "b")
	times.pax('x', "PaxHeaders/nine", "mtime=1700000005.123456789123", "ctime=1700000005.5")
	times.header("", "nine-digits", '0', "c")
	times.pax('x', "PaxHeaders/negative", "mtime=-5.25")
	times.header("", "negative", '0', "d")
	times.pax('x', "PaxHeaders/unread", "comment=hello", "mtime=1700000005.1234567", "SCHILY.xattr.user.x=v")
	times.header("", "unread-records", '0', "e")
	times.header(strings.Repeat("p", 40), strings.Repeat("n", 90), '0', "prefixed")

	var global rawTar
	global.pax('g', "pax_global_header", "comment=release 1.0", "foo=bar")
	global.header("", "a", '0', "a")

	var twoGlobals rawTar
	twoGlobals.pax('g', "pax_global_header", "comment=first")
	twoGlobals.header("", "a", '0', "a")
	twoGlobals.pax('x', "PaxHeaders/b", "mtime=1700000006")
	twoGlobals.pax('g', "second_global", "comment=second")
	twoGlobals.header("", "b", '0', "b")
	// Devices and FIFOs are listed as 7-Zip lists them (issue 23).
	var devices rawTar
	devices.header("", "fifo", '6', "")
	devices.header("", "chr", '3', "")
	devices.header("", "blk", '4', "")
	devices.header("", "file", '0', "f")
	return map[string][]byte{"pax-times.tar": times.bytes(), "global.tar": global.bytes(), "two-globals.tar": twoGlobals.bytes(),
		"devices.tar": devices.bytes()}
}

// TestSLTTarMatch7zz compares -slt of the tarSamples with 7zz's.
func TestSLTTarMatch7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	dir := t.TempDir()
	for name, data := range tarSamples() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			checkSLTAs7zz(t, zz, path)
		})
	}
}

// TestSLTTarKeys checks the tar keys of the tarSamples without 7zz.
func TestSLTTarKeys(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	samples := tarSamples()
	// Text from pax records that 7-Zip prints raw is escaped: BSD file
	// flags in Characteristics, the user, the group and the records
	// 7-Zip does not read in the Comment (issue 23).
	const evil = "\x1b]0;t\a\u009b2J\u202e\u200b\r"
	var hostile rawTar
	hostile.pax('x', "PaxHeaders/h"+evil, "SCHILY.fflags=nodump"+evil, "uname=u"+evil, "gname=g"+evil, "SCHILY.xattr.user.x=v"+evil)
	hostile.header("", "h"+evil, '0', "h")
	samples["hostile.tar"] = hostile.bytes()
	const escaped = `\x1b]0;t\a\u009b2J\u202e\u200b\r`
	type keys map[string]string
	for _, c := range []struct {
		archive string
		entry   string // "" for the archive block
		want    keys
	}{
		{"pax-times.tar", "", keys{"Characteristics": "POSIX PREFIX PAX mtime atime ctime ASCII", "Headers Size": "9216"}},
		{"pax-times.tar", "zero-digit", keys{"Modified": "2023-11-14 22:13:25.0", "Accessed": "", "Comment": "././@PaxHeader_",
			"Characteristics": "0 POSIX ASCII PAX mtime"}},
		{"pax-times.tar", "three-digits", keys{"Modified": "2023-11-14 22:13:25.120", "Accessed": "2023-11-14 22:13:25"}},
		{"pax-times.tar", "nine-digits", keys{"Modified": "2023-11-14 22:13:25.123456789", "Created": "2023-11-14 22:13:25.5"}},
		{"pax-times.tar", "negative", keys{"Modified": "1969-12-31 23:59:54.75"}},
		{"pax-times.tar", "unread-records", keys{"Modified": "2023-11-14 22:13:25.1234567",
			"Comment":         "PaxHeaders/unread_comment=hello_SCHILY.xattr.user.x=v_",
			"Characteristics": "0 POSIX ASCII PAX mtime PAX_unsupported_line"}},
		{"pax-times.tar", strings.Repeat("p", 40) + "/" + strings.Repeat("n", 90), keys{"Modified": "2023-11-14 22:13:25",
			"Comment": "", "Characteristics": "0 POSIX PREFIX ASCII"}},
		{"global.tar", "", keys{"Comment": "\n{\npax_global_header\ncomment=release 1.0\nfoo=bar\n}", "Characteristics": "POSIX ASCII",
			"Headers Size": "1536"}},
		{"global.tar", "a", keys{"Comment": "", "Characteristics": "0 POSIX ASCII"}},
		{"two-globals.tar", "", keys{"Comment": "\n{\nsecond_global\ncomment=second\n}", "Characteristics": "POSIX PAX mtime PAX_GLOBAL_ERROR ASCII"}},
		{"two-globals.tar", "b", keys{"Characteristics": "0 POSIX ASCII PAX:2 mtime"}},
		{"devices.tar", "fifo", keys{"Mode": "prw-r--r--", "Size": "0", "Characteristics": "6 POSIX ASCII"}},
		{"devices.tar", "chr", keys{"Mode": "crw-r--r--", "Characteristics": "3 POSIX ASCII"}},
		{"devices.tar", "blk", keys{"Mode": "brw-r--r--", "Characteristics": "4 POSIX ASCII"}},
		{"hostile.tar", "h" + escaped, keys{"Characteristics": "0 POSIX UTF8 MaxUnicode=8238 PAX SCHILY.fflags=nodump" + escaped + " PAX_unsupported_line",
			"User": "u" + escaped, "Group": "g" + escaped, "Comment": "PaxHeaders/h" + escaped + "_SCHILY.xattr.user.x=v" + escaped + "_"}},
	} {
		data := samples[c.archive]
		r, err := tar.Open(bytes.NewReader(data), int64(len(data)), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		WriteSLT(&b, c.archive, r.Info(), r.Entries(), func(*archive.Entry) bool { return true })
		head, entries := parseSLT(t, b.String())
		block := head
		if c.entry != "" {
			found := false
			for _, e := range entries {
				if e.values["Path"] == c.entry {
					block, found = e, true
				}
			}
			if !found {
				t.Errorf("%s: no entry %q in\n%s", c.archive, c.entry, b.String())
				continue
			}
		}
		for k, v := range c.want {
			if got, ok := block.values[k]; !ok || got != v {
				t.Errorf("%s %q: %s = %q, want %q", c.archive, c.entry, k, got, v)
			}
		}
	}
}
