package listing

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/stream"
)

// TestAppendJSONString checks the escaping of the JSON listing: valid
// JSON, C1 controls, format characters (bidirectional controls,
// zero-width characters) and U+2028/9 escaped, invalid bytes as lone
// surrogates, and different names never written the same.
func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain/name.txt", `"plain/name.txt"`},
		{"q\"b\\", `"q\"b\\"`},
		{"a\nb\tc\rd\x00\x1b\x7f", `"a\nb\tc\rd\u0000\u001b\u007f"`},
		{"c1\u0085\u009b", `"c1\u0085\u009b"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
		{"bad\xff\xfe", `"bad\udcff\udcfe"`},
		{"bad\ufffd", "\"bad\ufffd\""},
		{"тест €", `"тест €"`},
		{"trunc\xe2\x82", `"trunc\udce2\udc82"`},
		// Format characters: a name that displays as another.
		{"exe\u202etxt.exe", `"exe\u202etxt.exe"`},
		{"zw\u200b\u200d\u2066\u061c\ufeff\u00ad", `"zw\u200b\u200d\u2066\u061c\ufeff\u00ad"`},
		{"tag\U000e0041", `"tag\udb40\udc41"`},
		{"tag\U000e0041\xc1", `"tag\udb40\udc41\udcc1"`},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		got := string(appendJSONString(nil, tc.in))
		if got != tc.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("appendJSONString(%q) = %s is not JSON", tc.in, got)
		}
		if prev, ok := seen[got]; ok {
			t.Errorf("%q and %q both give %s", prev, tc.in, got)
		}
		seen[got] = tc.in
	}
}

// TestJSONSchemaDoc keeps SchemaDoc in step with the writer: every
// key the writer can produce is documented and every documented key is
// produced.
func TestJSONSchemaDoc(t *testing.T) {
	var b bytes.Buffer
	j := NewJSONWriter(&b)
	full := &archive.Info{Format: archive.Format7z, Volumes: []string{"v"}, Methods: []string{"m"}, Comment: "c"}
	omitted := &archive.Entry{Name: "o", Type: archive.TypeSymlink, Size: 5}
	j.BeginArchive("a.7z", full, omitted)
	j.Entry(omitted)
	j.Entry(&archive.Entry{
		Name: "n", Type: archive.TypeSymlink, LinkTarget: "t", Size: 1, Method: "m",
		ModTime: time.Unix(1, 0), Attributes: archive.AttrReadOnly, HasUnixMode: true, Mode: 0o644,
		HasCRC32: true, Anti: true, SplitBefore: true, SplitAfter: true,
		Extra: &archive.EntryExtra{CreateTime: time.Unix(1, 0), AccessTime: time.Unix(1, 0),
			UID: 1, GID: 1, Owner: "o", Group: "g", BLAKE2sp: []byte{1}, Comment: "c", Sparse: true},
	})
	j.EndArchive(nil)
	// The per-format keys: single streams' details as the stream reader
	// gives them, and ZIP and tar archives opened as garc opens them.
	for _, info := range []*archive.Info{
		{Format: "xz", Details: &stream.Details{Kind: stream.XZ, XZ: stream.XZDetails{Indexed: true, Streams: 1, Blocks: 2, MaxBlockSize: 9, FirstBlockFlags: 0x40}}},
		{Format: "zstd", Details: &stream.Details{Kind: stream.Zstd, Zstd: stream.ZstdDetails{Parsed: true, DataFrames: 1, ChecksumKnown: true}}},
		{Format: "gzip", Details: &stream.Details{Kind: stream.Gzip, Gzip: stream.GzipDetails{HeaderSize: 10}}},
	} {
		j.BeginArchive("s", info)
		j.Entry(&archive.Entry{Name: "s", Size: -1, Block: -1})
		j.EndArchive(nil)
	}
	payload := []byte("payload")
	for name, b := range map[string][]byte{"a.zip": zipFile(t, payload), "a.tar": tarFile(t, payload), "sfx64.zip": sfxZip64File(t, payload),
		"tail.zip": append(zipFile(t, payload), make([]byte, 1000)...)} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := opener.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		j.BeginArchive(path, r.Info(), r.Entries()...)
		for _, e := range r.Entries() {
			j.Entry(e)
		}
		j.EndArchive(nil)
		r.Close()
	}
	j.ArchiveError("b.7z", errors.New("broken"))
	produced := map[string]bool{}
	dec := json.NewDecoder(&b)
	for dec.More() {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		collectKeys(line, produced)
	}
	documented := map[string]bool{}
	// Keys are quoted names before a colon, alone or in a list sharing
	// one description ("uid", "gid": int).
	word := regexp.MustCompile(`"(\w+)"`)
	for _, m := range regexp.MustCompile(`(?:"\w+", )*"\w+":`).FindAllString(SchemaDoc, -1) {
		for _, k := range word.FindAllStringSubmatch(m, -1) {
			documented[k[1]] = true
		}
	}
	for k := range produced {
		if !documented[k] {
			t.Errorf("key %q is written but not documented in SchemaDoc", k)
		}
	}
	for k := range documented {
		if !produced[k] {
			t.Errorf("key %q is documented but never written", k)
		}
	}
}

func collectKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			keys[k] = true
			collectKeys(x, keys)
		}
	case []any:
		for _, x := range v {
			collectKeys(x, keys)
		}
	}
}

// TestJSONEntryAllocs checks that the JSON listing streams: writing an
// entry reuses the writer's buffer instead of building a document.
func TestJSONEntryAllocs(t *testing.T) {
	j := NewJSONWriter(io.Discard)
	j.BeginArchive("a.7z", &archive.Info{Format: archive.Format7z})
	e := &archive.Entry{Name: "dir/file.txt", Size: 10, Method: "LZMA2:24", ModTime: time.Unix(1e9, 0),
		HasUnixMode: true, Mode: 0o644, HasCRC32: true, CRC32: 0x12345678}
	if n := testing.AllocsPerRun(1000, func() { j.Entry(e) }); n > 2 {
		t.Errorf("%v allocations per entry", n)
	}
}

func TestJSONTime(t *testing.T) {
	tm := time.Date(2026, 1, 2, 3, 4, 5, 123456700, time.FixedZone("X", 3600))
	if got := jsonTime(tm); got != "2026-01-02T02:04:05.123456700Z" {
		t.Errorf("jsonTime = %q", got)
	}
	if got := jsonTime(time.Time{}); got != "" {
		t.Errorf("zero time = %q", got)
	}
	if _, err := time.Parse(time.RFC3339Nano, jsonTime(tm)); err != nil {
		t.Errorf("not RFC 3339: %v", err)
	}
}

// decodeJSONName reverses appendJSONString: JSON string escapes, with
// the lone surrogates \udc80–\udcff standing for single bytes.
func decodeJSONName(t *testing.T, q string) string {
	t.Helper()
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		t.Fatalf("%s is not a JSON string", q)
	}
	var b strings.Builder
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %s", q)
			}
			if v >= 0xd800 && v < 0xdc00 && strings.HasPrefix(s[i+5:], `\u`) {
				lo, err := strconv.ParseUint(s[i+7:i+11], 16, 32)
				if err != nil || lo < 0xdc00 || lo > 0xdfff {
					t.Fatalf("bad surrogate pair in %s", q)
				}
				b.WriteRune(utf16.DecodeRune(rune(v), rune(lo)))
				i += 6
			} else if v >= 0xdc80 && v <= 0xdcff {
				b.WriteByte(byte(v - 0xdc00))
			} else {
				b.WriteRune(rune(v))
			}
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// FuzzJSONName checks the JSON form of names: valid JSON, no raw control
// or format character (printable.Unsafe), and lossless: decoding gives
// the stored bytes back, so two different names never list the same.
func FuzzJSONName(f *testing.F) {
	f.Add("plain.txt")
	f.Add("bad\xff\xfe\u0085\x1b[2J")
	f.Add("\"\\\u2028\ufffd\xed\xa0\x80")
	f.Add("exe\u202etxt\U000e0041\xdc")
	f.Fuzz(func(t *testing.T, name string) {
		q := string(appendJSONString(nil, name))
		if !json.Valid([]byte(q)) {
			t.Fatalf("%q gives invalid JSON %s", name, q)
		}
		for _, r := range q {
			if printable.Unsafe(r) {
				t.Fatalf("%q gives %s with U+%04X", name, q, r)
			}
		}
		if back := decodeJSONName(t, q); back != name {
			t.Fatalf("%q gives %s, which reads back as %q", name, q, back)
		}
	})
}
