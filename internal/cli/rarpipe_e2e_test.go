package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// rarPipeUnits are corpus RARs piped into garc: RAR 1.5, 2.x, 2.9 and 5,
// solid and not, encrypted data and encrypted headers (-hp, RAR 2.9 and
// RAR5), comments, symbolic links (RAR 2.9 and 5), RAR5 file copies, and
// a RAR5 self-extractor (which is copied to a temporary file first). The
// second field is the password.
var rarPipeUnits = [][2]string{
	{"files/sharpcompress/Archives__Rar15.rar", ""},
	{"files/sharpcompress/Archives__Rar2.rar", ""},
	{"files/sharpcompress/Archives__Rar.solid.rar", ""},
	{"files/sharpcompress/Archives__Rar5.solid.rar", ""},
	{"files/sharpcompress/Archives__Rar.encrypted_filesAndHeader.rar", "test"},
	{"files/sharpcompress/Archives__Rar5.encrypted_filesOnly.rar", "test"},
	{"files/rarfile/files__rar5-hpsw.rar", "password"},
	{"files/rarfile/files__rar3-comment-psw.rar", "password"},
	{"files/libarchive/test_read_format_rar_unicode.rar", ""},
	{"files/libarchive/test_read_format_rar5_symlink.rar", ""},
	{"files/rarfile/files__rar5-dups.rar", ""},
	{"files/libarchive/test_read_format_rar5_sfx.exe", ""}, // copied, then read
}

// TestStdinRAR pipes RARs into x, e, l and t with "-": each does what it
// does with the same archive as a file (the same tree, the same listing
// and test summary but for the archive's name). The RAR is read as it
// arrives, not copied (TestStdinRARHalfWritten proves it).
func TestStdinRAR(t *testing.T) {
	root := testenv.CorpusRoot(t)
	for i, u := range rarPipeUnits {
		name, pw := u[0], u[1]
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := t.TempDir()
			arc := filepath.Join(root, name)
			data, err := os.ReadFile(arc)
			if err != nil {
				t.Fatal(err)
			}
			in := string(data)
			var pwArgs []string
			if pw != "" {
				pwArgs = []string{"-p" + pw}
			}
			args := func(a ...string) []string { return append(a, pwArgs...) }

			garc(t, dir, "", args("x", arc, "-o", "ref")...).expect(t, ExitOK, "x file")
			want := readTree(t, filepath.Join(dir, "ref"))
			garc(t, dir, in, args("x", "-", "-o", "new/dest")...).expect(t, ExitOK, "x -")
			if got := readTree(t, filepath.Join(dir, "new/dest")); !reflect.DeepEqual(got, want) {
				t.Errorf("x -: %v, want %v", keys(got), keys(want))
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "new")); len(ents) != 1 {
				t.Errorf("x - left %v beside the destination", ents)
			}
			sameLinks(t, filepath.Join(dir, "ref"), filepath.Join(dir, "new/dest"))

			l := garc(t, dir, "", args("l", arc)...)
			l.expect(t, ExitOK, "l file")
			lin := garc(t, dir, in, args("l", "-")...)
			lin.expect(t, ExitOK, "l -")
			if withoutLines(lin.stdout, "Path = ") != withoutLines(l.stdout, "Path = ") {
				t.Errorf("l -:\n%s\nwant:\n%s", lin.stdout, l.stdout)
			}

			tf := garc(t, dir, "", args("t", arc)...)
			tf.expect(t, ExitOK, "t file")
			tin := garc(t, dir, in, args("t", "-")...)
			tin.expect(t, ExitOK, "t -")
			if withoutLines(tin.stderr, "Testing archive: ") != withoutLines(tf.stderr, "Testing archive: ") {
				t.Errorf("t -:\n%s\nwant:\n%s", tin.stderr, tf.stderr)
			}

			if i%3 != 0 {
				return // e reads as x does: a few suffice
			}
			garc(t, dir, "", args("e", arc, "-o", "flat-ref")...).expect(t, ExitOK, "e file")
			garc(t, dir, in, args("e", "-", "-o", "flat")...).expect(t, ExitOK, "e -")
			if got, want := readTree(t, filepath.Join(dir, "flat")), readTree(t, filepath.Join(dir, "flat-ref")); !reflect.DeepEqual(got, want) {
				t.Errorf("e -: %v, want %v", keys(got), keys(want))
			}
		})
	}
}

// sameLinks checks that the symbolic links and hard links of two trees
// agree: readTree compares contents only.
func sameLinks(t *testing.T, want, got string) {
	t.Helper()
	filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		wi, _ := os.Lstat(p)
		gi, err := os.Lstat(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if wi.Mode().Type() != gi.Mode().Type() {
			t.Errorf("%s: %v, want %v", rel, gi.Mode().Type(), wi.Mode().Type())
		}
		if wi.Mode().Type() == os.ModeSymlink {
			wt, _ := os.Readlink(p)
			gt, _ := os.Readlink(filepath.Join(got, rel))
			if wt != gt {
				t.Errorf("%s -> %q, want %q", rel, gt, wt)
			}
		}
		return nil
	})
}

// TestStdinRARVolume pipes the first volume of a RAR5 set and of a RAR
// 2.9 set: only one volume can come through a pipe, so x - extracts the
// whole files before the one continued in the next volume, rolls that
// one back and exits 2 naming the volume, as x does with the first
// volume's file when the next is missing; l - lists the first volume's
// entries and fails the same way.
func TestStdinRARVolume(t *testing.T) {
	root := testenv.CorpusRoot(t)
	for _, c := range []struct{ name, whole, cut, volume string }{
		{"files/junrar/com__github__junrar__volumes__rar5-part__vols.part1.rar", "note.txt", "spanned.bin", "volume 2"},
		{"files/sharpcompress/Archives__Rar.multi.part01.rar", "", "", "volume 2"},
	} {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(filepath.Join(root, c.name))
			if err != nil {
				t.Fatal(err)
			}
			// The first volume alone as a file: its set's next volume
			// is missing.
			alone := filepath.Join(dir, "alone", filepath.Base(c.name))
			os.MkdirAll(filepath.Dir(alone), 0o755)
			os.WriteFile(alone, data, 0o644)
			garc(t, dir, "", "x", alone, "-o", "ref").expect(t, ExitFatal, "x of a first volume alone")
			want := readTree(t, filepath.Join(dir, "ref"))

			r := garc(t, dir, string(data), "x", "-", "-o", "out")
			r.expect(t, ExitFatal, "x - of a first volume")
			if !strings.Contains(r.stderr, c.volume) || !strings.Contains(r.stderr, "pipe") {
				t.Errorf("the error does not name %s and the pipe:\n%s", c.volume, r.stderr)
			}
			got := readTree(t, filepath.Join(dir, "out"))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("x -: %v, want %v (x of the volume alone)", keys(got), keys(want))
			}
			if c.whole != "" {
				if _, ok := got[c.whole]; !ok {
					t.Errorf("%s, whole in the first volume, not extracted: %v", c.whole, keys(got))
				}
				if _, ok := got[c.cut]; ok {
					t.Errorf("%s, cut at the end of the volume, left behind", c.cut)
				}
				if !strings.Contains(r.stderr, c.cut) {
					t.Errorf("the cut entry %s is not named:\n%s", c.cut, r.stderr)
				}
			}
			l := garc(t, dir, string(data), "l", "-")
			l.expect(t, ExitFatal, "l - of a first volume")
			if !strings.Contains(l.stderr, c.volume) {
				t.Errorf("l -: the error does not name %s:\n%s", c.volume, l.stderr)
			}
		})
	}
}

// TestStdinRARTruncated pipes a RAR cut in the middle of an entry's data
// and one cut in a header: the entries before are extracted, the cut one
// is rolled back, and garc exits 2 naming the archive ("-"), the entry
// and the offset where it ends; nothing waits for more input.
func TestStdinRARTruncated(t *testing.T) {
	root := testenv.CorpusRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "files/sharpcompress/Archives__Rar.issue1050.rar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := garc(t, dir, string(data[:2000000]), "x", "-", "-o", "out")
	r.expect(t, ExitFatal, "x - of a RAR cut in an entry's data")
	for _, s := range []string{"garc: -: Braid/766832.tr11dtp: packed offset ", "at offset 2000000"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("the error does not say %q:\n%s", s, r.stderr)
		}
	}
	got := readTree(t, filepath.Join(dir, "out"))
	if _, ok := got["Braid/766832.tr11dtp"]; ok {
		t.Error("the cut entry was left behind")
	}
	if _, ok := got["Braid/766728.tr11dtp"]; !ok {
		t.Errorf("the whole entry before the cut was not extracted: %v", keys(got))
	}
	r = garc(t, dir, string(data[:30]), "l", "-")
	r.expect(t, ExitFatal, "l - of a RAR cut in a header")
	if !strings.Contains(r.stderr, "garc: -: at offset ") {
		t.Errorf("the error does not name the archive and the offset:\n%s", r.stderr)
	}
}

// TestStdinRARCopyToStdout: a RAR5 file copy repeats the content of an
// earlier entry, which x - writes as a copy of the file it made; with -so
// from a pipe that content is gone, and each copy fails naming its source
// (exit 2) after the source's own content was written.
func TestStdinRARCopyToStdout(t *testing.T) {
	root := testenv.CorpusRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "files/rarfile/files__rar5-dups.rar"))
	if err != nil {
		t.Fatal(err)
	}
	r := garc(t, t.TempDir(), string(data), "x", "-so", "-")
	r.expect(t, ExitFatal, "x -so - of file copies")
	if len(r.stdout) != 2048 {
		t.Errorf("stdout has %d bytes, want stest1.txt's 2048", len(r.stdout))
	}
	if !strings.Contains(r.stderr, "garc: -: stest2.txt: a copy of stest1.txt, which the pipe brought before it") {
		t.Errorf("the error does not name the copy and its source:\n%s", r.stderr)
	}
}
