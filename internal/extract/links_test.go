package extract

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// A link target that passes through a symbolic link already present in
// the destination is resolved against the disk, not only lexically.
func TestSymlinkThroughExistingLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	cases := []struct {
		name     string
		existing map[string]string // link name → target, made before the run
		link     string
		target   string
		safe     bool
	}{
		{"absolute existing link", map[string]string{"ext": "/etc"}, "l", "ext/passwd", false},
		{"existing link to outside dir", map[string]string{"ext": "../outside"}, "l", "ext/secret", false},
		{"existing link climbing twice", map[string]string{"sub/up": "../.."}, "l", "sub/up/x", false},
		{"chain of existing links", map[string]string{"a": "b", "b": "c", "c": "../outside"}, "l", "a/x", false},
		{"existing link from a subdirectory", map[string]string{"ext": "../outside"}, "d/l", "../ext", false},
		{"existing link inside", map[string]string{"in": "sub"}, "l", "in/file", true},
		{"existing link to dot", map[string]string{"dot": "."}, "l", "dot/dot/file", true},
		{"link loop", map[string]string{"p": "q", "q": "p"}, "l", "p/x", false},
		{"missing component", map[string]string{}, "l", "nothing/here", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			os.MkdirAll(filepath.Join(f.dest, "sub"), 0o755)
			for name, target := range c.existing {
				if err := os.Symlink(target, filepath.Join(f.dest, name)); err != nil {
					t.Fatal(err)
				}
			}
			e := &archive.Entry{Name: c.link, Type: archive.TypeSymlink, LinkTarget: c.target}
			err := f.x.Write(e, strings.NewReader(""))
			if c.safe {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || f.exists(c.link) {
				t.Fatalf("accepted %s -> %s: %v", c.link, c.target, err)
			}
			// Nothing was created for it either.
			if f.exists("d") {
				t.Fatal("parent directory of the refused link left")
			}
		})
	}
}
