//go:build linux || darwin || freebsd || netbsd || openbsd

package collect

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestItemOwner checks that an item carries the owner, link count,
// identity and blocks of the stat collect made (what a tar header and
// its hard-link and sparse checks need, without a second stat): of the
// file for a file and for a followed link, of the link itself for a
// stored one.
func TestItemOwner(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("d", 0o755)
	os.WriteFile("d/a", make([]byte, 5000), 0o644)
	os.Link("d/a", "d/b")
	os.Symlink("a", "d/l")
	want := func(t *testing.T, p string, lstat bool) Owner {
		var st syscall.Stat_t
		stat := syscall.Stat
		if lstat {
			stat = syscall.Lstat
		}
		if err := stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return Owner{OK: true, UID: int(st.Uid), GID: int(st.Gid), Nlink: uint64(st.Nlink),
			Dev: uint64(st.Dev), Ino: uint64(st.Ino), Blocks: int64(st.Blocks)}
	}
	for _, store := range []bool{false, true} {
		items, err := Collect(Options{Inputs: []string{"d"}, StoreSymlinks: store})
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]Item{}
		for _, it := range items {
			byName[it.Name] = it
		}
		for _, c := range []struct {
			name  string
			lstat bool
		}{{"d", false}, {"d/a", false}, {"d/b", false}, {"d/l", store}} {
			it, ok := byName[c.name]
			if !ok {
				t.Fatalf("store %v: %s not collected", store, c.name)
			}
			if w := want(t, filepath.FromSlash(c.name), c.lstat); it.Owner != w {
				t.Errorf("store %v: %s: Owner %+v, want %+v", store, c.name, it.Owner, w)
			}
		}
		if a, b := byName["d/a"].Owner, byName["d/b"].Owner; a.Nlink != 2 || a.Ino != b.Ino {
			t.Errorf("store %v: hard links d/a %+v and d/b %+v", store, a, b)
		}
	}
}
