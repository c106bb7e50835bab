package listing

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestSLT7zTimesMatch7zz compares -slt of 7z archives made without
// modification times (-mtm=off), with and without creation times, with
// 7zz's: 7-Zip always lists Modified, empty when not stored.
func TestSLT7zTimesMatch7zz(t *testing.T) {
	zz := testenv.SevenZip(t)
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	src := sltTree(t)
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"no-mtime.7z":        {"-mtm=off"},
		"ctime-only.7z":      {"-mtm=off", "-mtc=on"},
		"mtime-and-atime.7z": {"-mta=on"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			run(t, src, path, zz, append(append([]string{"a", "-bso0", path}, args...), "h", "d", "empty")...)
			checkSLTAs7zz(t, zz, path)
		})
	}
}

// TestSLT7zTimeKeys: a 7z entry lists Modified whether or not it has a
// modification time, and Created and Accessed when any entry of the
// archive has them, empty for the others.
func TestSLT7zTimeKeys(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	defer func() { time.Local = old }()
	ct := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	for _, c := range []struct {
		name    string
		entries []*archive.Entry
		want    string
	}{
		{"no times", []*archive.Entry{{Name: "a", Block: -1}},
			"Path = a\nSize = 0\nPacked Size = 0\nModified = \nEncrypted = -\nMethod = \nBlock = \n"},
		{"one creation time", []*archive.Entry{
			{Name: "a", Block: -1, Extra: &archive.EntryExtra{CreateTime: ct, UID: -1, GID: -1}},
			{Name: "b", Block: -1, ModTime: ct}},
			"Path = a\nSize = 0\nPacked Size = 0\nModified = \nCreated = 2024-05-06 07:08:09.1234567\nEncrypted = -\nMethod = \nBlock = \n\n" +
				"Path = b\nSize = 0\nPacked Size = 0\nModified = 2024-05-06 07:08:09.1234567\nCreated = \nEncrypted = -\nMethod = \nBlock = \n"},
	} {
		var b strings.Builder
		write7zSLTEntries(&b, c.entries, func(*archive.Entry) bool { return true })
		if got := strings.TrimSuffix(b.String(), "\n"); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
