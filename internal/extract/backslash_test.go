package extract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestBackslashIsPartOfName (issue 23, point 15): a '\' that reaches the
// extractor is a character of the entry's name (the format readers turn
// the separating ones into '/'). Debian's systemd package holds
// lib/systemd/system/system-systemd\x2dcryptsetup.slice, which garc wrote
// as system-systemd/x2dcryptsetup.slice. On Unix the name is kept; on
// Windows (sanitizeNames) the '\' becomes '_'. Names that looked hostile
// with '\' as a separator are one harmless name inside the destination.
func TestBackslashIsPartOfName(t *testing.T) {
	cases := []struct {
		name       string
		kept       string // where it lands on Unix
		sanitized  string // where it lands on Windows
		wantNotice bool
	}{
		{`lib/systemd/system/system-systemd\x2dcryptsetup.slice`, `lib/systemd/system/system-systemd\x2dcryptsetup.slice`,
			"lib/systemd/system/system-systemd_x2dcryptsetup.slice", false},
		{`w\x\y.txt`, `w\x\y.txt`, "w_x_y.txt", false},
		{`..\evil`, `..\evil`, ".._evil", false},
		{`a\..\..\evil`, `a\..\..\evil`, "a_.._.._evil", false},
		{`\\server\share\..\evil`, `\\server\share\..\evil`, "__server_share_.._evil", false},
		{`\evil`, `\evil`, "_evil", false},
		{`C:\..\evil`, `\..\evil`, "_.._evil", true}, // the drive letter goes
	}
	for _, sanitize := range []bool{false, true} {
		if !sanitize && runtime.GOOS == "windows" {
			continue // Windows reads a '\' in a path as a separator
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%q/sanitize=%v", c.name, sanitize), func(t *testing.T) {
				sanitizeNames = sanitize
				defer func() { sanitizeNames = runtime.GOOS == "windows" }()
				f := newFixture(t, Options{})
				if err := f.write(fileEntry(c.name), "data"); err != nil {
					t.Fatal(err)
				}
				if notices := len(f.warned); notices != 0 != c.wantNotice {
					t.Errorf("%d notices (%v)", notices, f.warnErr)
				}
				want := c.kept
				if sanitize {
					want = c.sanitized
				}
				dir, base := filepath.Split(filepath.Join(f.dest, filepath.FromSlash(want)))
				ents, err := os.ReadDir(dir)
				if err != nil || len(ents) != 1 || ents[0].Name() != base {
					t.Fatalf("%s holds %v (%v), want only %q", dir, ents, err, base)
				}
				if got := f.read(want); got != "data" {
					t.Fatalf("%s holds %q", want, got)
				}
				f.outsideUntouched()
			})
		}
	}
}

// TestBackslashInLinks: hard links name their target as entries name
// themselves, '\' included; a symbolic link's target keeps its '\' on
// Unix, where the kernel reads it as a character, and a name with '\'
// after a link "a" is a file beside the link, not a path through it.
func TestBackslashInLinks(t *testing.T) {
	f := newFixture(t, Options{Links: LinksUnsafe})
	if err := f.write(fileEntry(`d\x`), "content"); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Write(&archive.Entry{Name: "h", Type: archive.TypeHardlink, LinkTarget: `d\x`}, nil); err != nil || f.read("h") != "content" {
		t.Fatalf(`hard link to d\x: %v`, err)
	}
	if err := f.x.Write(&archive.Entry{Name: "h2", Type: archive.TypeHardlink, LinkTarget: "d/x"}, nil); !errors.Is(err, ErrRefused) {
		t.Fatalf("hard link to d/x, which is not an entry: %v", err)
	}
	if runtime.GOOS == "windows" {
		return // symbolic links need privileges on Windows
	}
	if err := f.x.Write(&archive.Entry{Name: "a", Type: archive.TypeSymlink, LinkTarget: f.outside}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.write(fileEntry(`a\y`), "beside"); err != nil || f.read(`a\y`) != "beside" {
		t.Fatalf(`a\y: %v`, err)
	}
	f.outsideUntouched()
	for _, pol := range []LinkPolicy{LinksSafe, LinksUnsafe} {
		g := newFixture(t, Options{Links: pol})
		if err := g.write(fileEntry(`x\y`), "target"); err != nil {
			t.Fatal(err)
		}
		if err := g.x.Write(&archive.Entry{Name: "l", Type: archive.TypeSymlink, LinkTarget: `x\y`}, nil); err != nil {
			t.Fatalf("%v: l -> x\\y: %v", pol, err)
		}
		if got, err := os.Readlink(filepath.Join(g.dest, "l")); err != nil || got != `x\y` {
			t.Errorf("%v: l links to %q (%v)", pol, got, err)
		}
		if got := g.read("l"); got != "target" {
			t.Errorf("%v: l leads to %q", pol, got)
		}
	}
}
