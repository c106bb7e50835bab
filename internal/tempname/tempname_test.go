package tempname

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for range 20 {
		f, p, err := Create(dir, os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if filepath.Dir(p) != dir || !Is(filepath.Base(p)) || seen[p] {
			t.Fatalf("bad or repeated temporary name %q", p)
		}
		seen[p] = true
	}
	for _, name := range []string{"x.tmp", ".garc-1", ".garc-.tmp", ".garc-123456789.tmp", ".garc-ABC.tmp", ".garc-notes.tmp", "a.garc-1.tmp"} {
		if Is(name) {
			t.Errorf("Is(%q)", name)
		}
	}
	if !Is(".garc-0.tmp") || !Is(".garc-deadbeef.tmp") {
		t.Fatal("Is accepts a name In never produces")
	}
}

func TestCreateDoesNotFollowLinks(t *testing.T) {
	if NoFollow == 0 {
		t.Skip("no O_NOFOLLOW on this system")
	}
	// A link at the chosen name must make the open fail, not write through it.
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	p := In(dir)
	if err := os.Symlink(target, p); err != nil {
		t.Skip("cannot create symlinks here")
	}
	if _, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|NoFollow, 0o600); err == nil {
		t.Fatal("opened through a symbolic link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("link target was created")
	}
}

// In names a file inside dir as filepath.Join does, with one allocation.
func TestIn(t *testing.T) {
	for _, dir := range []string{"", ".", "/", "/tmp", "/tmp/", "a/b", "a//b/../c"} {
		p := In(dir)
		if filepath.Dir(p) != filepath.Clean(dir) && !(dir == "" && filepath.Dir(p) == ".") {
			t.Errorf("In(%q) = %q: not in the directory", dir, p)
		}
		if base := filepath.Base(p); !Is(base) || filepath.Join(dir, base) != p {
			t.Errorf("In(%q) = %q, want filepath.Join(dir, %q)", dir, p, base)
		}
	}
	if n := testing.AllocsPerRun(100, func() { In("/some/dir") }); n > 1 {
		t.Errorf("%.1f allocations, want 1", n)
	}
}
