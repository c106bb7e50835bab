package cli

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/printable"
)

// hostile is a value for the field tag holding what a terminal obeys or
// shows deceptively: an OSC title ended by BEL, a CSI that clears the
// screen, a carriage return, the C1 CSI U+009B, DEL, the right-to-left
// override (so "exe.txt" displays for "txt.exe"), an isolate, zero-width
// characters, a byte order mark and the line separator. It starts and
// ends with ASCII, so its escaped form is found inside longer values.
func hostile(tag string) string {
	return tag + "\x1b]0;owned\a\x1b[2J\r\u009b31m\x7f\u202etxt.exe\u2066\u200b\u200d\ufeff\u00ad\u2028!"
}

// hostileLF is hostile with a line feed and a forged "Key = value" line.
func hostileLF(tag string) string { return hostile(tag) + "\nPath = forged!" }

// checkClean fails when out holds a byte that is not valid UTF-8 or a
// control or format character other than the line feed: what garc
// prints must show archive text escaped, whatever the field.
func checkClean(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == utf8.RuneError && !strings.HasPrefix(out[i:], "\ufffd") {
			t.Errorf("%s: invalid UTF-8 byte %#x at %d:\n%q", what, out[i], i, out)
			return
		}
		if r != '\n' && printable.Unsafe(r) {
			t.Errorf("%s: raw %U at %d:\n%q", what, r, i, out)
			return
		}
	}
}

// checkShows fails when out lacks the escaped form of a value.
func checkShows(t *testing.T, what, out string, values ...string) {
	t.Helper()
	for _, v := range values {
		if !strings.Contains(out, printable.String(v)) {
			t.Errorf("%s: %q is not shown as %q:\n%s", what, v, printable.String(v), out)
		}
	}
}

// checkJSON fails unless out is JSON Lines without a raw control or
// format character (not even a line feed inside a line) and its strings
// give the values back exactly.
func checkJSON(t *testing.T, what, out string, values ...string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		checkClean(t, what, line)
		if !json.Valid([]byte(line)) {
			t.Errorf("%s: not JSON: %s", what, line)
		}
	}
	var all []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil {
			all = appendStrings(all, v)
		}
	}
	joined := strings.Join(all, "\x00")
	for _, v := range values {
		if !strings.Contains(joined, v) {
			t.Errorf("%s: %q is not among the strings %q", what, v, all)
		}
	}
	for _, r := range []string{`\u202e`, `\u200b`, `\ufeff`, `\u2028`, `\u009b`, `\u001b`} {
		if len(values) > 0 && !strings.Contains(out, r) {
			t.Errorf("%s: no %s escape:\n%s", what, r, out)
		}
	}
}

// appendStrings appends every string of a decoded JSON value.
func appendStrings(all []string, v any) []string {
	switch v := v.(type) {
	case string:
		all = append(all, v)
	case []any:
		for _, x := range v {
			all = appendStrings(all, x)
		}
	case map[string]any:
		for _, x := range v {
			all = appendStrings(all, x)
		}
	}
	return all
}

// tarBlock is one ustar header block.
func tarBlock(name string, typ byte, size int64, link, uname, gname string, major, minor int64) []byte {
	b := make([]byte, 512)
	copy(b[0:100], name)
	octal := func(f []byte, v int64) { copy(f, fmt.Sprintf("%0*o", len(f)-1, v)) }
	octal(b[100:108], 0o644)
	octal(b[108:116], 1000)
	octal(b[116:124], 1000)
	octal(b[124:136], size)
	octal(b[136:148], 1700000000)
	b[156] = typ
	copy(b[157:257], link)
	copy(b[257:265], "ustar\x0000")
	copy(b[265:297], uname)
	copy(b[297:329], gname)
	if typ == '3' || typ == '4' {
		octal(b[329:337], major)
		octal(b[337:345], minor)
	}
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// tarData pads data to whole blocks.
func tarData(data []byte) []byte {
	return append(data, make([]byte, -len(data)&511)...)
}

// paxRecords is the data of a pax header of the records key=value.
func paxRecords(kv ...string) []byte {
	var b []byte
	for i := 0; i < len(kv); i += 2 {
		rec := " " + kv[i] + "=" + kv[i+1] + "\n"
		n := len(rec)
		for len(fmt.Sprint(n+len(fmt.Sprint(n)))) != len(fmt.Sprint(n)) {
			n++
		}
		n += len(fmt.Sprint(n))
		b = append(b, fmt.Sprint(n)+rec...)
	}
	return b
}

// hostileTar returns a tar whose every string field is hostile: a pax
// global header's name and comment record, an entry's pax header name,
// path, uname, gname, SCHILY.fflags and a record 7-Zip does not read (the
// entry's comment), a symbolic link's and a hard link's targets, a FIFO
// and a character device; and the values the listings must show.
func hostileTar() (tarball []byte, shown []string) {
	var b []byte
	global := paxRecords("comment", hostile("TG"))
	b = append(b, tarBlock(hostile("TGN"), 'g', int64(len(global)), "", "", "", 0, 0)...)
	b = append(b, tarData(global)...)
	pax := paxRecords("path", hostileLF("TN"), "uname", hostile("TU"), "gname", hostile("TR"),
		"SCHILY.fflags", hostile("TF"), "LIBARCHIVE.xattr.user.x", hostile("TX"))
	b = append(b, tarBlock(hostile("TPN"), 'x', int64(len(pax)), "", "", "", 0, 0)...)
	b = append(b, tarData(pax)...)
	b = append(b, tarBlock("plain", '0', 4, "", "u", "g", 0, 0)...)
	b = append(b, tarData([]byte("data"))...)
	b = append(b, tarBlock(hostile("TS"), '2', 0, hostile("TST"), "u", "g", 0, 0)...)
	b = append(b, tarBlock(hostile("TH"), '1', 0, hostile("TN"), "u", "g", 0, 0)...)
	b = append(b, tarBlock(hostile("TP"), '6', 0, "", "u", "g", 0, 0)...)
	b = append(b, tarBlock(hostile("TC"), '3', 0, "", "u", "g", 1, 3)...)
	b = append(b, tarBlock("raw\x9b\xff.txt", '0', 0, "", "u", "g", 0, 0)...)
	b = append(b, make([]byte, 1024)...)
	return b, []string{hostile("TG"), hostileLF("TN"), hostile("TU"), hostile("TR"), hostile("TF"), hostile("TX"),
		hostile("TS"), hostile("TST"), hostile("TH"), hostile("TP"), hostile("TC")}
}

// hostileZip returns a ZIP with a hostile archive comment, entry names
// (one not UTF-8), entry comment, a FIFO and an entry whose CRC is wrong.
func hostileZip(t *testing.T) (archive []byte, shown []string) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	if err := w.SetComment(hostile("ZC")); err != nil {
		t.Fatal(err)
	}
	add := func(fh *zip.FileHeader, data string) {
		f, err := w.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
	}
	file := &zip.FileHeader{Name: hostileLF("ZN"), Comment: hostile("ZE"), Method: zip.Deflate, Modified: time.Unix(1700000000, 0)}
	file.SetMode(0o644)
	add(file, "data")
	fifo := &zip.FileHeader{Name: hostile("ZP")}
	fifo.SetMode(fs.ModeNamedPipe | 0o644)
	add(fifo, "")
	link := &zip.FileHeader{Name: hostile("ZS")}
	link.SetMode(fs.ModeSymlink | 0o777)
	add(link, hostile("ZST"))
	add(&zip.FileHeader{Name: "raw\x9b\xff.txt", Method: zip.Store}, "x")
	bad := &zip.FileHeader{Name: hostile("ZBAD"), Method: zip.Store, CRC32: 1, CompressedSize64: 4, UncompressedSize64: 4, Flags: 0x800}
	f, err := w.CreateRaw(bad)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("data"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), []string{hostile("ZC"), hostileLF("ZN"), hostile("ZE"), hostile("ZP"), hostile("ZS"), hostile("ZBAD")}
}

// rar5 builds RAR5 archives header by header (the RAR 5.0 format
// description: vint fields, each header preceded by the CRC32 of its
// size and fields), with stored data only.
type rar5 struct{ b []byte }

func rar5Vint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// header appends a header of type typ with fields after the header
// flags, an extra area and a data area (nil: none).
func (r *rar5) header(typ uint64, fields, extra, data []byte) {
	h := rar5Vint(nil, typ)
	var flags uint64
	if len(extra) > 0 {
		flags |= 1
	}
	if data != nil {
		flags |= 2
	}
	h = rar5Vint(h, flags)
	if len(extra) > 0 {
		h = rar5Vint(h, uint64(len(extra)))
	}
	if data != nil {
		h = rar5Vint(h, uint64(len(data)))
	}
	h = append(append(h, fields...), extra...)
	sized := append(rar5Vint(nil, uint64(len(h))), h...)
	r.b = binary.LittleEndian.AppendUint32(r.b, crc32.ChecksumIEEE(sized))
	r.b = append(append(r.b, sized...), data...)
}

// file appends a file (typ 2) or service (typ 3) header of a unix host,
// stored, with the CRC32 crc and extra records.
func (r *rar5) file(typ uint64, name string, mode uint64, data []byte, crc uint32, extra ...[]byte) {
	f := rar5Vint(nil, 0x2|0x4) // mtime and CRC32 present
	f = rar5Vint(f, uint64(len(data)))
	f = rar5Vint(f, mode)
	f = binary.LittleEndian.AppendUint32(f, 1700000000)
	f = binary.LittleEndian.AppendUint32(f, crc)
	f = rar5Vint(f, 0) // version 0, not solid, stored
	f = rar5Vint(f, 1) // unix
	f = rar5Vint(f, uint64(len(name)))
	f = append(f, name...)
	var x []byte
	for _, rec := range extra {
		x = append(rar5Vint(x, uint64(len(rec))), rec...)
	}
	r.header(typ, f, x, data)
}

// rar5Record is an extra record of type typ.
func rar5Record(typ uint64, fields ...[]byte) []byte {
	b := rar5Vint(nil, typ)
	for _, f := range fields {
		b = append(b, f...)
	}
	return b
}

// rar5Str is a vint length and the string.
func rar5Str(s string) []byte { return append(rar5Vint(nil, uint64(len(s))), s...) }

// hostileRAR returns a RAR5 archive with a hostile comment, names, owner
// and group, symbolic link target, hard link target, FIFO and an entry
// whose CRC is wrong.
func hostileRAR() (archive []byte, shown []string) {
	r := &rar5{b: []byte("Rar!\x1a\x07\x01\x00")}
	r.header(1, rar5Vint(nil, 0), nil, nil)
	comment := []byte(hostile("RC"))
	r.file(3, "CMT", 0o644, comment, crc32.ChecksumIEEE(comment))
	owner := rar5Record(6, rar5Vint(nil, 3), rar5Str(hostile("RU")), rar5Str(hostile("RG")))
	data := []byte("data")
	r.file(2, hostileLF("RN"), 0o100644, data, crc32.ChecksumIEEE(data), owner)
	r.file(2, hostile("RS"), 0o120777, nil, 0, rar5Record(5, rar5Vint(nil, 1), rar5Vint(nil, 0), rar5Str(hostile("RST"))))
	r.file(2, hostile("RH"), 0o100644, nil, 0, rar5Record(5, rar5Vint(nil, 4), rar5Vint(nil, 0), rar5Str(hostileLF("RN"))))
	r.file(2, hostile("RP"), 0o010644, nil, 0)
	r.file(2, hostile("RBAD"), 0o100644, data, 1)
	r.header(5, rar5Vint(nil, 0), nil, nil)
	return r.b, []string{hostile("RC"), hostileLF("RN"), hostile("RU"), hostile("RG"), hostile("RS"), hostile("RST"), hostile("RH"), hostile("RP"), hostile("RBAD")}
}

// TestHostileTextEscaped runs every command that prints archive text on
// archives of every format whose every string field carries terminal
// controls and format characters: names, link targets, comments,
// owners, groups, pax records and BSD file flags, and the error text
// that names them. The table, -slt, lb, -ba, t and its summary, the -bb
// lines of t, x and a, the progress display, the diagnostics and the
// JSON listing (issue 23, points 5 and 6) show them escaped, never raw;
// the human listings show each as printable.String gives it, the JSON
// listing gives each back exactly.
func TestHostileTextEscaped(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tarball, tarShown := hostileTar()
	zipped, zipShown := hostileZip(t)
	rared, rarShown := hostileRAR()
	// The archives' own names are hostile too.
	arcName := func(ext string) string { return hostile("A") + ext }
	// A 7z made by garc from files with hostile names on disk, one a
	// symbolic link with a hostile target.
	src := filepath.Join(dir, "src")
	writeTree(t, src, map[string]string{hostileLF("SN"): "data", hostile("SD") + "/" + hostile("SF"): "more"})
	if err := os.Symlink(hostile("SLT"), filepath.Join(src, hostile("SL"))); err != nil {
		t.Fatal(err)
	}
	create := garc(t, dir, "", "a", "-snl", "-bb1", arcName(".7z"), "src")
	create.expect(t, ExitOK, "a -bb1")
	checkClean(t, "a -bb1 stdout", create.stdout)
	checkClean(t, "a -bb1 stderr", create.stderr)
	checkShows(t, "a -bb1", create.stdout+create.stderr, hostileLF("SN"), hostile("SF"))
	sevenShown := []string{hostileLF("SN"), hostile("SD"), hostile("SF"), hostile("SL")}

	// The table shows names, link targets and the archive comment; -slt
	// shows owners, groups, entry comments and pax records as well.
	formats := []struct {
		ext, name string   // the extension, a hostile entry name
		shown     []string // values every listing of the format shows
		slt       []string // values only -slt and JSON show
	}{
		{".tar", hostileLF("TN"), []string{tarShown[0], tarShown[1], tarShown[6], tarShown[7], tarShown[8], tarShown[9], tarShown[10]}, tarShown[2:6]},
		{".zip", hostileLF("ZN"), []string{zipShown[0], zipShown[1], zipShown[3], zipShown[4], zipShown[5]}, zipShown[2:3]},
		{".rar", hostileLF("RN"), []string{rarShown[0], rarShown[1], rarShown[4], rarShown[5], rarShown[6], rarShown[7], rarShown[8]}, rarShown[2:4]},
		{".7z", hostileLF("SN"), sevenShown, nil},
	}
	write(arcName(".tar"), tarball)
	write(arcName(".zip"), zipped)
	write(arcName(".rar"), rared)
	// A compressed tar cut inside the data of an entry with a hostile
	// name, for the error text.
	var cut bytes.Buffer
	zw := gzip.NewWriter(&cut)
	zw.Write(append(tarBlock(hostile("TCUT"), '0', 4096, "", "u", "g", 0, 0), make([]byte, 100)...))
	zw.Close()
	write(arcName("-cut.tar.gz"), cut.Bytes())

	for _, f := range formats {
		arc := arcName(f.ext)
		t.Run(f.ext[1:], func(t *testing.T) {
			run := func(args ...string) result {
				r := garc(t, dir, "", args...)
				what := strings.Join(args, " ")
				checkClean(t, what+" stdout", r.stdout)
				checkClean(t, what+" stderr", r.stderr)
				return r
			}
			table := run("l", arc)
			table.expect(t, ExitOK, "l")
			checkShows(t, "l", table.stdout, append([]string{arc}, f.shown...)...)
			slt := run("l", "-slt", arc)
			slt.expect(t, ExitOK, "l -slt")
			checkShows(t, "l -slt", slt.stdout, append(append([]string{arc}, f.shown...), f.slt...)...)
			if strings.Contains(slt.stdout, "\nPath = forged!") || strings.Contains(table.stdout, "\nPath = forged!") {
				t.Errorf("a line feed in a value forged a line:\n%s", slt.stdout)
			}
			js := garc(t, dir, "", "l", "--format=json", arc)
			js.expect(t, ExitOK, "l --format=json")
			checkJSON(t, "l --format=json", js.stdout, append(append([]string{arc}, f.shown...), f.slt...)...)
			checkClean(t, "l --format=json stderr", js.stderr)
			names := run("lb", arc)
			checkShows(t, "lb", names.stdout, f.name)
			run("l", "-ba", arc)
			test := run("t", arc)
			checkShows(t, "t", test.stderr, arc)
			run("t", "-bb1", arc)
			// The progress display's own sequences (carriage return,
			// erase to the end of the line) are its; a name shows
			// escaped.
			bar := garc(t, dir, "", "t", "--progress=always", arc)
			checkClean(t, "t --progress=always", strings.NewReplacer("\r", "", "\x1b[K", "").Replace(bar.stderr))
			run("x", "-bb1", arc, "-o", filepath.Join(dir, "out"+f.ext))
		})
	}

	// The errors name hostile entries and archives: on stderr and in
	// the JSON listing's "error", escaped.
	for _, c := range []struct {
		arc, entry string
		args       []string
	}{
		{arcName(".zip"), hostile("ZBAD"), []string{"t"}},
		{arcName(".rar"), hostile("RBAD"), []string{"t"}},
		{arcName("-cut.tar.gz"), hostile("TCUT"), []string{"t"}},
		{arcName("-cut.tar.gz"), hostile("TCUT"), []string{"x", "-o", filepath.Join(dir, "cut")}},
	} {
		r := garc(t, dir, "", append(c.args, c.arc)...)
		what := strings.Join(c.args, " ") + " " + c.arc
		if r.code == ExitOK {
			t.Errorf("%s: exit 0", what)
		}
		checkClean(t, what+" stdout", r.stdout)
		checkClean(t, what+" stderr", r.stderr)
		checkShows(t, what+" stderr", r.stderr, c.arc, c.entry)
	}
	js := garc(t, dir, "", "l", "--format=json", arcName("-cut.tar.gz"))
	checkJSON(t, "l --format=json of a cut tar", js.stdout, hostile("TCUT"))
	checkClean(t, "l --format=json of a cut tar: stderr", js.stderr)
	if !strings.Contains(js.stdout, `"error":`) || !strings.Contains(js.stdout, `\u202e`) {
		t.Errorf("l --format=json of a cut tar: %s", js.stdout)
	}

	// A wildcard that matches hostile archive names: the diagnostics
	// and the test summary name them escaped.
	r := garc(t, dir, "", "t", "*.zip")
	checkClean(t, "t *.zip", r.stdout+r.stderr)
	checkShows(t, "t *.zip", r.stderr, arcName(".zip"))
}
