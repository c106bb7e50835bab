package extract

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// TestMetaOf checks, on every platform, which Windows attributes and
// creation time extraction restores from each format's record (applied
// on Windows by applyWindowsMeta).
func TestMetaOf(t *testing.T) {
	ctime := time.Date(2001, 2, 3, 4, 5, 6, 700, time.UTC)
	withCtime := &archive.EntryExtra{CreateTime: ctime, UID: -1, GID: -1}
	cases := []struct {
		name  string
		e     archive.Entry
		attrs uint32
		ok    bool
	}{
		{"7z from Windows: R H S A", archive.Entry{HostOS: archive.HostWindows, Attributes: 0x27}, 0x27, true},
		{"7z from Windows: only A", archive.Entry{HostOS: archive.HostWindows, Attributes: archive.AttrArchive}, archive.AttrArchive, true},
		{"7z from Windows: none", archive.Entry{HostOS: archive.HostWindows}, 0, true},
		{"7z directory: the D bit is the system's", archive.Entry{HostOS: archive.HostWindows, Type: archive.TypeDir, Attributes: archive.AttrDirectory | archive.AttrReadOnly}, archive.AttrReadOnly, true},
		{"compressed, sparse, not indexed: left", archive.Entry{HostOS: archive.HostWindows, Attributes: 0x800 | 0x200 | 0x2000 | archive.AttrHidden}, archive.AttrHidden, true},
		// 7-Zip's unix extension (p7zip, 7zz on Linux): the mode in the
		// high bits, the Windows bits below; the reader calls the
		// host Unix.
		{"7z unix extension, read-only mode", archive.Entry{HostOS: archive.HostUnix, HasUnixMode: true, Attributes: 0o100444<<16 | archive.AttrUnixExtension | archive.AttrArchive | archive.AttrReadOnly}, archive.AttrArchive | archive.AttrReadOnly, true},
		{"7z unix extension, hidden", archive.Entry{HostOS: archive.HostUnix, HasUnixMode: true, Attributes: 0o100644<<16 | archive.AttrUnixExtension | archive.AttrHidden}, archive.AttrHidden, true},
		// RAR from a Windows host, ZIP from MS-DOS: the attributes field,
		// the external attributes' low 16 bits.
		{"RAR Windows host", archive.Entry{HostOS: archive.HostWindows, Attributes: archive.AttrSystem | archive.AttrHidden}, archive.AttrSystem | archive.AttrHidden, true},
		{"ZIP MS-DOS host read-only", archive.Entry{HostOS: archive.HostWindows, Attributes: archive.AttrReadOnly | archive.AttrArchive}, archive.AttrReadOnly | archive.AttrArchive, true},
		// Unix hosts record a mode only (0x81a4 is 0o100644: its bit
		// 0x8000 is the file type, not the extension).
		// A unix mode gives read-only without the owner's write bit,
		// and files the archive bit every new Windows file has.
		{"RAR Unix host", archive.Entry{HostOS: archive.HostUnix, HasUnixMode: true, Mode: 0o644, Attributes: 0o100644}, archive.AttrArchive, true},
		{"ZIP Unix host read-only", archive.Entry{HostOS: archive.HostUnix, HasUnixMode: true, Mode: 0o444, Attributes: 0o100444}, archive.AttrArchive | archive.AttrReadOnly, true},
		{"tar directory", archive.Entry{Type: archive.TypeDir, HasUnixMode: true, Mode: fs.ModeDir | 0o755}, 0, true},
		{"tar read-only directory", archive.Entry{Type: archive.TypeDir, HasUnixMode: true, Mode: fs.ModeDir | 0o555}, archive.AttrReadOnly, true},
		{"no attributes, no mode", archive.Entry{HostOS: archive.HostUnknown}, 0, false},
	}
	for _, c := range cases {
		m := metaOf(&c.e)
		if m.attrs != c.attrs || m.ok != c.ok || !m.ctime.IsZero() {
			t.Errorf("%s: metaOf = %#x, %v, %v; want %#x, %v, no creation time", c.name, m.attrs, m.ok, m.ctime, c.attrs, c.ok)
		}
		c.e.Extra = withCtime
		if m := metaOf(&c.e); !m.ctime.Equal(ctime) {
			t.Errorf("%s: creation time %v, want %v", c.name, m.ctime, ctime)
		}
	}
}

// TestMapLinkTarget: with the Windows name mapping on, a relative link
// target's components are mapped as entry names are, so that the link
// leads to the file its target's entry became; "." and ".." stay, and
// absolute targets (--links=unsafe) are left alone. Without it (Unix)
// every target stays as stored.
func TestMapLinkTarget(t *testing.T) {
	cases := []struct{ in, windows string }{
		{"f.txt", "f.txt"},
		{"ab:c", "ab_c"},
		{"CON", "_CON"},
		{"../d/nul.txt", "../d/_nul.txt"},
		{"./x?y/dots...", "./x_y/dots___"},
		{"d/../CLOCK$", "d/../_CLOCK$"},
		{"a|b/", "a_b/"},
		{"/abs/CON", "/abs/CON"},
		{"C:/Windows/CON", "C:/Windows/CON"},
		{"c:CON", "c:CON"},
	}
	for _, sanitize := range []bool{false, true} {
		sanitizeNames = sanitize
		for _, c := range cases {
			want := c.in
			if sanitize {
				want = c.windows
			}
			if got := mapLinkTarget(c.in); got != want {
				t.Errorf("sanitize=%v: mapLinkTarget(%q) = %q, want %q", sanitize, c.in, got, want)
			}
		}
	}
	sanitizeNames = runtime.GOOS == "windows"
}

// TestSymlinkTargetMapped: the extractor makes a link to "ab:c" point at
// "ab_c", the file the entry "ab:c" became under the Windows mapping
// (shown here with Unix links; Windows' own need a privilege).
func TestSymlinkTargetMapped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows (and Wine makes none); TestMapLinkTarget covers the mapping")
	}
	sanitizeNames = true
	defer func() { sanitizeNames = runtime.GOOS == "windows" }()
	f := newFixture(t, Options{})
	if err := f.write(fileEntry("d/ab:c"), "content"); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Write(&archive.Entry{Name: "d/l", Type: archive.TypeSymlink, LinkTarget: "ab:c"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Write(&archive.Entry{Name: "con", Type: archive.TypeSymlink, LinkTarget: "d/ab:c"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	for link, want := range map[string]string{"d/l": "ab_c", "_con": "d/ab_c"} {
		got, err := os.Readlink(filepath.Join(f.dest, link))
		if err != nil || got != want {
			t.Errorf("%s -> %q (%v), want %q", link, got, err, want)
		}
		if s := f.read(link); s != "content" {
			t.Errorf("%s leads to %q", link, s)
		}
	}
}
