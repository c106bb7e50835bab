package cli

import (
	"archive/tar"
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// walkTree writes under dir a tree whose names sort differently per
// directory and as whole paths ("a" < "a-c" < "a.d" < "a/…" < "a0"),
// with a hard link, symbolic links to a file and to a directory, and
// fixed modes and times.
func walkTree(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, map[string]string{
		"a/f": "1", "a/b/g.log": "2", "a/b/z.txt": "8", "a-c/h": "3", "a.d/x/i.txt": "4",
		"a0/j.log": "5", "sp ace/k": "6", "top.log": "7", "deep/1/2/3/q.log": "9",
	})
	if err := os.Link(filepath.Join(dir, "a/f"), filepath.Join(dir, "a/hard")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "e"), 0o755)
	for link, target := range map[string]string{"link": "a/f", "e/dirlink": "../a"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			os.Chmod(p, map[bool]os.FileMode{true: 0o755, false: 0o644}[fi.IsDir()])
			os.Chtimes(p, when, when)
		}
		return err
	})
}

// tarNames returns the names of a tar archive's entries in their order.
func tarNames(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
	return strings.Join(names, " ")
}

// `garc a` of a tar or ZIP archive walks its inputs as it writes the entries and keeps
// no list of them; the archives are those the collected list gave:
// the same bytes with --reproducible (SHA-256 of the archives garc wrote
// before, in byte order of the names across inputs, duplicates once), the
// same order of entries otherwise (each input in turn, a directory's
// entries sorted by name), with wildcards, -x!/-xr!, includes and links.
func TestCreateWalkOrder(t *testing.T) {
	dir := t.TempDir()
	walkTree(t, dir)
	for _, c := range []struct {
		args []string
		// want is the tar's SHA-256 with --reproducible, else the
		// names of the tar's and the ZIP archive's entries; zipWant
		// the SHA-256 of the ZIP archive (stored, -mx0) with
		// --reproducible.
		want, zipWant string
	}{
		{[]string{"--reproducible", "-snl", "."}, "c2ea3bf8cb2cb861f41257f9a05746195d4466e7f4377820f9941ffa2dd76b65",
			"37b5ff3c26d3661e4263581b431803b6bfb4bd232685ae8f23e766b026aa6139"},
		{[]string{"--reproducible", "-snl", "a-c", "a", "a.d", "top.log"}, "067b98d23452a8adc638a2f37a70b87e33e91cc140f952704cfe96704aee3548",
			"a246631987365bcb657af9918215ae86232def0ec3f629d9ceb8bd866b8f121a"},
		{[]string{"--reproducible", "-r", "*.log"}, "2bf8250a83bacf521e9aa8d5d8a3c3a98d26328b2caeb1f2eaeb851dd191507c",
			"eeb0ae2affc12b5a72c84680d07d7c45b21172a802778c8c98a5ae8f41401f45"},
		{[]string{"--reproducible", "-snl", ".", "-xr!b"}, "959daccf877162e5bdcdc5fbacfd4a9431fac544bc659d3e39f51602bed40eef",
			"4a84f368b986d53b1d2c51eb9e9bd58f59dc0c9bb9265bcacb17c0220078bff4"},
		{[]string{"--reproducible", "a", "a/b", "a", "-ir!*.txt"}, "83e8ccaa6d5a0e2a45a4af1993e5c71f5ffe703bd8c5b2fef500b6541844a83a",
			"4b3876a236d6c22cd5ce6e4f00cb9448fa45811521b0b913c48698f6d0cbbb5b"},
		{[]string{"-snl", "."}, "a/ a/b/ a/b/g.log a/b/z.txt a/f a/hard a-c/ a-c/h a.d/ a.d/x/ a.d/x/i.txt a0/ a0/j.log deep/ deep/1/ deep/1/2/ deep/1/2/3/ deep/1/2/3/q.log e/ e/dirlink link sp ace/ sp ace/k top.log", ""},
		{[]string{"-snl", "a", "a-c", "a.d", "a/b"}, "a/ a/b/ a/b/g.log a/b/z.txt a/f a/hard a-c/ a-c/h a.d/ a.d/x/ a.d/x/i.txt", ""},
		{[]string{".", "-x!*.log", "-xr!b"}, "a/ a/f a/hard a-c/ a-c/h a.d/ a.d/x/ a.d/x/i.txt a0/ a0/j.log deep/ deep/1/ deep/1/2/ deep/1/2/3/ deep/1/2/3/q.log e/ e/dirlink/ e/dirlink/f e/dirlink/hard link sp ace/ sp ace/k", ""},
		{[]string{"-r", "*.log"}, "a/b/g.log a0/j.log deep/1/2/3/q.log top.log", ""},
	} {
		for _, name := range []string{"o.tar", "o.zip"} {
			out := filepath.Join(t.TempDir(), name)
			args := append([]string{"a", "-q", out}, c.args...)
			if name == "o.zip" {
				// Stored: the hashes do not depend on the Deflate encoder.
				args = append(args, "-mx0")
			}
			r := garc(t, dir, "", args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%q: exit %d\n%s", c.args, r.code, r.stderr)
			}
			want := c.want
			if name == "o.zip" {
				want = c.zipWant
			}
			got := ""
			switch {
			case c.args[0] == "--reproducible":
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(b)
				got = hex.EncodeToString(sum[:])
			case name == "o.zip":
				zr, err := zip.OpenReader(out)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, f := range zr.File {
					names = append(names, f.Name)
				}
				zr.Close()
				got, want = strings.Join(names, " "), c.want
			default:
				got = tarNames(t, out)
			}
			if got != want {
				t.Errorf("%s %q:\n got %s\nwant %s", name, c.args, got, want)
			}
		}
	}
}

// The temporary file of a tar or ZIP archive being written inside the tree it archives
// is left out without a warning, as the archive itself is.
func TestCreateTarInsideInputs(t *testing.T) {
	dir := t.TempDir()
	walkTree(t, dir)
	for _, name := range []string{"in.tar", "in.tar.zst", "in.zip"} {
		r := garc(t, dir, "", "a", "-q", "-snl", name, ".")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr)
		}
		l := garc(t, dir, "", "l", "-ba", name)
		if strings.Contains(l.stdout, ".garc-") || strings.Contains(l.stdout, "in.tar") || !strings.Contains(l.stdout, "a/hard") {
			t.Errorf("%s lists:\n%s", name, l.stdout)
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// A tar written as its inputs are walked still shows the total size in
// its progress bar: a walk of their own counts them first.
func TestCreateTarProgressTotal(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.bin": strings.Repeat("abcdefgh", 1<<16), "src/sub/b.txt": "b"})
	for _, name := range []string{"out.tar", "out.tar.zst", "out.zip"} {
		r := garc(t, dir, "", "a", "--progress=always", name, "src")
		r.expect(t, ExitOK, "a --progress=always "+name)
		if !strings.Contains(r.stderr, "%") || !strings.Contains(r.stderr, "/512 KiB") {
			t.Errorf("%s: the progress lacks a percentage of the 512 KiB input: %q", name, r.stderr)
		}
	}
}
