package cli

// End-to-end tests of the 7-Zip and unrar command-line conventions:
// wildcard archive arguments, unrar's trailing destination, -so, the test
// summary, 7-Zip's console switches, open errors and -slt against 7zz.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// copyFile copies src to dst (corpus files into a test's temporary
// directory, never into the repository).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rarVolumes copies the corpus's three-volume RAR5 set into dir as
// vols.part1.rar … vols.part3.rar.
func rarVolumes(t *testing.T, dir string) {
	t.Helper()
	root := testenv.CorpusRoot(t)
	for i := 1; i <= 3; i++ {
		n := []string{"", "1", "2", "3"}[i]
		copyFile(t, filepath.Join(root, "files/rarfile/files__rar5-vols.part"+n+".rar"), filepath.Join(dir, "vols.part"+n+".rar"))
	}
}

func TestWildcardArchives(t *testing.T) {
	dir := t.TempDir()
	makeArchive(t, dir, "a.7z")
	makeArchive(t, dir, "b.7z", "-mx=1")
	writeTree(t, dir, map[string]string{"big/big.bin": strings.Repeat("0123456789abcdef", 4096)})
	sevenZip(t, dir, "a", "-bd", "-mx=0", "-v20k", "c.7z", "big")
	rarVolumes(t, dir)

	// Several 7z archives: each tested once, with 7-Zip's totals.
	r := garc(t, dir, "", "t", "*.7z")
	r.expect(t, ExitOK, "t *.7z")
	for _, want := range []string{"Testing archive: a.7z\nEverything is Ok\n", "Testing archive: b.7z\nEverything is Ok\n",
		"\nArchives: 2\nOK archives: 2\n", "\nFolders: 6\nFiles: 10\nSize:       19232\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("t *.7z lacks %q:\n%s", want, r.stderr)
		}
	}
	// A split is tested from its first part only, whichever parts match.
	for _, pat := range []string{"c.7z.*", "c.7z.00?", "*.00*"} {
		r = garc(t, dir, "", "t", pat)
		r.expect(t, ExitOK, "t "+pat)
		if strings.Count(r.stderr, "Testing archive: ") != 1 || !strings.Contains(r.stderr, "Testing archive: c.7z.001\n") {
			t.Errorf("t %s:\n%s", pat, r.stderr)
		}
	}
	// A RAR volume set: only the first volume is opened.
	r = garc(t, dir, "", "t", "*.rar")
	r.expect(t, ExitOK, "t *.rar")
	if strings.Count(r.stderr, "Testing archive: ") != 1 || !strings.Contains(r.stderr, "Testing archive: vols.part1.rar\n") {
		t.Errorf("t *.rar:\n%s", r.stderr)
	}
	// Everything at once, in name order.
	r = garc(t, dir, "", "t", "*")
	r.expect(t, ExitOK, "t *")
	var order []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if n, ok := strings.CutPrefix(line, "Testing archive: "); ok {
			order = append(order, n)
		}
	}
	if got := strings.Join(order, " "); got != "a.7z b.7z c.7z.001 vols.part1.rar" {
		t.Errorf("t * tested %q", got)
	}

	// x extracts every match; -o applies to all of them.
	garc(t, dir, "", "x", "-y", "[ab].7z", "-oout").expect(t, ExitFatal, "x with a '[' name that does not exist")
	garc(t, dir, "", "x", "-y", "?.7z", "-oout").expect(t, ExitOK, "x ?.7z")
	if got := readTree(t, filepath.Join(dir, "out")); got["src/docs/c.txt"] != sampleFiles["src/docs/c.txt"] {
		t.Errorf("x ?.7z: %s", keys(got))
	}

	// -o'*': each archive into a directory named after it (7-Zip).
	garc(t, dir, "", "x", "*.7z*", "-o*").expect(t, ExitOK, "x *.7z* -o*")
	garc(t, dir, "", "x", "*.rar", "-osets/*").expect(t, ExitOK, "x *.rar -osets/*")
	for _, d := range []string{"a/src/a.txt", "b/src/a.txt", "c/big/big.bin"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Errorf("x -o*: %v", err)
		}
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "sets")); err != nil || len(entries) != 1 || entries[0].Name() != "vols" {
		t.Errorf("x *.rar -osets/*: %v %v", entries, err)
	}

	// l --format=json prints one document per archive.
	r = garc(t, dir, "", "l", "--format=json", "*.7z")
	r.expect(t, ExitOK, "l --format=json *.7z")
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var paths []string
	for {
		var doc struct {
			Archive struct{ Path string } `json:"archive"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("JSON stream: %v\n%s", err, r.stdout)
		}
		paths = append(paths, doc.Archive.Path)
	}
	if strings.Join(paths, " ") != "a.7z b.7z" {
		t.Errorf("JSON documents for %q", paths)
	}

	// One bad archive among good ones: reported, the others still
	// processed, the exit code is the worst.
	writeTree(t, dir, map[string]string{"junk.7z": "not an archive at all"})
	r = garc(t, dir, "", "t", "*.7z")
	r.expect(t, ExitFatal, "t *.7z with junk")
	if !strings.Contains(r.stderr, "garc: junk.7z: not an archive") || !strings.Contains(r.stderr, "Testing archive: b.7z\nEverything is Ok\n") ||
		!strings.Contains(r.stderr, "\nArchives: 3\nOK archives: 2\nCan't open as archive: 1\n") || r.stdout != "" {
		t.Errorf("t *.7z with junk:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	r = garc(t, dir, "", "x", "-y", "-oout2", "*.7z")
	r.expect(t, ExitFatal, "x *.7z with junk")
	if got := readTree(t, filepath.Join(dir, "out2")); got["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Errorf("x *.7z with junk: %s", keys(got))
	}

	// No match is exit 2; wildcards in directories are a usage error.
	r = garc(t, dir, "", "t", "nothing*.7z")
	r.expect(t, ExitFatal, "no archive matches")
	if !strings.Contains(r.stderr, "no archive matches") {
		t.Errorf("message %q", r.stderr)
	}
	garc(t, dir, "", "t", "*/a.7z").expect(t, ExitUsage, "wildcard directory")

	// A file whose name contains '*' is taken literally.
	copyFile(t, filepath.Join(dir, "a.7z"), filepath.Join(dir, "star*.7z"))
	r = garc(t, dir, "", "t", "star*.7z")
	r.expect(t, ExitOK, "literal star")
	if strings.Contains(r.stdout, "Archives:") {
		t.Errorf("literal name treated as a wildcard:\n%s", r.stdout)
	}
}

func TestTrailingDestination(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	garc(t, dir, "", "x", arc, "dest/").expect(t, ExitOK, "x s.7z dest/")
	if got := readTree(t, filepath.Join(dir, "dest")); got["src/docs/d.bin"] != sampleFiles["src/docs/d.bin"] {
		t.Errorf("x s.7z dest/: %s", keys(got))
	}
	garc(t, dir, "", "x", arc, "src/docs/c.txt", `two\`).expect(t, ExitOK, `x s.7z PATTERN two\`)
	if got := keys(readTree(t, filepath.Join(dir, `two\`))); got != "src src/docs src/docs/c.txt" {
		t.Errorf("x with a pattern and a destination: %s", got)
	}
	garc(t, dir, "", "e", arc, "flat/").expect(t, ExitOK, "e s.7z flat/")
	if _, err := os.Stat(filepath.Join(dir, "flat", "c.txt")); err != nil {
		t.Errorf("e s.7z flat/: %v", err)
	}
	// With -o the last argument stays a pattern (it matches the src
	// directory here).
	garc(t, dir, "", "x", "-othree", arc, "src/").expect(t, ExitOK, "-o with a trailing slash pattern")
	if got := readTree(t, filepath.Join(dir, "three")); got["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Errorf("x -othree s.7z src/: %s", keys(got))
	}
}

func TestExtractToStdout(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	bin := testenv.SevenZip(t)
	want, err := exec.Command(bin, "x", "-so", arc).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range []string{"-so", "--stdout", "-SO"} {
		r := garc(t, dir, "", "x", sw, arc)
		r.expect(t, ExitOK, "x "+sw)
		if r.stdout != string(want) || r.stderr != "" {
			t.Errorf("x %s: %d bytes (7zz: %d), stderr %q", sw, len(r.stdout), len(want), r.stderr)
		}
	}
	r := garc(t, dir, "", "e", "-so", arc, "src/docs/c.txt")
	r.expect(t, ExitOK, "e -so PATTERN")
	if r.stdout != sampleFiles["src/docs/c.txt"] {
		t.Errorf("e -so src/docs/c.txt: %.40q", r.stdout)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // src and s.7z
		t.Errorf("-so created files: %d entries in the directory", len(entries))
	}
	garc(t, dir, "", "x", "-so", "-oout", arc).expect(t, ExitUsage, "-so with -o")
	garc(t, dir, "", "x", "-so", arc, "nothing").expect(t, ExitNoMatch, "-so without a match")

	// A damaged entry: the data has gone out, the mismatch is exit 3.
	stored := makeArchive(t, dir, "stored.7z", "-mx=0", "-ms=off")
	data, _ := os.ReadFile(stored)
	i := bytes.Index(data, []byte("gamma gamma"))
	data[i] = 'G'
	os.WriteFile(stored, data, 0o644)
	r = garc(t, dir, "", "x", "-so", stored)
	r.expect(t, ExitChecksum, "-so damaged")
	if !strings.Contains(r.stderr, "src/docs/c.txt") || !strings.Contains(r.stdout, sampleFiles["src/a.txt"]) || strings.Contains(r.stdout, "garc:") {
		t.Errorf("-so damaged:\nstderr %q", r.stderr)
	}
	// Encrypted without a password: exit 11, nothing on stdout.
	enc := makeArchive(t, dir, "enc.7z", "-psecret")
	r = garc(t, dir, "", "x", "-so", enc)
	r.expect(t, ExitPassword, "-so encrypted")
	if r.stdout != "" {
		t.Errorf("-so without a password wrote %d bytes", len(r.stdout))
	}
	r = garc(t, dir, "", "x", "-so", "-psecret", enc)
	r.expect(t, ExitOK, "-so encrypted with password")
	if r.stdout != string(want) {
		t.Errorf("-so encrypted: %d bytes", len(r.stdout))
	}
}

func TestCompatSwitches(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	garc(t, dir, "", "x", "-bb1", "-bso0", "-bse0", "-bsp0", "-sccUTF-8", "-scsUTF-8", "-snh", "-sni", "-ssc", "-bt", "-y", arc, "-oout").
		expect(t, ExitOK, "harmless 7-Zip switches")
	if got := readTree(t, filepath.Join(dir, "out")); got["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Errorf("extraction with ignored switches: %s", keys(got))
	}
	garc(t, dir, "", "t", "-bb3", "-idq", arc).expect(t, ExitOK, "t with -bb3 -idq")
	for _, sw := range []string{"-spf", "-spf2", "-ssc-", "-scsWIN", "-spe"} {
		r := garc(t, dir, "", "x", sw, arc, "-oout2")
		r.expect(t, ExitUsage, sw)
		if !strings.Contains(r.stderr, "not supported") || r.stdout != "" {
			t.Errorf("%s: stderr %q", sw, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out2")); err == nil {
			t.Fatalf("%s: extracted although refused", sw)
		}
	}
	garc(t, dir, "", "t", "-so", arc).expect(t, ExitUsage, "-so with t")
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "adir.7z"), 0o755)
	writeTree(t, dir, map[string]string{"empty.rar": ""})
	for _, tc := range []struct{ arg, msg string }{
		{"adir.7z", "is a directory"},
		{"empty.rar", "empty file"},
		{"missing.7z", "no such file"},
	} {
		for _, cmd := range []string{"x", "t", "l"} {
			r := garc(t, dir, "", cmd, tc.arg)
			r.expect(t, ExitFatal, cmd+" "+tc.arg)
			if cmd == "t" {
				// "Testing archive: NAME" and the diagnostic, on stderr.
				head, ok := strings.CutPrefix(r.stderr, "Testing archive: "+tc.arg+"\n")
				if !ok || r.stdout != "" || !strings.Contains(head, tc.msg) || !strings.HasPrefix(head, "garc: ") {
					t.Errorf("t %s: stdout %q, stderr %q", tc.arg, r.stdout, r.stderr)
				}
				continue
			}
			if !strings.Contains(r.stderr, tc.msg) || !strings.HasPrefix(r.stderr, "garc: ") {
				t.Errorf("%s %s: message %q lacks %q", cmd, tc.arg, r.stderr, tc.msg)
			}
		}
	}
	// A later volume of a complete set opens the set from its first
	// volume and says so (issue 12.4); without the first volume it
	// fails naming it.
	rarVolumes(t, dir)
	for _, args := range [][]string{{"x", "-oout"}, {"t"}, {"l"}} {
		cmd := args[0]
		r := garc(t, dir, "", append(args, "vols.part3.rar")...)
		r.expect(t, ExitOK, cmd+" later volume")
		if note := "garc: vols.part3.rar: a later volume: the set is read from its first volume, vols.part1.rar\n"; !strings.Contains(r.stderr, note) {
			t.Errorf("%s later volume: stderr %q lacks %q", cmd, r.stderr, note)
		}
	}
	if r := garc(t, dir, "", "l", "-q", "vols.part3.rar"); strings.Contains(r.stderr, "first volume") {
		t.Errorf("l -q later volume: stderr %q", r.stderr)
	}
	os.Remove(filepath.Join(dir, "vols.part1.rar"))
	r := garc(t, dir, "", "x", "vols.part3.rar", "-oout")
	r.expect(t, ExitFatal, "later volume without the first")
	if !strings.Contains(r.stderr, "the first volume vols.part1.rar is missing") {
		t.Errorf("later volume: %q does not name the first", r.stderr)
	}
	if os.Geteuid() == 0 {
		t.Log("the permission-denied case is left out: permission checks do not apply to root")
		return
	}
	writeTree(t, dir, map[string]string{"locked.7z": "x"})
	os.Chmod(filepath.Join(dir, "locked.7z"), 0)
	r = garc(t, dir, "", "t", "locked.7z")
	r.expect(t, ExitFatal, "permission denied")
	if !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("message %q", r.stderr)
	}
}

// TestSLTMatches7zz compares `garc l -slt` with `7zz l -slt` from the
// "--" line on: archive block and every entry, key for key.
func TestSLTMatches7zz(t *testing.T) {
	bin := testenv.SevenZip(t)
	dir := t.TempDir()
	writeTree(t, dir, sampleFiles)
	writeTree(t, dir, map[string]string{"src/empty.txt": ""})
	os.Chmod(filepath.Join(dir, "src/b.png"), 0o600)
	os.Symlink("a.txt", filepath.Join(dir, "src/link"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"solid.7z", []string{"-mx=5"}},
		{"stored.7z", []string{"-mx=0", "-ms=off", "-mtc=on", "-mta=on", "-snl"}},
		{"bcj.7z", []string{"-m0=BCJ", "-m1=LZMA:d=1m", "-ms=2f"}},
		{"enc.7z", []string{"-psecret", "-mhe=on", "-m0=PPMd"}},
		{"bzip2.7z", []string{"-m0=BZip2", "-ms=off"}},
	} {
		sevenZip(t, dir, append([]string{"a", "-bd", tc.name, "src"}, tc.args...)...)
		cmd := exec.Command(bin, "l", "-slt", "-psecret", tc.name)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("7zz l -slt %s: %v", tc.name, err)
		}
		want := string(out[bytes.Index(out, []byte("\n--\n"))+1:])
		r := garc(t, dir, "", "l", "-slt", "-psecret", tc.name)
		r.expect(t, ExitOK, "l -slt "+tc.name)
		got := r.stdout[strings.Index(r.stdout, "\n--\n")+1:]
		if got != want {
			t.Errorf("%s: -slt differs from 7zz\n--- 7zz\n%s\n--- garc\n%s", tc.name, want, got)
		}
	}
}

// TestSLTRAR checks the RAR -slt keys: 7-Zip's RAR handler keys in its
// order, the link target, and 7-Zip's type and host names.
func TestSLTRAR(t *testing.T) {
	root := testenv.CorpusRoot(t)
	r := garc(t, root, "", "l", "-slt", "files/libarchive/test_read_format_rar5_symlink.rar")
	r.expect(t, ExitOK, "l -slt rar5")
	if !strings.Contains(r.stdout, "\nType = Rar5\n") {
		t.Errorf("type:\n%s", r.stdout)
	}
	blocks := strings.Split(r.stdout[strings.Index(r.stdout, "----------\n")+11:], "\n\n")
	var keys []string
	for _, line := range strings.Split(blocks[1], "\n") {
		k, _, _ := strings.Cut(line, " = ")
		keys = append(keys, k)
	}
	want := "Path Folder Size Packed Size Modified Attributes Encrypted Solid Split Before Split After CRC Host OS Method Symbolic Link"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("keys of a RAR5 symlink entry:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(blocks[1], "Symbolic Link = file.txt") || !strings.Contains(blocks[1], "Host OS = Unix") {
		t.Errorf("symlink entry:\n%s", blocks[1])
	}
	r = garc(t, root, "", "l", "-slt", "files/sharpcompress/Archives__Rar.comment.rar")
	r.expect(t, ExitOK, "l -slt rar4")
	if !strings.Contains(r.stdout, "\nType = Rar\n") || !strings.Contains(r.stdout, "\nHost OS = Win32\n") || !strings.Contains(r.stdout, "\nSolid = +\n") {
		t.Errorf("RAR4 listing:\n%s", r.stdout)
	}
}
