package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// toolOutput runs a tool in dir and returns its standard output.
func toolOutput(t *testing.T, dir, tool string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Tool(t, tool), args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v", tool, args, err)
	}
	return out
}

// withoutLines drops the lines starting with prefix.
func withoutLines(s, prefix string) string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, prefix) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// TestStdinArchive reads every format from a pipe with "-": x, e, l and
// t do what they do with the same archive as a file (the same tree, the
// same listing and test summary but for the archive's name), and a 7z
// (copied to a temporary file, which it needs) leaves nothing but the
// extracted files in the destination, also when that does not exist yet.
func TestStdinArchive(t *testing.T) {
	dir := t.TempDir()
	makeArchive(t, dir, "a.7z")
	tarData := toolOutput(t, dir, "tar", "cf", "-", "src")
	os.WriteFile(filepath.Join(dir, "a.tar"), tarData, 0o644)
	for name, cmd := range map[string][]string{
		"a.tar.gz": {"gzip", "-c", "a.tar"}, "a.tar.zst": {"zstd", "-q", "-c", "a.tar"}, "a.tar.xz": {"xz", "-c", "a.tar"},
		"a.tar.bz2": {"bzip2", "-c", "a.tar"}, "a.tar.lzma": {"xz", "--format=lzma", "-c", "a.tar"},
	} {
		os.WriteFile(filepath.Join(dir, name), toolOutput(t, dir, cmd[0], cmd[1:]...), 0o644)
	}
	sevenZip(t, dir, "a", "-bd", "-tzip", "a.zip", "src")
	for _, name := range []string{"a.tar", "a.tar.gz", "a.tar.zst", "a.tar.xz", "a.tar.bz2", "a.tar.lzma", "a.7z", "a.zip"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		in := string(data)
		ref := filepath.Join(dir, "ref-"+name)
		garc(t, dir, "", "x", name, "-o", ref).expect(t, ExitOK, "x "+name)
		want := readTree(t, ref)

		out := filepath.Join(dir, "new-"+name, "dest") // "new-…" does not exist yet
		garc(t, dir, in, "x", "-", "-o", out).expect(t, ExitOK, "x - < "+name)
		if got := readTree(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("x - < %s: %v, want %v", name, keys(got), keys(want))
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "new-"+name)); len(ents) != 1 {
			t.Errorf("x - < %s left %v beside the destination", name, ents)
		}

		l := garc(t, dir, "", "l", name)
		l.expect(t, ExitOK, "l "+name)
		lin := garc(t, dir, in, "l", "-")
		lin.expect(t, ExitOK, "l - < "+name)
		if withoutLines(lin.stdout, "Path = ") != withoutLines(l.stdout, "Path = ") {
			t.Errorf("l - < %s:\n%s\nwant:\n%s", name, lin.stdout, l.stdout)
		}
		if strings.HasSuffix(name, ".xz") || strings.HasSuffix(name, ".bz2") || strings.HasSuffix(name, ".zst") || strings.HasSuffix(name, ".lzma") {
			continue // read as a.tar.gz is, by the same code
		}

		flat := filepath.Join(dir, "flat-"+name)
		garc(t, dir, in, "e", "-", "-o", flat).expect(t, ExitOK, "e - < "+name)
		if _, err := os.Stat(filepath.Join(flat, "c.txt")); err != nil {
			t.Errorf("e - < %s: %v", name, err)
		}

		tf := garc(t, dir, "", "t", name)
		tf.expect(t, ExitOK, "t "+name)
		tin := garc(t, dir, in, "t", "-")
		tin.expect(t, ExitOK, "t - < "+name)
		if withoutLines(tin.stderr, "Testing archive: ") != withoutLines(tf.stderr, "Testing archive: ") {
			t.Errorf("t - < %s:\n%s\nwant:\n%s", name, tin.stderr, tf.stderr)
		}

		// Patterns select as they do for a file, in the one reading.
		so := garc(t, dir, in, "x", "-so", "-", "src/docs/c.txt")
		so.expect(t, ExitOK, "x -so - < "+name)
		if so.stdout != sampleFiles["src/docs/c.txt"] {
			t.Errorf("x -so - src/docs/c.txt < %s: %d bytes", name, len(so.stdout))
		}
		sel := filepath.Join(dir, "sel-"+name)
		garc(t, dir, in, "x", "-", "-o", sel, "src/docs/*").expect(t, ExitOK, "x - PATTERN < "+name)
		if got := readTree(t, sel); len(got) != 4 || got["src/docs/d.bin"] != sampleFiles["src/docs/d.bin"] {
			t.Errorf("x - src/docs/* < %s: %v", name, keys(got))
		}
	}
}

// TestStdinSingleStream extracts compressed files from a pipe as 7-Zip's
// -si does: the name the gzip header records, else "~".
func TestStdinSingleStream(t *testing.T) {
	dir := t.TempDir()
	content := strings.Repeat("a single stream\n", 5000)
	writeTree(t, dir, map[string]string{"notes.txt": content})
	named := toolOutput(t, dir, "gzip", "-c", "notes.txt")                   // FNAME notes.txt
	unnamed := string(toolOutput(t, dir, "sh", "-c", "gzip -c < notes.txt")) // no FNAME
	zst := string(toolOutput(t, dir, "zstd", "-q", "-c", "notes.txt"))
	for _, c := range []struct {
		name, data, want string
		tflag            string
	}{
		{"named gzip", string(named), "notes.txt", "-tgzip"},
		{"unnamed gzip", unnamed, "~", "-tgzip"},
		{"zstd", zst, "~", "-tzstd"},
	} {
		out := filepath.Join(dir, "out-"+c.tflag+c.want)
		garc(t, dir, c.data, "x", "-", "-o", out).expect(t, ExitOK, c.name)
		got := readTree(t, out)
		if !reflect.DeepEqual(got, map[string]string{c.want: content}) {
			t.Errorf("%s: %v, want %s", c.name, keys(got), c.want)
		}
		// 7-Zip's -si names it the same.
		anchor := filepath.Join(dir, "7zz-"+c.tflag+c.want)
		cmd := exec.Command(testenv.SevenZip(t), "x", "-si", c.tflag, "-o"+anchor)
		cmd.Stdin = strings.NewReader(c.data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7zz x -si: %v\n%s", err, out)
		}
		if a := readTree(t, anchor); !reflect.DeepEqual(got, a) {
			t.Errorf("%s: garc %v, 7zz -si %v", c.name, keys(got), keys(a))
		}
	}
}

// TestStdinErrors: --password-stdin with the archive on stdin is a usage
// error (the password would be read from the archive); an empty stdin, a
// cut-off compressed tar and text are fatal (exit 2), and a 7z cut short
// leaves no temporary copy in the destination.
func TestStdinErrors(t *testing.T) {
	dir := t.TempDir()
	makeArchive(t, dir, "a.7z")
	tgz := string(toolOutput(t, dir, "sh", "-c", "tar cf - src | gzip -c"))
	seven, _ := os.ReadFile(filepath.Join(dir, "a.7z"))

	r := garc(t, dir, tgz, "x", "--password-stdin", "-", "-o", "o1")
	r.expect(t, ExitUsage, "--password-stdin with -")
	if !strings.Contains(r.stderr, "--password-stdin") {
		t.Errorf("the usage error does not name --password-stdin: %s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "o1")); err == nil {
		t.Error("x ran despite the usage error")
	}
	garc(t, dir, "", "x", "-", "-o", "o2").expect(t, ExitFatal, "empty stdin")
	garc(t, dir, "just some text\n", "l", "-").expect(t, ExitFatal, "text on stdin")
	r = garc(t, dir, tgz[:len(tgz)/2], "x", "-", "-o", "o3")
	r.expect(t, ExitFatal, "a .tar.gz cut short")
	if !strings.Contains(r.stderr, "garc: -: ") {
		t.Errorf("the archive is not named '-': %s", r.stderr)
	}
	garc(t, dir, string(seven[:len(seven)-40]), "x", "-", "-o", "o4").expect(t, ExitFatal, "a 7z cut short")
	if ents, _ := os.ReadDir(filepath.Join(dir, "o4")); len(ents) != 0 {
		t.Errorf("a 7z cut short left %v", ents)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 { // src, a.7z, o3
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v", names)
	}
}

// TestStdinZIPModesAndLinks pipes a ZIP whose unix modes and symbolic
// link live in its central directory only (Info-ZIP's zip -y): read
// through its temporary copy, x - makes the same link and the same
// executable file as x of the file.
func TestStdinZIPModesAndLinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"p/run.sh": "#!/bin/sh\n", "p/data.txt": "data\n"})
	os.Chmod(filepath.Join(dir, "p/run.sh"), 0o755)
	if err := os.Symlink("data.txt", filepath.Join(dir, "p/link")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testenv.Tool(t, "zip"), "-q", "-r", "-y", "p.zip", "p")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "p.zip"))
	garc(t, dir, "", "x", "p.zip", "-o", "file").expect(t, ExitOK, "x p.zip")
	garc(t, dir, string(data), "x", "-", "-o", "pipe").expect(t, ExitOK, "x - < p.zip")
	for _, name := range []string{"p/run.sh", "p/data.txt", "p/link"} {
		a, err1 := os.Lstat(filepath.Join(dir, "file", name))
		b, err2 := os.Lstat(filepath.Join(dir, "pipe", name))
		if err1 != nil || err2 != nil || a.Mode() != b.Mode() {
			t.Errorf("%s: from the file %v (%v), from the pipe %v (%v)", name, a.Mode(), err1, b.Mode(), err2)
		}
	}
	if target, _ := os.Readlink(filepath.Join(dir, "pipe/p/link")); target != "data.txt" {
		t.Errorf("the link from the pipe points to %q", target)
	}
}
