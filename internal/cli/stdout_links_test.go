package cli

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// TestStdoutLinks checks what -so writes for links, which is what 7zz x
// -so writes: a symbolic link's target in ZIP, 7z, tar (plain and
// compressed) and RAR 1.5–4.x, nothing for a hard link or a RAR5
// symbolic link (a header record beside empty data), and for a RAR5 file
// copy the content of the file it repeats (RAR cases from 7-Zip's
// sources: this 7zz reads no RAR).
func TestStdoutLinks(t *testing.T) {
	dir := t.TempDir()
	sz := testenv.SevenZip(t)

	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	fw, _ := zw.Create("f.txt")
	fw.Write([]byte("hello\n"))
	h := &zip.FileHeader{Name: "link"}
	h.SetMode(os.ModeSymlink | 0o777)
	lw, _ := zw.CreateHeader(h)
	lw.Write([]byte("f.txt"))
	zw.Close()

	var tbuf bytes.Buffer
	tw := tar.NewWriter(&tbuf)
	tw.WriteHeader(&tar.Header{Name: "f.txt", Mode: 0o644, Size: 6, Typeflag: tar.TypeReg})
	tw.Write([]byte("hello\n"))
	tw.WriteHeader(&tar.Header{Name: "link", Linkname: "f.txt", Mode: 0o777, Typeflag: tar.TypeSymlink})
	tw.WriteHeader(&tar.Header{Name: "hard", Linkname: "f.txt", Mode: 0o644, Typeflag: tar.TypeLink})
	tw.Close()
	var tgz bytes.Buffer
	gw := gzip.NewWriter(&tgz)
	gw.Write(tbuf.Bytes())
	gw.Close()

	writeTree(t, dir, map[string]string{"l.zip": zbuf.String(), "l.tar": tbuf.String(), "l.tar.gz": tgz.String(),
		"src/f.txt": "hello\n"})
	os.Symlink("f.txt", filepath.Join(dir, "src", "link"))
	cmd := exec.Command(sz, "a", "-snl", "-bd", "../l.7z", "f.txt", "link")
	cmd.Dir = filepath.Join(dir, "src")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz a -snl: %v\n%s", err, out)
	}

	for _, c := range []struct {
		arc      string
		patterns []string
		want     string
	}{
		{"l.zip", nil, "hello\nf.txt"},
		{"l.zip", []string{"link"}, "f.txt"},
		{"l.7z", nil, "hello\nf.txt"},
		{"l.7z", []string{"link"}, "f.txt"},
		{"l.tar", nil, "hello\nf.txt"},
		{"l.tar", []string{"hard"}, ""},
		{"l.tar", []string{"link"}, "f.txt"},
	} {
		args := append([]string{"x", "-so", c.arc}, c.patterns...)
		r := garc(t, dir, "", args...)
		r.expect(t, ExitOK, strings.Join(args, " "))
		if r.stdout != c.want {
			t.Errorf("%s: %q, want %q", strings.Join(args, " "), r.stdout, c.want)
		}
		cmd := exec.Command(sz, args...)
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || string(out) != c.want {
			t.Errorf("7zz %s: %q, %v; the test wants %q", strings.Join(args, " "), out, err, c.want)
		}
	}
	// A compressed tar is decoded in one pass, the links with it.
	r := garc(t, dir, "", "x", "-so", "l.tar.gz")
	r.expect(t, ExitOK, "x -so l.tar.gz")
	if r.stdout != "hello\nf.txt" {
		t.Errorf("x -so l.tar.gz: %q", r.stdout)
	}

	root := testenv.CorpusRoot(t)
	stest := func(n int) string { // rarfile's stest1.txt, repeated n times
		var b strings.Builder
		for range n {
			for i := range 512 {
				fmt.Fprintf(&b, "%03d\n", i)
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		arc      string
		patterns []string
		want     string
	}{
		{"rarfile/files__rar3-symlink-unix.rar", nil, "data.txtdata\n../random123"},
		{"rarfile/files__rar5-symlink-unix.rar", nil, "data\n"},
		{"rarfile/files__rar5-hlink.rar", nil, stest(1)},
		{"rarfile/files__rar5-dups.rar", nil, stest(9)},
		{"rarfile/files__rar5-dups.rar", []string{"stest3.txt"}, stest(1)},
		{"rarfile/files__rar5-dups.rar", []string{"stest2.txt", "stest9.txt"}, stest(2)},
	} {
		args := append([]string{"x", "-so", filepath.Join(root, "files", c.arc)}, c.patterns...)
		r := garc(t, dir, "", args...)
		r.expect(t, ExitOK, strings.Join(args, " "))
		if r.stdout != c.want {
			t.Errorf("x -so %s %q: %d bytes %.40q, want %d bytes %.40q", c.arc, c.patterns, len(r.stdout), r.stdout, len(c.want), c.want)
		}
	}
}

// TestCopySources covers the sources -so keeps for RAR5 file copies: a
// copy of a copy, a source beyond the bound (unsupported, not kept), and
// a copy whose source is missing.
func TestCopySources(t *testing.T) {
	defer func(m int64) { maxCopySources = m }(maxCopySources)
	maxCopySources = 8
	entries := []*archive.Entry{
		{Name: "a", Type: archive.TypeFile},
		{Name: "b", Type: archive.TypeCopy, LinkTarget: "a"},
		{Name: "c", Type: archive.TypeCopy, LinkTarget: "b"},
		{Name: "big", Type: archive.TypeFile},
		{Name: "d", Type: archive.TypeCopy, LinkTarget: "big"},
		{Name: "e", Type: archive.TypeCopy, LinkTarget: "none"},
	}
	c := newCopySources(entries, func(e *archive.Entry) bool { return e.Type == archive.TypeCopy })
	if c == nil || !c.want(entries[0]) || !c.want(entries[3]) {
		t.Fatal("the copies' sources are not selected")
	}
	for _, e := range entries {
		content := map[string]string{"a": "1234", "big": "123456789"}[e.Name]
		if _, err := io.ReadAll(c.keep(e, strings.NewReader(content))); err != nil {
			t.Fatal(err)
		}
		if e.Type != archive.TypeCopy {
			continue
		}
		data, err := c.source(e)
		switch e.Name {
		case "b", "c":
			if err != nil || string(data) != "1234" {
				t.Errorf("%s: %q, %v", e.Name, data, err)
			}
		case "d":
			if !errors.Is(err, archive.ErrUnsupported) {
				t.Errorf("copy beyond the bound: %v", err)
			}
		case "e":
			if !errors.Is(err, archive.ErrFormat) {
				t.Errorf("copy of a missing file: %v", err)
			}
		}
	}
}
