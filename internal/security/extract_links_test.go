package security

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Under --links=safe a link whose target passes through a link already in
// the destination and leads outside is refused; --links=skip creates no
// directory for the links it skips (issue 11, item 11).
func TestLinkThroughExistingLinkRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	s := newSandbox(t)
	if err := os.MkdirAll(s.Dest, 0o755); err != nil {
		t.Fatal(err)
	}
	// A link the user (or an earlier --links=unsafe run) left there.
	if err := os.Symlink("../../../outside", filepath.Join(s.Dest, "ext")); err != nil {
		t.Fatal(err)
	}
	arc := make7z(t, []entrySpec{
		{name: "sub/link", content: "../ext/victim.txt", symlink: true},
		{name: "ok.txt", content: "fine"},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest)
	s.checkUnchanged(t, before, r)
	if r.code != 1 || !strings.Contains(r.stderr, "sub/link") {
		t.Errorf("exit %d, want 1 naming sub/link:\n%s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(s.Dest, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused link left its directory (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dest, "ok.txt")); err != nil || string(b) != "fine" {
		t.Errorf("ok.txt: %q %v", b, err)
	}

	// --links=skip: no directory for the skipped link either.
	s2 := newSandbox(t)
	r = runGarc(t, s2.Work, "x", arc, "-o", s2.Dest, "--links=skip")
	if r.code != 1 {
		t.Errorf("--links=skip: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(s2.Dest, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--links=skip created the skipped link's directory (%v)", err)
	}
}
