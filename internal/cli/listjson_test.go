package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// TestAppendJSONString checks the escaping of the JSON listing: valid
// JSON, C1 controls and U+2028/9 escaped, invalid bytes as lone
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

// TestJSONSchemaDoc keeps jsonSchemaDoc in step with the writer: every
// key the writer can produce is documented and every documented key is
// produced.
func TestJSONSchemaDoc(t *testing.T) {
	var b bytes.Buffer
	j := newJSONWriter(&b)
	full := &archive.Info{Format: archive.Format7z, Volumes: []string{"v"}, Methods: []string{"m"}, Comment: "c"}
	j.beginArchive("a.7z", full)
	j.entry(&archive.Entry{
		Name: "n", Type: archive.TypeSymlink, LinkTarget: "t", Size: 1, Method: "m",
		ModTime: time.Unix(1, 0), CreateTime: time.Unix(1, 0), AccessTime: time.Unix(1, 0),
		Attributes: archive.AttrReadOnly, HasUnixMode: true, Mode: 0o644, UID: 1, GID: 1, Owner: "o", Group: "g",
		HasCRC32: true, BLAKE2sp: []byte{1}, Anti: true, SplitBefore: true, SplitAfter: true, Comment: "c",
	})
	j.endArchive()
	j.archiveError("b.7z", errors.New("broken"))
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
	for _, m := range regexp.MustCompile(`(?:"\w+", )*"\w+":`).FindAllString(jsonSchemaDoc, -1) {
		for _, k := range word.FindAllStringSubmatch(m, -1) {
			documented[k[1]] = true
		}
	}
	for k := range produced {
		if !documented[k] {
			t.Errorf("key %q is written but not documented in jsonSchemaDoc", k)
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
	j := newJSONWriter(io.Discard)
	j.beginArchive("a.7z", &archive.Info{Format: archive.Format7z})
	e := &archive.Entry{Name: "dir/file.txt", Size: 10, Method: "LZMA2:24", ModTime: time.Unix(1e9, 0),
		HasUnixMode: true, Mode: 0o644, HasCRC32: true, CRC32: 0x12345678}
	if n := testing.AllocsPerRun(1000, func() { j.entry(e) }); n > 2 {
		t.Errorf("%v allocations per entry", n)
	}
}
