package cli

import (
	stdzip "archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// `a -so -tzip` writes a ZIP archive to standard output, every entry with
// content followed by a data descriptor (the writer cannot go back to
// complete its local header), in every method and encryption: 7zz tests
// it, Info-ZIP unzip and Go's archive/zip read those it knows, garc reads
// it back from a pipe, and no file is written.
func TestZipToStdout(t *testing.T) {
	sevenZip := testenv.SevenZip(t)
	unzip := testenv.Tool(t, "unzip")
	dir := t.TempDir()
	tree := map[string]string{
		"d/a.txt":     strings.Repeat("numbers 12345\n", 4000),
		"d/sub/b.txt": "bee",
		"d/empty":     "",
	}
	writeTree(t, dir, tree)
	if err := os.Symlink("a.txt", filepath.Join(dir, "d/link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    []string
		unzipOK bool // Info-ZIP unzip knows the method
		goOK    bool // so does Go's archive/zip
	}{
		{nil, true, true},
		{[]string{"-mx0"}, true, true},
		{[]string{"-mx9"}, true, true},
		{[]string{"-mm=BZip2"}, true, false},
		{[]string{"-mm=LZMA"}, false, false},
		{[]string{"-mm=ZSTD"}, false, false},
		{[]string{"-mm=XZ"}, false, false},
		{[]string{"-psecret"}, false, false},
		{[]string{"-psecret", "-mem=ZipCrypto"}, true, false},
	}
	for _, tt := range tests {
		name := strings.Join(append([]string{"default"}, tt.args...), " ")
		t.Run(name, func(t *testing.T) {
			args := append([]string{"a", "-so", "-snl", "-tzip", "out.zip", "d"}, tt.args...)
			r := garc(t, dir, "", args...)
			r.expect(t, ExitOK, "a -so -tzip")
			if _, err := os.Stat(filepath.Join(dir, "out.zip")); err == nil {
				t.Fatal("a -so wrote out.zip")
			}
			arc := filepath.Join(t.TempDir(), "s.zip")
			os.WriteFile(arc, []byte(r.stdout), 0o644)

			zr, err := stdzip.NewReader(bytes.NewReader([]byte(r.stdout)), int64(len(r.stdout)))
			if err != nil {
				t.Fatalf("archive/zip: %v", err)
			}
			var names []string
			for _, f := range zr.File {
				names = append(names, f.Name)
				if !strings.HasSuffix(f.Name, "/") && f.Flags&0x8 == 0 {
					t.Errorf("%s: no data descriptor (flags %#x)", f.Name, f.Flags)
				}
				if tt.goOK {
					rc, err := f.Open()
					if err != nil {
						t.Fatalf("archive/zip %s: %v", f.Name, err)
					}
					b, err := io.ReadAll(rc)
					rc.Close()
					if want, ok := tree[f.Name]; err != nil || ok && string(b) != want {
						t.Errorf("archive/zip %s: %v, %d bytes", f.Name, err, len(b))
					}
				}
			}
			sort.Strings(names)
			if got := strings.Join(names, " "); got != "d/ d/a.txt d/empty d/link d/sub/ d/sub/b.txt" {
				t.Errorf("entries: %s", got)
			}
			if out, err := exec.Command(sevenZip, "t", "-psecret", arc).CombinedOutput(); err != nil {
				t.Errorf("7zz t: %v\n%s", err, out)
			}
			if tt.unzipOK {
				if out, err := exec.Command(unzip, "-tq", "-P", "secret", arc).CombinedOutput(); err != nil {
					t.Errorf("unzip -t: %v\n%s", err, out)
				}
			}
			// garc reads it back as it arrives from a pipe.
			out := t.TempDir()
			back := garc(t, out, r.stdout, "x", "-psecret", "-", "-o", out)
			back.expect(t, ExitOK, "x - of the piped ZIP")
			for p, want := range tree {
				if b, err := os.ReadFile(filepath.Join(out, p)); err != nil || string(b) != want {
					t.Errorf("x -: %s: %v", p, err)
				}
			}
			if target, err := os.Readlink(filepath.Join(out, "d/link")); err != nil || target != "a.txt" {
				t.Errorf("x -: d/link: %q, %v", target, err)
			}
		})
	}
}
