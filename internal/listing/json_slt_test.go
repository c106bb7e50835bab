package listing

import (
	stdtar "archive/tar"
	stdzip "archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/testenv"
)

// sltBlock is one block of a -slt listing: its keys in order and their
// values (continuation lines of a multi-line value joined with "\n").
type sltBlock struct {
	keys   []string
	values map[string]string
}

// parseSLT splits a -slt listing into the archive block and the entry
// blocks.
func parseSLT(t *testing.T, s string) (sltBlock, []sltBlock) {
	t.Helper()
	i := strings.Index(s, "\n--\n")
	j := strings.Index(s, "\n----------\n")
	if i < 0 || j < i {
		t.Fatalf("no archive block in\n%s", s)
	}
	parse := func(text string) []sltBlock {
		var blocks []sltBlock
		for _, para := range strings.Split(text, "\n\n") {
			if strings.TrimSpace(para) == "" {
				continue
			}
			b := sltBlock{values: map[string]string{}}
			last := ""
			for _, line := range strings.Split(strings.TrimSuffix(para, "\n"), "\n") {
				k, v, ok := strings.Cut(line, " = ")
				if !ok && strings.HasSuffix(line, " =") {
					k, v, ok = strings.TrimSuffix(line, " ="), "", true
				}
				if !ok {
					if last != "" {
						b.values[last] += "\n" + line // a comment's next line
					}
					continue
				}
				b.keys = append(b.keys, k)
				b.values[k] = v
				last = k
			}
			blocks = append(blocks, b)
		}
		return blocks
	}
	// An archive inside a container (a raw split) has the container's
	// block first, then "--" and its own: the last one is the archive's.
	i += strings.LastIndex(s[i:j], "\n--\n")
	head := parse(s[i+4 : j])
	if len(head) != 1 {
		t.Fatalf("%d archive blocks in\n%s", len(head), s)
	}
	return head[0], parse(s[j+len("\n----------\n"):])
}

// sltToJSON says where the JSON listing carries each -slt key, archive
// block and entry blocks apart: the JSON key ("" when the JSON listing
// carries it otherwise or not at all, with the reason).
var sltToJSON = map[string]string{
	// Archive block.
	"Path":            "path",
	"Type":            "", // garc's finer names in JSON ("rar4", not 7-Zip's "Rar")
	"Physical Size":   "physical_size",
	"Headers Size":    "headers_size",
	"Method":          "methods",
	"Solid":           "solid",
	"Blocks":          "blocks",
	"Streams":         "streams",
	"Cluster Size":    "cluster_size",
	"Characteristics": "characteristics",
	"Offset":          "sfx_offset",
	"Volumes":         "volumes",
	"Encrypted":       "encrypted_headers",
	"Locked":          "locked",
	"Recovery Record": "recovery_record",
	"Comment":         "comment",
	"CRC":             "crc32",
	"Code Page":       "", // always UTF-8: garc decodes every name to UTF-8
	// ZIP.
	"Embedded Stub Size":  "stub_size",
	"Tail Size":           "tail_size",
	"64-bit":              "zip64",
	"Total Physical Size": "physical_size",
	"Multivolume":         "", // a split set: "volumes" has its parts
	"Volume Index":        "", // the part named on the command line
}

// sltEntryToJSON is sltToJSON for the entry blocks.
var sltEntryToJSON = map[string]string{
	"Path":            "path",
	"Folder":          "type",
	"Size":            "size",
	"Packed Size":     "packed_size",
	"Modified":        "mtime",
	"Created":         "ctime",
	"Accessed":        "atime",
	"Attributes":      "", // 7-Zip's letters of "attributes": "windows_attributes" and "mode"
	"Mode":            "mode",
	"User":            "owner",
	"Group":           "group",
	"User ID":         "uid",
	"Group ID":        "gid",
	"Symbolic Link":   "link_target",
	"Hard Link":       "link_target",
	"Copy Link":       "link_target",
	"Characteristics": "characteristics",
	"Comment":         "comment",
	"Device Major":    "device_major",
	"Device Minor":    "device_minor",
	"CRC":             "crc32",
	"BLAKE2sp":        "blake2sp",
	"Encrypted":       "encrypted",
	"Solid":           "solid",
	"Split Before":    "split_before",
	"Split After":     "split_after",
	"Anti":            "anti",
	"Host OS":         "host_os_name",
	"Method":          "method",
	"Block":           "block",
	"Version":         "version_needed",
	"Volume Index":    "volume_index",
	"Offset":          "offset",
}

// jsonValue renders a decoded JSON value as -slt would.
func jsonValue(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case bool:
		return plusMinus(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case string:
		return v, true
	case []any:
		var s []string
		for _, x := range v {
			s = append(s, fmt.Sprint(x))
		}
		return strings.Join(s, " "), true
	}
	return fmt.Sprint(v), true
}

// sameValue compares the -slt value of key with what the JSON listing
// has under jkey in obj.
func sameValue(key, slt, jkey string, obj map[string]any) (string, bool) {
	raw, present := obj[jkey]
	got, _ := jsonValue(raw)
	switch {
	case key == "Folder":
		return got, plusMinus(got == "dir") == slt
	case key == "Host OS" && !present:
		// RAR: the family, which 7-Zip names as RAR does.
		return fmt.Sprint(obj["host_os"]), strings.EqualFold(obj["host_os"].(string), map[string]string{"Win32": "windows"}[slt]) ||
			strings.EqualFold(obj["host_os"].(string), slt)
	case key == "Method" && jkey == "methods":
		// 7-Zip names 7zAES without its cost in the archive block and
		// orders 7z coders by ID.
		// It also leaves out the properties of coders other than
		// LZMA and LZMA2 ("PPMD", "Delta") and LZMA's lc/lp/pb.
		have := func(w string) bool {
			for _, m := range strings.Fields(got) {
				if m == w || strings.HasPrefix(m, w+":") {
					return true
				}
			}
			return false
		}
		for _, w := range strings.Fields(slt) {
			if !have(w) {
				return got, false
			}
		}
		return got, true
	case key == "Path" && jkey == "path" && got != slt:
		// The archive inside a raw split is named without ".001".
		return got, filepath.Base(strings.TrimSuffix(got, ".001")) == slt
	case key == "Physical Size" && len(asSlice(obj["volumes"])) > 1:
		// A split set's: the size of the part named, which the JSON
		// listing does not single out ("physical_size" is the whole
		// set's, Total Physical Size).
		return got, true
	case key == "Volumes":
		return strconv.Itoa(len(raw.([]any))), slt == strconv.Itoa(len(raw.([]any)))
	case jkey == "mtime" || jkey == "ctime" || jkey == "atime":
		// -slt shows the stored precision in local time (UTC here).
		tm, err := time.Parse(time.RFC3339Nano, got)
		if err != nil {
			return got, false
		}
		full := tm.UTC().Format("2006-01-02 15:04:05.000000000")
		return full, strings.HasPrefix(full, strings.TrimRight(slt, "0"))
	case key == "Comment":
		// An entry's comment is on one line, its line feeds as '_'.
		return got, strings.TrimRight(got, "\n") == slt || strings.ReplaceAll(got, "\n", "_") == slt
	case jkey == "crc32" || jkey == "blake2sp":
		return got, strings.EqualFold(got, slt)
	case (jkey == "split_before" || jkey == "split_after" || jkey == "anti") && !present:
		return "absent", slt == "-"
	}
	return got, present && got == slt
}

// TestJSONCarriesSLT lists archives of every format garc reads with
// -slt and as JSON, and checks that the JSON listing carries each value
// the -slt listing shows, where sltToJSON and sltEntryToJSON say it
// does: method details (xz and .lzma methods, the zstd summary), checks
// (gzip's CRC, zstd's XXH64 bits), archive figures (headers size,
// blocks, streams, characteristics) and the per-format entry keys (7z
// block; ZIP characteristics, host, version, volume, offset; tar
// characteristics and devices).
func TestJSONCarriesSLT(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	payload := bytes.Repeat([]byte("some text of the JSON -slt test, repeated\n"), 3000)
	type sample struct {
		name string
		path func(t *testing.T) string // skips through testenv when missing
	}
	inTemp := func(name string, b []byte) sample {
		p := write(name, b)
		return sample{name, func(*testing.T) string { return p }}
	}
	samples := []sample{
		{"sample.7z", func(*testing.T) string { return filepath.Join("..", "..", "testdata", "sample.7z") }},
		inTemp("a.gz", gzipFile(t, payload)),
		inTemp("a.xz", xzFile(t, payload)),
		inTemp("a.lzma", lzmaFile(t, payload)),
		inTemp("a.zst", zstdFile(t, payload)),
		inTemp("a.zip", zipFile(t, payload)),
		inTemp("sfx64.zip", sfxZip64File(t, payload)),
		inTemp("a.tar", tarFile(t, payload)),
	}
	for _, p := range []string{
		"files/sharpcompress/Archives__Rar5.comment.rar",
		"files/sharpcompress/Archives__Rar5.crc_blake2.rar",
		"files/sharpcompress/Archives__Rar.multi.part01.rar",
		"files/libarchive/test_read_format_rar.rar",
	} {
		samples = append(samples, sample{filepath.Base(p), func(t *testing.T) string { return filepath.Join(testenv.CorpusRoot(t), p) }})
	}
	for _, s := range samples {
		t.Run(s.name, func(t *testing.T) {
			path := s.path(t)
			checkJSONCarriesSLT(t, path, nil, false)
		})
	}
}

// checkJSONCarriesSLT lists the archive at path with -slt and as JSON and
// checks that the JSON carries every -slt value where sltToJSON and
// sltEntryToJSON say it does.
// A corpus unit that does not open is skipped.
func checkJSONCarriesSLT(t *testing.T, path string, opts *archive.Options, isCorpusUnit bool) {
	t.Helper()
	r, err := opener.Open(path, opts)
	if err != nil {
		if isCorpusUnit {
			// Whether a corpus unit opens is the conformance harness's
			// question; here only listings are compared.
			t.Skipf("does not open: %v", err)
		}
		t.Fatal(err)
	}
	defer r.Close()
	info, all := r.Info(), r.Entries()
	if all == nil {
		all = []*archive.Entry{} // given, for the figures of an empty archive
	}
	every := func(*archive.Entry) bool { return true }
	var slt, js bytes.Buffer
	WriteSLT(&slt, path, info, all, every)
	j := NewJSONWriter(&js)
	j.BeginArchive(path, info, all...)
	for _, e := range all {
		j.Entry(e)
	}
	if err := j.EndArchive(nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Archive map[string]any   `json:"archive"`
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js.Bytes())
	}
	head, entries := parseSLT(t, slt.String())
	check := func(where string, b sltBlock, keys map[string]string, obj map[string]any) {
		for _, k := range b.keys {
			jk, known := keys[k]
			v := b.values[k]
			switch {
			case !known:
				t.Errorf("%s: -slt key %q has no place in the JSON listing", where, k)
			case jk == "" || v == "":
				// Not carried, or nothing to carry.
			case strings.Contains(v, "\n") || strings.Contains(v, `\`):
				// A comment of several lines or an escaped
				// name: rendered for the terminal.
			default:
				if got, ok := sameValue(k, v, jk, obj); !ok {
					t.Errorf("%s: -slt %q = %q, JSON %q = %q", where, k, v, jk, got)
				}
			}
		}
	}
	archiveKeys := sltToJSON
	if info.Format == "zstd" {
		// 7-Zip's Method of a zstd file is a summary of its
		// frame headers, its CRC the low XXH64 bits.
		archiveKeys = clone(sltToJSON)
		archiveKeys["Method"] = "method_summary"
		archiveKeys["CRC"] = ""
		if c := head.values["CRC"]; c != "" && !strings.EqualFold(fmt.Sprint(doc.Entries[0]["xxh64"]), c) {
			t.Errorf("-slt CRC = %s, JSON xxh64 = %v", c, doc.Entries[0]["xxh64"])
		}
	}
	check("archive", head, archiveKeys, doc.Archive)
	if len(entries) != len(doc.Entries) {
		t.Fatalf("%d -slt entries, %d JSON entries", len(entries), len(doc.Entries))
	}
	for i, b := range entries {
		keys := sltEntryToJSON
		if doc.Entries[i]["type"] == "symlink" && strings.HasPrefix(string(info.Format), "tar") {
			keys = clone(keys)
			keys["Size"] = "" // 7-Zip's size of a tar symlink is its target's length
		}
		check(fmt.Sprintf("entry %d (%v)", i, doc.Entries[i]["path"]), b, keys, doc.Entries[i])
	}
}

// TestJSONCarriesSLTCorpus is TestJSONCarriesSLT for every unit of the
// shared corpora that garc must read: 7z, RAR 1.4 to 5, ZIP, tar
// (plain and compressed) and the single streams.
func TestJSONCarriesSLTCorpus(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	for _, c := range []struct {
		name string
		root func(testing.TB) string
	}{{"corpus", testenv.CorpusRoot}, {"corpus-more", testenv.MoreCorpusRoot}} {
		t.Run(c.name, func(t *testing.T) {
			root := c.root(t)
			units, err := corpus.Units(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range units {
				if u.Expect != "ok" {
					continue
				}
				opts := &archive.Options{}
				if pw := u.Password; pw != "" {
					opts.Password = func() (string, error) { return pw, nil }
				}
				t.Run(u.Unit, func(t *testing.T) { checkJSONCarriesSLT(t, u.Path(root), opts, true) })
			}
		})
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func clone(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func gzipFile(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Name, w.Comment, w.OS = "stored-name.txt", "a comment", 11
	w.ModTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xzFile(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w, err := xz.WriterConfig{BlockSize: 32 << 10, DictCap: 1 << 16}.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func lzmaFile(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w, err := lzma.WriterConfig{DictCap: 1 << 20, Size: int64(len(data))}.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zstdFile is one checksummed frame after a skippable frame, which makes
// 7-Zip (and garc) walk every frame: sizes, blocks and the checksum are
// then listed.
func zstdFile(t *testing.T, data []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(data, nil)
	skip := []byte{0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}
	return append(skip, frame...)
}

func zipFile(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := stdzip.NewWriter(&b)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for _, h := range []*stdzip.FileHeader{
		{Name: "dir/", Method: stdzip.Store, Modified: mtime},
		{Name: "dir/deflated.txt", Method: stdzip.Deflate, Modified: mtime, Comment: "entry comment"},
		{Name: "stored.txt", Method: stdzip.Store, Modified: mtime},
	} {
		h.SetMode(0o644)
		if strings.HasSuffix(h.Name, "/") {
			h.SetMode(0o755 | os.ModeDir)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(h.Name, "/") {
			f.Write(data[:len(data)/3])
		}
	}
	w.SetComment("archive comment")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tarFile has GNU and pax headers, a long name, a symlink, a hard link
// and a character device.
func tarFile(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := stdtar.NewWriter(&b)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, h := range []*stdtar.Header{
		{Name: "d/", Typeflag: stdtar.TypeDir, Mode: 0o755, ModTime: mtime, Uname: "user", Gname: "group", Uid: 1000, Gid: 100, Format: stdtar.FormatGNU},
		{Name: "d/file.txt", Typeflag: stdtar.TypeReg, Mode: 0o644, ModTime: mtime, Size: int64(len(data)), Uname: "user", Gname: "group", Uid: 1000, Gid: 100, Format: stdtar.FormatGNU},
		{Name: "d/" + strings.Repeat("long-", 30) + "name", Typeflag: stdtar.TypeReg, Mode: 0o600, ModTime: mtime.Add(time.Second / 4), Size: 3, Format: stdtar.FormatPAX},
		{Name: "d/link", Typeflag: stdtar.TypeSymlink, Linkname: "file.txt", Mode: 0o777, ModTime: mtime, Format: stdtar.FormatUSTAR},
		{Name: "d/hard", Typeflag: stdtar.TypeLink, Linkname: "d/file.txt", Mode: 0o644, ModTime: mtime, Format: stdtar.FormatUSTAR},
		{Name: "d/tty", Typeflag: stdtar.TypeChar, Devmajor: 5, Devminor: 1, Mode: 0o620, ModTime: mtime, Format: stdtar.FormatUSTAR},
	} {
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write(data[:h.Size])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sfxZip64File is a ZIP archive after a 100-byte stub, its offsets
// counting the stub (as zip -A leaves a self-extractor), with a Zip64 end
// of central directory record and locator before the classic end record:
// 7-Zip lists Embedded Stub Size, 64-bit and Characteristics = Zip64.
func sfxZip64File(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	b.Write(bytes.Repeat([]byte("#!stub\n"), 100/7+1)[:100])
	w := stdzip.NewWriter(&b)
	w.SetOffset(100)
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	f, err := w.CreateHeader(&stdzip.FileHeader{Name: "a.txt", Method: stdzip.Deflate, Modified: mtime})
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return withZip64End(t, b.Bytes())
}

// withZip64End inserts a Zip64 end record and locator before the end
// record (without comment) of a ZIP archive whose offsets count from the
// start of the file.
func withZip64End(t *testing.T, z []byte) []byte {
	t.Helper()
	end := z[len(z)-22:]
	le := binary.LittleEndian
	if le.Uint32(end) != 0x06054b50 || le.Uint16(end[20:]) != 0 {
		t.Fatal("no end record without comment at the end")
	}
	count, cdSize, cdOff := le.Uint16(end[10:]), le.Uint32(end[12:]), le.Uint32(end[16:])
	rec := le.AppendUint32(nil, 0x06064b50)
	rec = le.AppendUint64(rec, 44)
	rec = le.AppendUint16(rec, 45)
	rec = le.AppendUint16(rec, 45)
	rec = le.AppendUint32(rec, 0)
	rec = le.AppendUint32(rec, 0)
	rec = le.AppendUint64(rec, uint64(count))
	rec = le.AppendUint64(rec, uint64(count))
	rec = le.AppendUint64(rec, uint64(cdSize))
	rec = le.AppendUint64(rec, uint64(cdOff))
	rec = le.AppendUint32(rec, 0x07064b50)
	rec = le.AppendUint32(rec, 0)
	rec = le.AppendUint64(rec, uint64(len(z)-22))
	rec = le.AppendUint32(rec, 1)
	out := append(append(append([]byte(nil), z[:len(z)-22]...), rec...), end...)
	return out
}
