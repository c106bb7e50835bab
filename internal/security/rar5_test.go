package security

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// linksFixture is a RAR5 archive of the corpus made for this purpose: its
// symbolic link targets are placeholders ("aaaaaaaaa", "bbbbbbbbb",
// "ccccccccc", 9 bytes each), a hard link h-hard.txt points at
// h-file.txt, and a file dqqq/evil.txt follows a link dlnk -> ".".
const linksFixture = "files/junrar/com__github__junrar__links__rar5-links-hostile.rar"

// rar5Vint reads a RAR5 variable-length integer.
func rar5Vint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// patchRAR5 replaces byte strings of the same length (each must occur
// exactly once) and recomputes every header CRC32.
func patchRAR5(t *testing.T, data []byte, repl [][2]string) []byte {
	t.Helper()
	data = bytes.Clone(data)
	for _, r := range repl {
		if len(r[0]) != len(r[1]) {
			t.Fatalf("patch %q -> %q changes the length", r[0], r[1])
		}
		if bytes.Count(data, []byte(r[0])) != 1 {
			t.Fatalf("%q does not occur exactly once in the fixture", r[0])
		}
		i := bytes.Index(data, []byte(r[0]))
		copy(data[i:], r[1])
	}
	pos := 8
	for pos+5 < len(data) {
		size, n := rar5Vint(data[pos+4:])
		if n == 0 {
			t.Fatal("bad header size in the fixture")
		}
		hdr := data[pos+4+n : pos+4+n+int(size)]
		typ, k := rar5Vint(hdr)
		flags, k2 := rar5Vint(hdr[k:])
		k += k2
		if flags&1 != 0 {
			_, k2 = rar5Vint(hdr[k:])
			k += k2
		}
		var dataSize uint64
		if flags&2 != 0 {
			dataSize, _ = rar5Vint(hdr[k:])
		}
		binary.LittleEndian.PutUint32(data[pos:], crc32.ChecksumIEEE(data[pos+4:pos+4+n+int(size)]))
		pos += 4 + n + int(size) + int(dataSize)
		if typ == 5 { // end of archive
			break
		}
	}
	return data
}

// TestRAR5PatchedLinks turns the placeholders of the links fixture into
// hostile targets: links that leave the destination by "..", by an
// absolute path and by backslashes, a file written through such a link,
// and a hard link to a file outside. With every link policy nothing
// outside the destination may change and no hard link may reach outside.
func TestRAR5PatchedLinks(t *testing.T) {
	root := testenv.CorpusRoot(t)
	orig, err := os.ReadFile(filepath.Join(root, linksFixture))
	if err != nil {
		t.Fatal(err)
	}
	// An absolute directory of 9 bytes, "/tmp/NNNN", for the absolute
	// link, and a file of 10 bytes, "/tmp/NNNNN", for the hard link; both
	// exist so that following them would succeed.
	var absDir, absFile string
	for i := 0; ; i++ {
		absDir = fmt.Sprintf("/tmp/%04x", rand.Intn(1<<16))
		absFile = fmt.Sprintf("/tmp/%05x", rand.Intn(1<<20))
		if err := os.Mkdir(absDir, 0o755); err == nil {
			break
		} else if i > 100 {
			testenv.Missing(t, "a writable /tmp for a directory /tmp/NNNN ("+err.Error()+")")
		}
	}
	t.Cleanup(func() { os.RemoveAll(absDir) })
	if err := os.WriteFile(absFile, []byte(victimText), 0o644); err != nil {
		testenv.Missing(t, "a writable "+absFile+" ("+err.Error()+")")
	}
	t.Cleanup(func() { os.Remove(absFile) })

	cases := []struct {
		name string
		repl [][2]string
	}{
		{"dotdot-link-then-file", [][2]string{{"aaaaaaaaa", "../../../"}, {"dqqq/evil.txt", "h-up/evil.txt"}}},
		{"absolute-link-then-file", [][2]string{{"bbbbbbbbb", absDir}, {"dqqq/evil.txt", "h-abs/evil.tx"}}},
		{"backslash-link-then-file", [][2]string{{"ccccccccc", `..\..\..\`}, {"dqqq/evil.txt", "h-bsl/evil.tx"}}},
		{"hardlink-outside", [][2]string{{"h-file.txt\x52", absFile + "\x52"}}},
		{"hardlink-dotdot", [][2]string{{"h-file.txt\x52", "../../../o\x52"}}},
	}
	for _, c := range cases {
		for _, policy := range []string{"safe", "unsafe"} {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				s := newSandbox(t)
				// the hard link dotdot case aims at Root/o
				if err := os.WriteFile(filepath.Join(s.Root, "o"), []byte(victimText), 0o644); err != nil {
					t.Fatal(err)
				}
				arc := filepath.Join(t.TempDir(), "links.rar")
				if err := os.WriteFile(arc, patchRAR5(t, orig, c.repl), 0o644); err != nil {
					t.Fatal(err)
				}
				before := s.outsideState(t)
				r := runGarc(t, s.Work, "x", arc, "-o", s.Dest, "-y", "--links", policy)
				s.checkUnchanged(t, before, r)
				if policy == "safe" {
					s.checkLinksInside(t)
				}
				if r.code != 1 {
					t.Errorf("exit code %d, want 1 (something refused)\n%s", r.code, r.stderr)
				}
				if ents, _ := os.ReadDir(absDir); len(ents) != 0 {
					t.Errorf("written through the absolute link into %s: %v", absDir, ents)
				}
				if b, _ := os.ReadFile(absFile); string(b) != victimText {
					t.Errorf("%s changed: %q", absFile, b)
				}
				// No file in the destination may share its inode with a
				// file outside (a hard link out).
				for _, out := range []string{absFile, filepath.Join(s.Root, "o")} {
					so, err := os.Stat(out)
					if err != nil {
						continue
					}
					filepath.Walk(s.Dest, func(p string, fi os.FileInfo, err error) error {
						if err != nil || !fi.Mode().IsRegular() {
							return nil
						}
						if os.SameFile(fi, so) {
							t.Errorf("%s is a hard link to %s", p, out)
						}
						return nil
					})
				}
				if strings.Contains(r.stderr, "panic") {
					t.Errorf("panic:\n%s", r.stderr)
				}
			})
		}
	}
}
