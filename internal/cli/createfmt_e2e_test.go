package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// formatTree writes the tree the format tests archive under dir/src: a
// file, an empty one, a name beyond 100 bytes, one not in ASCII, a
// symbolic link, a hard link and a sparse file ending in a hole.
func formatTree(t *testing.T, dir string) {
	t.Helper()
	long := "src/" + strings.Repeat("long-directory-name/", 6) + "file.txt"
	writeTree(t, dir, map[string]string{
		"src/a.txt":         strings.Repeat("alpha beta\n", 3000),
		"src/empty":         "",
		"src/ünïcödé-名.txt": "utf-8 name",
		long:                "deep",
		"src/sub/bin.dat":   string(testenv.MixedData(t, 100<<10)),
	})
	if err := os.Symlink("a.txt", filepath.Join(dir, "src/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "src/a.txt"), filepath.Join(dir, "src/hard")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "src/sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("start"), 0)
	f.WriteAt([]byte("middle"), 4<<20)
	f.Truncate(9 << 20)
	f.Close()
}

// compareTrees fails the test when the files, links and contents under
// want and got differ.
func compareTrees(t *testing.T, what, want, got string) {
	t.Helper()
	filepath.Walk(want, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		q := filepath.Join(got, rel)
		gi, err := os.Lstat(q)
		switch {
		case err != nil:
			t.Errorf("%s: %s missing", what, rel)
		case fi.Mode().Type() != gi.Mode().Type():
			t.Errorf("%s: %s is %v, want %v", what, rel, gi.Mode().Type(), fi.Mode().Type())
		case fi.Mode()&os.ModeSymlink != 0:
			a, _ := os.Readlink(p)
			b, _ := os.Readlink(q)
			if a != b {
				t.Errorf("%s: %s links to %q, want %q", what, rel, b, a)
			}
		case fi.Mode().IsRegular():
			a, _ := os.ReadFile(p)
			b, _ := os.ReadFile(q)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs", what, rel)
			}
		}
		return nil
	})
}

// runTool runs a reference tool in dir and fails on an error or a
// warning on its output.
func runTool(t *testing.T, dir, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, tool), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(bytes.ToLower(out), []byte("warning")) {
		t.Errorf("%s %q: %v\n%s", tool, args, err, out)
	}
	return string(out)
}

// pythonBin is Python 3, the system's own when there is one (a version
// manager's shim starts slowly).
func pythonBin() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

// Every tar flavour garc writes extracts to the same tree with GNU tar,
// bsdtar, Python's tarfile and garc itself, and 7zz tests it; links stay
// links (-snl) and the hard link one.
func TestCreateTarInterop(t *testing.T) {
	dir := t.TempDir()
	formatTree(t, dir)
	for _, name := range []string{"o.tar", "o.tar.gz", "o.tar.bz2", "o.tar.xz", "o.tar.zst", "o.tar.lzma"} {
		garc(t, dir, "", "a", "-q", "-snl", "-mx1", name, "src").expect(t, ExitOK, "a "+name)
		runTool(t, dir, "7zz", "t", name)
		for _, tool := range []string{"tar", "bsdtar", "garc"} {
			out := filepath.Join(dir, "x-"+tool)
			os.RemoveAll(out)
			os.Mkdir(out, 0o755)
			if tool == "garc" {
				garc(t, dir, "", "x", "-q", "-o"+out, name).expect(t, ExitOK, "x "+name)
			} else {
				runTool(t, dir, tool, "-xf", name, "-C", out)
			}
			compareTrees(t, tool+" "+name, filepath.Join(dir, "src"), filepath.Join(out, "src"))
			if tool != "garc" {
				a, _ := os.Stat(filepath.Join(out, "src/a.txt"))
				h, _ := os.Stat(filepath.Join(out, "src/hard"))
				if a == nil || h == nil || !os.SameFile(a, h) {
					t.Errorf("%s %s: src/hard is no hard link of src/a.txt", tool, name)
				}
			}
		}
		if strings.HasSuffix(name, ".zst") {
			continue // tarfile reads zstd from Python 3.14
		}
		py := pythonBin()
		out := filepath.Join(dir, "x-py")
		os.RemoveAll(out)
		runTool(t, dir, py, "-c", "import sys, tarfile; kw = {'filter': 'tar'} if hasattr(tarfile, 'data_filter') else {}; tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)", name, out)
		compareTrees(t, "tarfile "+name, filepath.Join(dir, "src"), filepath.Join(out, "src"))
	}
	// The sparse file is stored sparse: the tar is far smaller than it.
	if fi, err := os.Stat(filepath.Join(dir, "o.tar")); err != nil || fi.Size() > 1<<20 {
		t.Errorf("o.tar: %v bytes, %v", fi.Size(), err)
	}
}

// ZIP archives of every method, plain, AES-256 and ZipCrypto, are tested
// by 7zz (with the password) and, where they have the method, by unzip
// and Python's zipfile; garc extracts them to the same tree.
func TestCreateZipInterop(t *testing.T) {
	dir := t.TempDir()
	formatTree(t, dir)
	os.Remove(filepath.Join(dir, "src/sparse")) // 9 MiB of zeros: slow at -mx9 LZMA for nothing
	for _, c := range []struct {
		name  string
		args  []string
		unzip bool
		py    bool
	}{
		{"deflate.zip", nil, true, true},
		{"store.zip", []string{"-mx0"}, true, true},
		{"deflate9.zip", []string{"-mx9"}, true, true},
		{"bzip2.zip", []string{"-mm=BZip2"}, true, true},
		{"lzma.zip", []string{"-mm=LZMA"}, false, true},
		{"zstd.zip", []string{"-mm=ZSTD"}, false, false},
		{"xz.zip", []string{"-mm=XZ"}, false, false},
		{"aes.zip", []string{"-psecret"}, false, false},
		{"zipcrypto.zip", []string{"-psecret", "-mem=ZipCrypto"}, true, true},
		{"tzip", []string{"-tzip", "-mx1"}, true, true},
	} {
		args := append([]string{"a", "-q", "-snl", "-mx1", c.name, "src"}, c.args...)
		garc(t, dir, "", args...).expect(t, ExitOK, strings.Join(args, " "))
		name := c.name
		if !strings.Contains(name, ".") {
			name += ".zip"
		}
		runTool(t, dir, "7zz", "t", "-psecret", name)
		if c.unzip {
			runTool(t, dir, "unzip", "-t", "-P", "secret", name)
		}
		if c.py {
			runTool(t, dir, pythonBin(), "-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.setpassword(b'secret'); assert z.testzip() is None", name)
		}
		out := filepath.Join(dir, "x-"+name)
		garc(t, dir, "", "x", "-q", "-psecret", "-o"+out, name).expect(t, ExitOK, "x "+name)
		compareTrees(t, "garc x "+name, filepath.Join(dir, "src"), filepath.Join(out, "src"))
	}
}

// a adds to and replaces in an existing ZIP archive, d deletes from it,
// and a pattern that matches nothing leaves it as it was (exit 10).
func TestCreateZipUpdate(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "one", "b.txt": "two", "c.txt": "three"})
	garc(t, dir, "", "a", "-q", "u.zip", "a.txt", "b.txt").expect(t, ExitOK, "a u.zip")
	writeTree(t, dir, map[string]string{"b.txt": "two, longer"})
	garc(t, dir, "", "a", "-q", "u.zip", "b.txt", "c.txt").expect(t, ExitOK, "a u.zip again")
	runTool(t, dir, "unzip", "-t", "u.zip")
	r := garc(t, dir, "", "x", "-so", "u.zip", "b.txt")
	if r.stdout != "two, longer" {
		t.Errorf("b.txt after the update: %q", r.stdout)
	}
	garc(t, dir, "", "d", "-q", "u.zip", "a.txt").expect(t, ExitOK, "d u.zip a.txt")
	r = garc(t, dir, "", "lb", "u.zip")
	if r.stdout != "b.txt\nc.txt\n" {
		t.Errorf("after d: %q", r.stdout)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "u.zip"))
	garc(t, dir, "", "d", "u.zip", "nothing.txt").expect(t, ExitNoMatch, "d of nothing")
	if after, _ := os.ReadFile(filepath.Join(dir, "u.zip")); !bytes.Equal(before, after) {
		t.Error("d of nothing changed the archive")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("%d files in the directory, want 4 (no temporary left)", len(ents))
	}
}

// A single stream holds one file, named in the gzip header; more inputs
// are refused (exit 7), and an existing tar or compressed file is not
// replaced (exit 2).
func TestCreateSingleStreams(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": strings.Repeat("single stream\n", 1000), "g.txt": "g"})
	tools := map[string][]string{"f.gz": {"gzip", "-dc"}, "f.bz2": {"bzip2", "-dc"}, "f.xz": {"xz", "-dc"},
		"f.zst": {"zstd", "-dc"}, "f.lzma": {"xz", "--format=lzma", "-dc"}}
	for name, tool := range tools {
		garc(t, dir, "", "a", "-q", name, "f.txt").expect(t, ExitOK, "a "+name)
		cmd := exec.Command(testenv.Tool(t, tool[0]), append(tool[1:], name)...)
		cmd.Dir = dir
		if out, err := cmd.Output(); err != nil || string(out) != strings.Repeat("single stream\n", 1000) {
			t.Errorf("%s %s: %v", tool, name, err)
		}
		garc(t, dir, "", "t", "-q", name).expect(t, ExitOK, "t "+name)
	}
	if r := garc(t, dir, "", "l", "f.gz"); !strings.Contains(r.stdout, "f.txt") {
		t.Errorf("the gzip header does not name f.txt:\n%s", r.stdout)
	}
	garc(t, dir, "", "a", "two.gz", "f.txt", "g.txt").expect(t, ExitUsage, "a two.gz f.txt g.txt")
	before, _ := os.ReadFile(filepath.Join(dir, "f.gz"))
	garc(t, dir, "", "a", "f.gz", "g.txt").expect(t, ExitFatal, "a f.gz over an existing one")
	if after, _ := os.ReadFile(filepath.Join(dir, "f.gz")); !bytes.Equal(before, after) {
		t.Error("a replaced an existing .gz")
	}
	garc(t, dir, "", "a", "-p1", "e.tar", "f.txt").expect(t, ExitUsage, "a -p e.tar")
}

// -so -ttar.zst writes the tar to standard output, which zstd and tar
// read back.
func TestCreateTarStdout(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/a.txt": "a", "d/b.txt": strings.Repeat("b", 5000)})
	r := garc(t, dir, "", "a", "-so", "-ttar.zst", "ignored", "d")
	r.expect(t, ExitOK, "a -so -ttar.zst")
	if _, err := os.Stat(filepath.Join(dir, "ignored.tar.zst")); err == nil {
		t.Error("-so wrote a file")
	}
	cmd := exec.Command(testenv.Tool(t, "tar"), "--zstd", "-tf", "-")
	cmd.Stdin = strings.NewReader(r.stdout)
	if out, err := cmd.Output(); err != nil || string(out) != "d/\nd/a.txt\nd/b.txt\n" {
		t.Errorf("tar --zstd -t: %q, %v", out, err)
	}
	// A 7z archive needs its start header written last: not to a pipe
	// (ZIP is: TestZipToStdout).
	r = garc(t, dir, "", "a", "-so", "o.7z", "d")
	r.expect(t, ExitUsage, "a -so o.7z")
	if r.stdout != "" {
		t.Errorf("a -so o.7z wrote %d bytes to stdout", len(r.stdout))
	}
}

// --reproducible writes the same bytes for two copies of a tree made at
// different times, in a different order, with different owners and
// permission bits, and for any --threads; SOURCE_DATE_EPOCH turns it on.
func TestCreateReproducible(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"b/x.txt": strings.Repeat("x", 3000), "a.txt": "a", "b/y.sh": "#!/bin/sh\n", "c/d/e": strings.Repeat("e\n", 100)}
	mk := func(root string, order []string, perm os.FileMode, uid int, mtime time.Time) {
		for _, n := range order {
			p := filepath.Join(dir, root, n)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, []byte(files[n]), perm); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(n, ".sh") {
				os.Chmod(p, perm|0o100)
			}
			os.Lchown(p, uid, uid)
			os.Chtimes(p, mtime, mtime)
		}
		os.Symlink("a.txt", filepath.Join(dir, root, "l"))
	}
	mk("one", []string{"a.txt", "b/x.txt", "b/y.sh", "c/d/e"}, 0o644, 0, time.Now())
	mk("two", []string{"c/d/e", "b/y.sh", "b/x.txt", "a.txt"}, 0o600, 1234, time.Now().Add(-time.Hour))
	for _, name := range []string{"r.7z", "r.zip", "r.tar", "r.tar.gz", "r.tar.xz", "r.tar.zst", "r.tar.bz2", "r.tar.lzma"} {
		var outs [][]byte
		for i, root := range []string{"one", "two"} {
			for _, threads := range []string{"1", "2"} {
				out := filepath.Join(dir, root+threads+"-"+name)
				args := []string{"a", "-q", "-snl", "--threads", threads, out, "."}
				if i == 0 {
					args = append(args, "--reproducible")
				}
				cmd := exec.Command(garcBin, args...)
				cmd.Dir = filepath.Join(dir, root)
				cmd.Env = append(os.Environ(), "TZ=Asia/Tokyo")
				if i == 1 {
					cmd.Env = append(cmd.Env, "SOURCE_DATE_EPOCH=1700000000", "TZ=America/New_York")
				}
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%q: %v\n%s", args, err, b)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, b)
			}
		}
		// The first copy's times are newer than SOURCE_DATE_EPOCH
		// only with it: run the first again with the epoch.
		cmd := exec.Command(garcBin, "a", "-q", "-snl", filepath.Join(dir, "epoch-"+name), ".")
		cmd.Dir = filepath.Join(dir, "one")
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		epoch, _ := os.ReadFile(filepath.Join(dir, "epoch-"+name))
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s: the bytes depend on --threads", name)
		}
		if !bytes.Equal(outs[2], outs[3]) || !bytes.Equal(epoch, outs[2]) {
			t.Errorf("%s: the two copies give different archives", name)
		}
	}
}
