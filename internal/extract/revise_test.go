package extract

import (
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// Revise turns a file written earlier in the run into what the archive
// said about it afterwards: a link (replacing the file, when the rules
// accept the target; else the file is removed and the link reported), a
// mode; entries not written are left alone.
func TestRevise(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and modes need Unix")
	}
	link := func(name, target string) *archive.Entry {
		return &archive.Entry{Name: name, Type: archive.TypeSymlink, HasCRC32: true, CRC32: crc32.ChecksumIEEE([]byte(target))}
	}
	for _, c := range []struct {
		name     string
		links    LinkPolicy
		entry    *archive.Entry
		content  string
		written  bool
		is       error
		wantLink string      // the link left, "" for none
		wantMode fs.FileMode // the file's mode, 0 when there is none
	}{
		{"link inside", LinksSafe, link("d/l", "../f"), "../f", true, nil, "../f", 0},
		{"absolute link", LinksSafe, link("d/l", "/etc/passwd"), "/etc/passwd", true, ErrRefused, "", 0},
		{"link out of the destination", LinksSafe, link("d/l", "../../x"), "../../x", true, ErrRefused, "", 0},
		{"absolute link, unsafe links", LinksUnsafe, link("d/l", "/etc/passwd"), "/etc/passwd", true, nil, "/etc/passwd", 0},
		{"links skipped", LinksSkip, link("d/l", "../f"), "../f", true, ErrSkipped, "", 0},
		{"content changed", LinksSafe, link("d/l", "../f"), "../g", true, ErrCreate, "", 0o644},
		{"mode", LinksSafe, &archive.Entry{Name: "d/l", Type: archive.TypeFile, Mode: 0o750, HasUnixMode: true}, "x", true, nil, "", 0o750 &^ processUmask()},
		{"mode through the umask", LinksSafe, &archive.Entry{Name: "d/l", Type: archive.TypeFile, Mode: 0o666, HasUnixMode: true}, "x", true, nil, "", 0o666 &^ processUmask()},
		{"not written", LinksSafe, link("d/l", "../f"), "", false, nil, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{Links: c.links})
			if err := f.write(fileEntry("f"), "target file"); err != nil {
				t.Fatal(err)
			}
			if c.written {
				if err := f.write(fileEntry("d/l"), c.content); err != nil {
					t.Fatal(err)
				}
			}
			err := f.x.Revise(c.entry)
			if c.is == nil && err != nil || c.is != nil && !errors.Is(err, c.is) {
				t.Fatalf("Revise: %v, want %v", err, c.is)
			}
			if err := f.x.Finish(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(f.dest, "d/l")
			fi, lerr := os.Lstat(p)
			switch {
			case c.wantLink != "":
				if target, _ := os.Readlink(p); target != c.wantLink {
					t.Errorf("link to %q, want %q (%v)", target, c.wantLink, lerr)
				}
			case c.wantMode != 0:
				if lerr != nil || fi.Mode() != c.wantMode {
					t.Errorf("mode %v (%v), want %v", fi.Mode(), lerr, c.wantMode)
				}
			case lerr == nil:
				t.Errorf("d/l is left (%v)", fi.Mode())
			}
			if len(f.temps()) != 0 {
				t.Errorf("temporaries left: %v", f.temps())
			}
			f.outsideUntouched()
		})
	}
}
