package cli

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// TestBackslashInNames (issue 23, point 15): Debian's systemd package
// holds lib/systemd/system/system-systemd\x2dcryptsetup.slice, which garc
// extracted as system-systemd/x2dcryptsetup.slice. A '\' is a character
// of a tar name and of a ZIP name written on Unix (as GNU tar, bsdtar
// and 7zz keep it); in a ZIP entry from a DOS or Windows host it
// separates (as unzip and Windows tools read it).
func TestBackslashInNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a '\\' cannot be part of a file name on Windows")
	}
	const slice = `lib/systemd/system/system-systemd\x2dcryptsetup.slice`
	dir := t.TempDir()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: slice, Mode: 0o644, Size: 5, Typeflag: tar.TypeReg})
	tw.Write([]byte("unit\n"))
	tw.WriteHeader(&tar.Header{Name: `lib/hard\link`, Linkname: slice, Mode: 0o644, Typeflag: tar.TypeLink})
	tw.WriteHeader(&tar.Header{Name: `lib/sym\link`, Linkname: `systemd\x2dlink`, Mode: 0o777, Typeflag: tar.TypeSymlink})
	tw.Close()

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, f := range []struct {
		name string
		host uint16
	}{{`unix\name.txt`, 3}, {`dos\dir\name.txt`, 0}, {`ntfs\name.txt`, 11}} {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.name, CreatorVersion: f.host<<8 | 20, Method: zip.Store})
		w.Write([]byte(f.name))
	}
	zw.Close()
	writeTree(t, dir, map[string]string{"s.tar": tb.String(), "n.zip": zb.String()})

	for _, c := range []struct {
		archive string
		want    []string // every path below the destination
	}{
		{"s.tar", []string{"lib", "lib/hard\\link", "lib/sym\\link", "lib/systemd", "lib/systemd/system", "lib/systemd/system/system-systemd\\x2dcryptsetup.slice"}},
		{"n.zip", []string{"dos", "dos/dir", "dos/dir/name.txt", "ntfs", "ntfs/name.txt", "unix\\name.txt"}},
	} {
		out := filepath.Join(dir, "out-"+c.archive)
		garc(t, dir, "", "x", c.archive, "-o", out, "-bd").expect(t, ExitOK, "x "+c.archive)
		if got := treePaths(t, out); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: extracted %q, want %q", c.archive, got, c.want)
		}
	}
	out := filepath.Join(dir, "out-s.tar")
	if b, err := os.ReadFile(filepath.Join(out, "lib", `hard\link`)); err != nil || string(b) != "unit\n" {
		t.Errorf(`lib/hard\link: %q, %v`, b, err)
	}
	if l, err := os.Readlink(filepath.Join(out, "lib", `sym\link`)); err != nil || l != `systemd\x2dlink` {
		t.Errorf(`lib/sym\link: links to %q, %v`, l, err)
	}
	// GNU tar extracts the same tree.
	if _, err := exec.LookPath("tar"); err == nil {
		gnu := filepath.Join(dir, "gnu")
		os.Mkdir(gnu, 0o755)
		if b, err := exec.Command("tar", "-xf", filepath.Join(dir, "s.tar"), "-C", gnu).CombinedOutput(); err != nil {
			t.Fatalf("tar -x: %v\n%s", err, b)
		}
		if g, w := treePaths(t, gnu), treePaths(t, out); strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("GNU tar made %q, garc %q", g, w)
		}
	}
}

// treePaths lists every path below root, slash-separated and sorted.
func treePaths(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
