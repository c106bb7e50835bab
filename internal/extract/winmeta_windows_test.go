package extract

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/garc-dev/garc/internal/archive"
)

// attrsOf returns the Windows attributes of p.
func attrsOf(t *testing.T, p string) uint32 {
	t.Helper()
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := windows.GetFileAttributes(name)
	if err != nil {
		t.Fatalf("GetFileAttributes %s: %v", p, err)
	}
	return a
}

// createTimeOf returns the creation time of p.
func createTimeOf(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	d := fi.Sys().(*syscall.Win32FileAttributeData)
	return time.Unix(0, d.CreationTime.Nanoseconds())
}

// TestWindowsAttributesOnDisk extracts entries with Windows attributes
// and creation times: the files and directories get them (read-only,
// hidden, system, archive exactly as recorded), a read-only directory
// gets its attribute after its contents are written, an existing
// read-only file is replaced under OverwriteAll, and a Unix-host entry
// without write bits becomes read-only.
func TestWindowsAttributesOnDisk(t *testing.T) {
	ctime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	f := newFixture(t, Options{Overwrite: OverwriteAll})
	if err := os.MkdirAll(f.dest, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dest, "old.txt"), []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	win := func(name string, typ archive.EntryType, attrs uint32) *archive.Entry {
		e := &archive.Entry{Name: name, Type: typ, Size: -1, HostOS: archive.HostWindows, Attributes: attrs}
		e.MutableExtra().CreateTime = ctime
		return e
	}
	const R, H, S, A = archive.AttrReadOnly, archive.AttrHidden, archive.AttrSystem, archive.AttrArchive
	files := []struct {
		e     *archive.Entry
		attrs uint32
	}{
		{win("rhsa.txt", archive.TypeFile, R|H|S|A), R | H | S | A},
		{win("plain.txt", archive.TypeFile, 0), windows.FILE_ATTRIBUTE_NORMAL},
		{win("hidden.txt", archive.TypeFile, H|A), H | A},
		{win("old.txt", archive.TypeFile, A), A},
		{&archive.Entry{Name: "unix-ro.txt", Type: archive.TypeFile, Size: -1, HostOS: archive.HostUnix, HasUnixMode: true, Mode: 0o444, Attributes: 0o100444}, R | A},
		{win("rodir/inner.txt", archive.TypeFile, A), A},
	}
	if err := f.x.Write(win("rodir", archive.TypeDir, archive.AttrDirectory|R), nil); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Write(win("hdir", archive.TypeDir, archive.AttrDirectory|H), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range files {
		if err := f.write(c.e, "content of "+c.e.Name); err != nil {
			t.Fatalf("%s: %v", c.e.Name, err)
		}
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	// Windows reads attributes of none back as FILE_ATTRIBUTE_NORMAL;
	// Wine as FILE_ATTRIBUTE_ARCHIVE, which it gives every file whose
	// attributes it has not stored (README, "Windows"): the probe tells.
	none := filepath.Join(t.TempDir(), "none")
	if err := os.WriteFile(none, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	applyWindowsMeta(none, windowsMeta{ok: true})
	noneAttrs := attrsOf(t, none)
	for _, c := range files {
		p := filepath.Join(f.dest, filepath.FromSlash(c.e.Name))
		if c.attrs == windows.FILE_ATTRIBUTE_NORMAL {
			c.attrs = noneAttrs
		}
		if got := attrsOf(t, p) &^ windows.FILE_ATTRIBUTE_NOT_CONTENT_INDEXED; got != c.attrs {
			t.Errorf("%s: attributes %#x, want %#x", c.e.Name, got, c.attrs)
		}
		if got := f.read(c.e.Name); got != "content of "+c.e.Name {
			t.Errorf("%s holds %q", c.e.Name, got)
		}
	}
	if got := attrsOf(t, filepath.Join(f.dest, "hdir")); got&(H|windows.FILE_ATTRIBUTE_DIRECTORY) != H|windows.FILE_ATTRIBUTE_DIRECTORY {
		t.Errorf("hdir: attributes %#x, want hidden directory", got)
	}
	// Creation times: set where the file system keeps them (NTFS);
	// Wine's files on a Unix file system have none to set (README,
	// "Windows"), which the probe tells.
	if noneAttrs != windows.FILE_ATTRIBUTE_NORMAL && noneAttrs != windows.FILE_ATTRIBUTE_ARCHIVE {
		t.Errorf("a file of no attributes reads %#x", noneAttrs)
	}
	probe := filepath.Join(t.TempDir(), "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := setCreateTime(probe, ctime); err != nil {
		t.Fatalf("SetFileTime: %v", err)
	}
	if createTimeOf(t, probe).Equal(ctime) {
		for _, name := range []string{"rhsa.txt", "plain.txt", "hdir"} {
			if got := createTimeOf(t, filepath.Join(f.dest, name)); !got.Equal(ctime) {
				t.Errorf("%s: created %v, want %v", name, got, ctime)
			}
		}
	} else {
		t.Log("this file system keeps no creation time set by SetFileTime (Wine): creation times not compared")
	}
}

// TestWindowsReadOnlyDirectory: a read-only directory gets its attribute
// after its contents (Finish), so that its files are written first. Wine
// keeps no read-only attribute on directories; the probe tells.
func TestWindowsReadOnlyDirectory(t *testing.T) {
	f := newFixture(t, Options{})
	d := &archive.Entry{Name: "rodir", Type: archive.TypeDir, HostOS: archive.HostWindows, Attributes: archive.AttrDirectory | archive.AttrReadOnly}
	if err := f.x.Write(d, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.dest, "rodir")
	if got := attrsOf(t, p); got&windows.FILE_ATTRIBUTE_READONLY != 0 {
		t.Fatalf("read-only before its contents: %#x", got)
	}
	if err := f.write(fileEntry("rodir/f.txt"), "x"); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	if f.read("rodir/f.txt") != "x" {
		t.Error("rodir/f.txt not written")
	}
	probe := filepath.Join(t.TempDir(), "probe")
	os.Mkdir(probe, 0o755)
	applyWindowsMeta(probe, windowsMeta{attrs: archive.AttrReadOnly, ok: true})
	if attrsOf(t, probe)&windows.FILE_ATTRIBUTE_READONLY == 0 {
		t.Log("this file system keeps no read-only attribute on directories (Wine): not compared")
		return
	}
	if got := attrsOf(t, p); got&windows.FILE_ATTRIBUTE_READONLY == 0 {
		t.Errorf("rodir: attributes %#x, want read-only", got)
	}
}
