package sevenzip

import (
	"context"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// TestBackslashByAttributes (issue 23, point 15): 7z names separate with
// '/'. A '\' in an entry with a unix mode (written on Unix, where 7-Zip
// keeps it as a character: systemd's "system-systemd\x2dcryptsetup.slice")
// or without attributes stays; in an entry with Windows attributes only
// it came from a writer that kept Windows' separator, and separates.
func TestBackslashByAttributes(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	files := []testFile{
		{name: `unix\x2dname.slice`, data: []byte("u"), mode: 0o100644, mtime: t0},
		{name: `bare\name`, data: []byte("b"), noAttrs: true, mtime: t0},
	}
	its := items(files)
	win := (&testFile{name: `win\dir\file.txt`, data: []byte("w"), noAttrs: true, mtime: t0}).item()
	win.Attributes, win.HasAttributes = archive.AttrArchive, true
	its = append(its, win)
	var out memOutput
	if _, err := Write(context.Background(), &out, its, &WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ents, data := readBack(t, out.b, "")
	for name, content := range map[string]string{
		`unix\x2dname.slice`: "u",
		`bare\name`:          "b",
		"win/dir/file.txt":   "w",
	} {
		if _, ok := ents[name]; !ok || string(data[name]) != content {
			t.Errorf("no entry %q with %q (entries: %v)", name, content, entryNames(ents))
		}
	}
}

func entryNames(m map[string]*archive.Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
