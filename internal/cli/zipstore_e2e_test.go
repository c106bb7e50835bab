package cli

import (
	stdzip "archive/zip"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zipMethods returns the method of every entry of a ZIP archive as its
// central directory gives it (for AES the one in its 0x9901 field), and
// checks the content of the unencrypted ones against dir's files with
// archive/zip.
func zipMethods(t *testing.T, dir, name string) map[string]uint16 {
	t.Helper()
	zr, err := stdzip.OpenReader(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string]uint16{}
	for _, f := range zr.File {
		m := f.Method
		if m == 99 {
			m = binary.LittleEndian.Uint16(f.Extra[len(f.Extra)-2:])
			got[f.Name] = m
			continue
		}
		got[f.Name] = m
		if f.Flags&1 != 0 {
			continue // ZipCrypto, which archive/zip does not read
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		d, err := io.ReadAll(rc)
		rc.Close()
		want, _ := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || string(d) != string(want) {
			t.Errorf("%s %s: archive/zip reads %d bytes, %v", name, f.Name, len(d), err)
		}
	}
	return got
}

// Files that do not compress are written Stored, as 7-Zip writes them:
// one larger than garc's read buffer (read again), a small one, an empty
// one, plain and encrypted, new and added to an existing archive; a text
// file stays Deflated. 7zz and archive/zip read the archives, and each is
// no larger than 7zz's of the same files at the same level. Through -so
// (a pipe, where nothing is written back) the file stays Deflated.
func TestCreateZipStoresIncompressible(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 600<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	writeTree(t, dir, map[string]string{"random.bin": string(random), "small.bin": string(random[:1000]), "empty": "",
		"text.txt": strings.Repeat("a line of text that compresses well\n", 5000)})
	files := []string{"random.bin", "small.bin", "empty", "text.txt"}
	want := map[string]uint16{"random.bin": 0, "small.bin": 0, "empty": 0, "text.txt": 8}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"mx1.zip", []string{"-mx1"}},
		{"mx5.zip", []string{"-mx5"}},
		{"mx9.zip", []string{"-mx9"}},
		{"aes.zip", []string{"-mx5", "-psecret", "-mem=AES256"}}, // 7zz's -p alone is ZipCrypto
		{"zipcrypto.zip", []string{"-mx5", "-psecret", "-mem=ZipCrypto"}},
	} {
		args := append(append([]string{"a", "-q", c.name}, c.args...), files...)
		garc(t, dir, "", args...).expect(t, ExitOK, strings.Join(args, " "))
		runTool(t, dir, "7zz", "t", "-psecret", c.name)
		for n, m := range zipMethods(t, dir, c.name) {
			if m != want[n] {
				t.Errorf("%s %s: method %d, want %d", c.name, n, m, want[n])
			}
		}
		ref := "7zz-" + c.name
		runTool(t, dir, "7zz", append(append([]string{"a", "-tzip", ref}, c.args...), files...)...)
		g, _ := os.Stat(filepath.Join(dir, c.name))
		s, _ := os.Stat(filepath.Join(dir, ref))
		if g == nil || s == nil || g.Size() > s.Size() {
			t.Errorf("%s: garc's archive is larger than 7zz's: %v, %v", c.name, g, s)
		}
	}
	// Added to an existing archive.
	garc(t, dir, "", "a", "-q", "u.zip", "text.txt").expect(t, ExitOK, "a u.zip text.txt")
	garc(t, dir, "", "a", "-q", "u.zip", "random.bin").expect(t, ExitOK, "a u.zip random.bin")
	runTool(t, dir, "7zz", "t", "u.zip")
	if m := zipMethods(t, dir, "u.zip"); len(m) != 2 || m["random.bin"] != 0 || m["text.txt"] != 8 {
		t.Errorf("u.zip: methods %v", m)
	}
	// Through a pipe the entry stays compressed: Deflate's stored blocks
	// add 5 bytes per 64 KiB.
	res := garc(t, dir, "", "a", "-so", "-tzip", "x.zip", "random.bin")
	res.expect(t, ExitOK, "a -so")
	if err := os.WriteFile(filepath.Join(dir, "so.zip"), []byte(res.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, dir, "7zz", "t", "so.zip")
	if m := zipMethods(t, dir, "so.zip"); m["random.bin"] != 8 {
		t.Errorf("so.zip: methods %v", m)
	}
	if n := len(res.stdout); n > len(random)+len(random)>>16*5+200 {
		t.Errorf("so.zip: %d bytes for %d", n, len(random))
	}
}
