package cli

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// createTree writes a tree with files, an empty directory and a symlink.
func createTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	writeTree(t, dir, sampleFiles)
	os.Remove(filepath.Join(dir, "src/empty/.keep"))
	if err := os.Symlink("a.txt", filepath.Join(dir, "src/link")); err != nil {
		t.Fatal(err)
	}
	return readTree(t, filepath.Join(dir, "src"))
}

// sevenZipTest checks an archive with `7zz t`.
func sevenZipTestArchive(t *testing.T, dir, arc string, extra ...string) {
	t.Helper()
	sevenZip(t, dir, append([]string{"t", arc}, extra...)...)
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries (%s), want %d (%s)", what, len(got), keys(got), len(want), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s differs", what, k)
		}
	}
}

func TestCreate7zInterop(t *testing.T) {
	testenv.SevenZip(t)
	for _, sw := range [][]string{
		{}, {"-mx0"}, {"-mx1", "-ms=off"}, {"-m0=LZMA", "-mx9"}, {"-psecret", "-mhe=on"}, {"-mhc=off"},
		{"-mf=off", "-ms=2f"}, {"-mmt2", "-md=1m"}, {"-v100"},
		{"-m0=PPMd"}, {"-psecret", "-mhe=on", "-m0=PPMd", "-mx9"}, {"-m0=ppmd", "-md=1m", "-ms=off"},
		{"-m0=Deflate"}, {"-m0=Deflate", "-mx1", "-ms=off", "-mmt2"},
		{"-m0=BZip2"}, {"-psecret", "-m0=bzip2", "-mx1", "-mmt2"},
		{"-m0=LZMA2:d=1m:fb=64:mc=64"}, {"-m0=PPMd:o=8:mem=4m"}, {"-mfb=128", "-mmf=hc4", "-md=20"},
	} {
		t.Run(strings.Join(sw, ""), func(t *testing.T) {
			dir := t.TempDir()
			want := createTree(t, dir)
			args := append([]string{"a", "-snl", "out.7z", "src"}, sw...)
			r := garc(t, dir, "", args...)
			r.expect(t, ExitOK, "garc a")
			if !strings.Contains(r.stderr, "files") || !strings.Contains(r.stderr, " written in ") || r.stdout != "" {
				t.Errorf("no summary line on stderr: stdout %q, stderr %q", r.stdout, r.stderr)
			}
			arc := "out.7z"
			if len(sw) == 1 && strings.HasPrefix(sw[0], "-v") {
				arc = "out.7z.001"
				if _, err := os.Stat(filepath.Join(dir, "out.7z.002")); err != nil {
					t.Fatalf("no second volume: %v", err)
				}
			}
			pw := "-p"
			if len(sw) > 0 && strings.HasPrefix(sw[0], "-p") {
				pw = sw[0]
			}
			sevenZipTestArchive(t, dir, arc, pw)
			sevenZip(t, dir, "x", "-snl", pw, "-o7", arc)
			sameTree(t, "7zz x", readTree(t, filepath.Join(dir, "7", "src")), want)
			r = garc(t, dir, "", "x", pw, "-o", "g", arc)
			r.expect(t, ExitOK, "garc x")
			sameTree(t, "garc x", readTree(t, filepath.Join(dir, "g", "src")), want)
		})
	}
}

func TestCreatePy7zr(t *testing.T) {
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import py7zr").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		testenv.Missing(t, "python3 with py7zr (apt-get install python3-py7zr)")
	}
	for _, sw := range [][]string{{}, {"-psecret", "-mhe=on"}, {"-m0=LZMA", "-ms=off"}, {"-mx0"}, {"-m0=Deflate"},
		{"-m0=PPMd", "-ms=off"}, {"-m0=BZip2"}} {
		t.Run(strings.Join(sw, ""), func(t *testing.T) {
			// py7zr reads PPMd through pyppmd (newer versions) or ppmd
			// (Debian's 0.11, package python3-ppmd).
			if len(sw) > 0 && sw[0] == "-m0=PPMd" && exec.Command(py, "-c", "try:\n import pyppmd\nexcept ImportError:\n import ppmd").Run() != nil {
				testenv.Missing(t, "PPMd support for py7zr (apt-get install python3-ppmd)")
			}
			dir := t.TempDir()
			want := createTree(t, dir)
			os.Remove(filepath.Join(dir, "src/link"))
			delete(want, "link")
			garc(t, dir, "", append([]string{"a", "out.7z", "src"}, sw...)...).expect(t, ExitOK, "garc a")
			pw := "None"
			if len(sw) > 0 && strings.HasPrefix(sw[0], "-p") {
				pw = "'" + sw[0][2:] + "'"
			}
			cmd := exec.Command(py, "-c", "import py7zr,sys; py7zr.SevenZipFile(sys.argv[1], password="+pw+").extractall(sys.argv[2])", "out.7z", "py")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("py7zr: %v\n%s", err, out)
			}
			sameTree(t, "py7zr", readTree(t, filepath.Join(dir, "py", "src")), want)
		})
	}
}

func TestUpdateAndDelete7z(t *testing.T) {
	testenv.SevenZip(t)
	dir := t.TempDir()
	want := createTree(t, dir)
	sevenZip(t, dir, "a", "-snl", "out.7z", "src")
	// Change one file (newer and longer), add one; garc updates 7-Zip's
	// archive.
	time.Sleep(10 * time.Millisecond) // a newer mtime than the archived one, not a timing assertion
	writeTree(t, dir, map[string]string{"src/a.txt": "changed", "src/new.txt": "new"})
	want["a.txt"], want["new.txt"] = "changed", "new"
	r := garc(t, dir, "", "a", "-snl", "out.7z", "src")
	r.expect(t, ExitOK, "garc a (update)")
	if !strings.Contains(r.stderr, "2 entries added or replaced") || r.stdout != "" {
		t.Errorf("update summary: %q, stdout %q", r.stderr, r.stdout)
	}
	sevenZipTestArchive(t, dir, "out.7z")
	sevenZip(t, dir, "x", "-snl", "-o1", "out.7z")
	sameTree(t, "after update", readTree(t, filepath.Join(dir, "1", "src")), want)
	// Delete a directory and a file.
	garc(t, dir, "", "d", "out.7z", "src/docs", "src/new.txt").expect(t, ExitOK, "garc d")
	for k := range want {
		if strings.HasPrefix(k, "docs") || k == "new.txt" {
			delete(want, k)
		}
	}
	sevenZipTestArchive(t, dir, "out.7z")
	sevenZip(t, dir, "x", "-snl", "-o2", "out.7z")
	sameTree(t, "after delete", readTree(t, filepath.Join(dir, "2", "src")), want)
	garc(t, dir, "", "d", "out.7z", "nothing-like-this").expect(t, ExitNoMatch, "garc d without a match")
}

func TestCreateStdin(t *testing.T) {
	dir := t.TempDir()
	garc(t, dir, "piped content\n", "a", "-siname.txt", "out.7z").expect(t, ExitOK, "garc a -si")
	garc(t, dir, "", "x", "-o", "x", "out.7z").expect(t, ExitOK, "garc x")
	b, err := os.ReadFile(filepath.Join(dir, "x", "name.txt"))
	if err != nil || string(b) != "piped content\n" {
		t.Fatalf("stdin entry: %q %v", b, err)
	}
}

// noTemps fails if a temporary archive file is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".garc-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestCreateFullDisk(t *testing.T) {
	dir := t.TempDir()
	mnt := filepath.Join(dir, "small")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		testenv.Missing(t, fmt.Sprintf("a small tmpfs (mount -t tmpfs, as root: %v)", err))
	}
	defer exec.Command("umount", mnt).Run()
	writeTree(t, dir, map[string]string{"f.txt": "small"})
	garc(t, dir, "", "a", "small/out.7z", "f.txt").expect(t, ExitOK, "garc a small")
	before, err := os.ReadFile(filepath.Join(mnt, "out.7z"))
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 256<<10)
	rand.Read(big)
	os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644)
	r := garc(t, dir, "", "a", "-mx1", "small/out.7z", "big.bin")
	if r.code == ExitOK {
		t.Fatal("adding 256 KiB of random data to a 64 KiB file system succeeded")
	}
	after, err := os.ReadFile(filepath.Join(mnt, "out.7z"))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the existing archive changed after a failed update (%v)", err)
	}
	noTemps(t, mnt)
}

func TestCreateInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "small"})
	garc(t, dir, "", "a", "out.7z", "f.txt").expect(t, ExitOK, "garc a")
	before, _ := os.ReadFile(filepath.Join(dir, "out.7z"))
	big := make([]byte, 64<<20)
	rand.Read(big)
	os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644)
	cmd := exec.Command(garcBin, "a", "-mx9", "-mmt1", "out.7z", "big.bin")
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the temporary archive exists, then press Ctrl-C.
	for i := 0; ; i++ {
		ents, _ := os.ReadDir(dir)
		found := false
		for _, e := range ents {
			found = found || strings.HasPrefix(e.Name(), ".garc-")
		}
		if found || i > 2000 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if err == nil {
		t.Skip("garc finished before the interrupt arrived")
	}
	after, _ := os.ReadFile(filepath.Join(dir, "out.7z"))
	if !bytes.Equal(before, after) {
		t.Fatal("the existing archive changed after an interrupted update")
	}
	noTemps(t, dir)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
		t.Errorf("exit %v, want %d\n%s", err, ExitInterrupted, errb.String())
	}
}

// TestCreateStoredTimes checks that garc a stores only modification times
// by default, as 7-Zip does, and creation and access times on request
// (-mtc=on, -mta=on), and none with -mtm=off.
func TestCreateStoredTimes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("times\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		switches []string
		want     map[string]bool // slt key present
	}{
		{nil, map[string]bool{"Modified": true, "Created": false, "Accessed": false}},
		{[]string{"-mtc=on", "-mta=on"}, map[string]bool{"Modified": true, "Created": true, "Accessed": true}},
		{[]string{"-mtm=off"}, map[string]bool{"Modified": false, "Created": false, "Accessed": false}},
	} {
		name := fmt.Sprintf("t%d.7z", len(tc.switches))
		if len(tc.switches) == 1 {
			name = "mtm-off.7z"
		}
		args := append([]string{"a", "-q"}, tc.switches...)
		garc(t, dir, "", append(args, name, "f.txt")...).expect(t, 0, "a "+strings.Join(tc.switches, " "))
		r := garc(t, dir, "", "l", "-slt", name)
		r.expect(t, 0, "l -slt")
		entry := r.stdout[strings.Index(r.stdout, "Path = f.txt"):]
		for key, present := range tc.want {
			// An empty time shows as "Modified = " with no value.
			has := regexp.MustCompile(`(?m)^` + key + ` = \S`).MatchString(entry)
			if has != present {
				t.Errorf("%v: %s stored = %v, want %v\n%s", tc.switches, key, has, present, entry)
			}
		}
	}
}

// TestCreateMethodParamErrors: a bad method parameter is a usage error
// (exit 7) that names it, and no archive is left behind.
func TestCreateMethodParamErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sw := range []string{"-m0=LZMA2:fb=999", "-m0=PPMd:zz=1", "-mfb=2", "-m0=BZip2:d=5m"} {
		r := garc(t, dir, "", "a", sw, "out.7z", "f.txt")
		r.expect(t, ExitUsage, "a "+sw)
		if !strings.Contains(r.stderr, "method") {
			t.Errorf("%s: stderr does not say which parameter: %q", sw, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.7z")); err == nil {
			t.Errorf("%s: an archive was written", sw)
		}
	}
}

// TestCreateArchiveName: a name with the extension of a format garc does
// not write is refused (exit 7) without writing anything, and a name
// without extension gets ".7z", as 7-Zip does.
func TestCreateArchiveName(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": "alpha\n"})
	for _, c := range []struct{ name, want string }{
		{"x.rar", "name it x.7z"}, {"x.r00", "name it x.7z"},
		{"x.iso", "name it x.7z"}, {"x.wim", "name it x.7z"}, {"x.cab", "name it x.7z"},
		{"x.s01", "name it x.7z"}, {"x.z01", "name it x.7z"}, {"y.R01", "name it y.7z"},
	} {
		r := garc(t, dir, "", "a", c.name, "src")
		r.expect(t, ExitUsage, "a "+c.name)
		if !strings.Contains(r.stderr, "garc writes 7z archives: "+c.want) {
			t.Errorf("a %s: %q", c.name, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, c.name)); err == nil {
			t.Errorf("a %s: the archive was written", c.name)
		}
	}
	// A broken ZIP file is left as it is (exit 2); a 7z archive under
	// another name is updated as 7z.
	writeTree(t, dir, map[string]string{"real.zip": "PK\x03\x04 not much of a zip"})
	r := garc(t, dir, "", "a", "real.zip", "src")
	r.expect(t, ExitFatal, "a real.zip")
	if b, _ := os.ReadFile(filepath.Join(dir, "real.zip")); string(b) != "PK\x03\x04 not much of a zip" {
		t.Errorf("a real.zip changed it: %q", b)
	}
	garc(t, dir, "", "a", "seven.7z", "src").expect(t, ExitOK, "a seven.7z")
	if err := os.Rename(filepath.Join(dir, "seven.7z"), filepath.Join(dir, "seven.zip")); err != nil {
		t.Fatal(err)
	}
	garc(t, dir, "", "a", "seven.zip", "src").expect(t, ExitOK, "a seven.zip (a 7z archive)")
	garc(t, dir, "", "a", "plain", "src").expect(t, ExitOK, "a plain")
	if _, err := os.Stat(filepath.Join(dir, "plain.7z")); err != nil {
		t.Errorf("a plain: no plain.7z: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plain")); err == nil {
		t.Error("a plain: wrote plain")
	}
	garc(t, dir, "", "a", "out.txt", "src").expect(t, ExitOK, "a out.txt") // not another archive format
	garc(t, dir, "", "d", "plain", "src/a.txt").expect(t, ExitOK, "d plain")
	// 7-Zip's rule, for comparison.
	sevenZip(t, dir, "a", "-bd", "zz", "src")
	if _, err := os.Stat(filepath.Join(dir, "zz.7z")); err != nil {
		t.Errorf("7zz a zz did not write zz.7z: %v", err)
	}
}

// TestUpdateEncrypted: adding to an archive with encrypted entries
// without a password, or with another one, is refused with exit 11 and
// leaves the archive as it was, unless --allow-mixed-encryption is given.
func TestUpdateEncrypted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": strings.Repeat("secret data\n", 100), "n1.txt": "one", "n2.txt": "two", "n3.txt": "three"})
	garc(t, dir, "", "a", "-psecret", "enc.7z", "src").expect(t, ExitOK, "a -psecret")
	before, _ := os.ReadFile(filepath.Join(dir, "enc.7z"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "enc.7z", "n1.txt"}, "no password was given"},
		{[]string{"a", "-pother", "enc.7z", "n1.txt"}, "not the one its entries are encrypted with"},
	} {
		r := garc(t, dir, "", c.args...)
		r.expect(t, ExitPassword, strings.Join(c.args, " "))
		if !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "--allow-mixed-encryption") {
			t.Errorf("%q: %q", c.args, r.stderr)
		}
		if after, _ := os.ReadFile(filepath.Join(dir, "enc.7z")); !bytes.Equal(before, after) {
			t.Fatalf("%q changed the archive", c.args)
		}
		noTemps(t, dir)
	}
	garc(t, dir, "", "a", "-psecret", "enc.7z", "n1.txt").expect(t, ExitOK, "a with the password")
	garc(t, dir, "", "a", "--allow-mixed-encryption", "enc.7z", "n2.txt").expect(t, ExitOK, "a --allow-mixed-encryption")
	garc(t, dir, "", "a", "--allow-mixed-encryption", "-pother", "enc.7z", "n3.txt").expect(t, ExitOK, "a --allow-mixed-encryption -pother")
	garc(t, dir, "", "t", "-psecret", "enc.7z", "src/a.txt", "n1.txt", "n2.txt").expect(t, ExitOK, "t")
	garc(t, dir, "", "t", "-pother", "enc.7z", "n3.txt").expect(t, ExitOK, "t n3")
}

// TestUpdateReadOnly: `a` and `d` on a RAR archive say RAR archives are
// read-only, and on a split 7z that split archives cannot be updated.
func TestUpdateReadOnly(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.txt": string(randomText(20000)), "new.txt": "new"})
	garc(t, dir, "", "a", "-v4k", "-mx0", "vol.7z", "src").expect(t, ExitOK, "a -v4k")
	// A set of one part is a split archive too (opener.IsSplitPart).
	garc(t, dir, "", "a", "-v1m", "one.7z", "new.txt").expect(t, ExitOK, "a -v1m")
	for _, args := range [][]string{{"a", "vol.7z.001", "new.txt"}, {"d", "vol.7z.001", "src/a.txt"}, {"d", "vol.7z.002", "src/a.txt"},
		{"a", "one.7z.001", "src"}, {"d", "one.7z.001", "new.txt"}} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitFatal, strings.Join(args, " "))
		if !strings.Contains(r.stderr, "split archives") || !strings.Contains(r.stderr, "cannot be updated") {
			t.Errorf("%q: %q", args, r.stderr)
		}
	}
	root := testenv.CorpusRoot(t)
	rar := filepath.Join(dir, "x.rar")
	copyFile(t, filepath.Join(root, "files/sharpcompress/Archives__Rar.comment.rar"), rar)
	copyFile(t, filepath.Join(root, "files/libarchive/test_read_format_rar5_symlink.rar"), filepath.Join(dir, "x5.bin"))
	for _, args := range [][]string{{"d", "x.rar", "*"}, {"a", "x5.bin", "new.txt"}, {"d", "x5.bin", "*"}} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitFatal, strings.Join(args, " "))
		if !strings.Contains(r.stderr, "RAR archives are read-only") {
			t.Errorf("%q: %q", args, r.stderr)
		}
	}
}

// randomText returns n bytes of incompressible printable text.
func randomText(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	return b
}
