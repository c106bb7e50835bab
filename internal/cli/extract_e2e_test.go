package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// readTree returns name → content of the regular files under dir, with
// symlinks as "-> target" and directories as "/".
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case fi.IsDir():
			out[rel] = "/"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")

	garc(t, dir, "", "x", arc, "-o", "out").expect(t, ExitOK, "x -o out")
	got := readTree(t, filepath.Join(dir, "out"))
	for name, content := range sampleFiles {
		if got[name] != content {
			t.Errorf("x: %s = %.20q, want %.20q", name, got[name], content)
		}
	}
	if got["src/docs"] != "/" || got["src/empty"] != "/" {
		t.Errorf("x: directories missing: %s", keys(got))
	}

	// 7-Zip spellings, switches before the command, -o attached.
	garc(t, dir, "", "-y", "x", "-oout2", arc).expect(t, ExitOK, "-y x -oout2")
	if g := readTree(t, filepath.Join(dir, "out2")); g["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Errorf("x -oout2: %s", keys(g))
	}

	// e: flat.
	garc(t, dir, "", "e", arc, "-oflat").expect(t, ExitOK, "e")
	flat := readTree(t, filepath.Join(dir, "flat"))
	for _, n := range []string{"a.txt", "b.png", "c.txt", "d.bin"} {
		if _, ok := flat[n]; !ok {
			t.Errorf("e: %s missing: %s", n, keys(flat))
		}
	}
	for n := range flat {
		if strings.Contains(n, "/") {
			t.Errorf("e: %s is not flat", n)
		}
	}

	// Patterns select entries; -r makes them match at any depth.
	garc(t, dir, "", "x", arc, "-r", "*.txt", "-osel").expect(t, ExitOK, "x -r *.txt")
	sel := readTree(t, filepath.Join(dir, "sel"))
	if sel["src/a.txt"] == "" || sel["src/docs/c.txt"] == "" || sel["src/b.png"] != "" || sel["src/docs/d.bin"] != "" {
		t.Errorf("x -r *.txt: %s", keys(sel))
	}
	garc(t, dir, "", "x", arc, "src/docs", "-xr!*.bin", "-osel2").expect(t, ExitOK, "x src/docs -xr!*.bin")
	sel2 := readTree(t, filepath.Join(dir, "sel2"))
	if sel2["src/docs/c.txt"] == "" || sel2["src/docs/d.bin"] != "" || sel2["src/a.txt"] != "" {
		t.Errorf("x src/docs -xr!*.bin (-x!*.bin is top level only, as in 7-Zip): %s", keys(sel2))
	}
	writeTree(t, dir, map[string]string{"list.txt": "src/b.png\n\nsrc/docs/d.bin\n"})
	garc(t, dir, "", "x", arc, "@list.txt", "-osel3").expect(t, ExitOK, "x @list.txt")
	if k := keys(readTree(t, filepath.Join(dir, "sel3"))); !strings.Contains(k, "src/b.png") || !strings.Contains(k, "src/docs/d.bin") || strings.Contains(k, "a.txt") {
		t.Errorf("x @list.txt: %s", k)
	}
}

func TestOverwriteModes(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	out := filepath.Join(dir, "out")
	garc(t, dir, "", "x", arc, "-o", out).expect(t, ExitOK, "first x")
	target := filepath.Join(out, "src", "a.txt")
	set := func() { os.WriteFile(target, []byte("local edit"), 0o644) }
	content := func() string { b, _ := os.ReadFile(target); return string(b) }

	// Default without a terminal: never overwrite, warn, exit 1.
	set()
	r := garc(t, dir, "", "x", arc, "-o", out)
	r.expect(t, ExitWarning, "x again without -y")
	if content() != "local edit" {
		t.Error("existing file overwritten without -y")
	}
	if !strings.Contains(r.stderr, "a.txt") {
		t.Errorf("skipped file not reported: %q", r.stderr)
	}
	// -aos: skip quietly.
	garc(t, dir, "", "x", "-aos", arc, "-o", out).expect(t, ExitOK, "x -aos")
	if content() != "local edit" {
		t.Error("-aos overwrote")
	}
	// -y and -aoa and unrar's -o+: overwrite.
	for _, sw := range []string{"-y", "-aoa", "-o+", "--overwrite=all"} {
		set()
		garc(t, dir, "", "x", sw, arc, "-o", out).expect(t, ExitOK, "x "+sw)
		if content() != sampleFiles["src/a.txt"] {
			t.Errorf("%s did not overwrite", sw)
		}
	}
	// -aou: keep both.
	set()
	garc(t, dir, "", "x", "-aou", arc, "-o", out).expect(t, ExitOK, "x -aou")
	if content() != "local edit" {
		t.Error("-aou overwrote the existing file")
	}
	found := false
	ents, _ := os.ReadDir(filepath.Join(out, "src"))
	for _, e := range ents {
		if e.Name() != "a.txt" && strings.HasPrefix(e.Name(), "a") {
			b, _ := os.ReadFile(filepath.Join(out, "src", e.Name()))
			found = found || string(b) == sampleFiles["src/a.txt"]
		}
	}
	if !found {
		t.Error("-aou wrote no renamed copy")
	}
	// -aot: the existing file is renamed to a_1.txt, as 7-Zip does, and
	// the archive's copy takes its name (issue 12.2).
	os.RemoveAll(out)
	garc(t, dir, "", "x", arc, "-o", out).expect(t, ExitOK, "x into a fresh destination")
	set()
	garc(t, dir, "", "x", "-aot", arc, "-o", out).expect(t, ExitOK, "x -aot")
	if content() != sampleFiles["src/a.txt"] {
		t.Errorf("-aot: a.txt holds %q, want the archive's copy", content())
	}
	if b, err := os.ReadFile(filepath.Join(out, "src", "a_1.txt")); err != nil || string(b) != "local edit" {
		t.Errorf("-aot: the existing file was not renamed to a_1.txt: %q, %v", b, err)
	}
}

func TestCannotCreateOutput(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	writeTree(t, dir, map[string]string{"blocker": "a file where a directory should be"})
	r := garc(t, dir, "", "x", arc, "-o", "blocker/out")
	r.expect(t, ExitCreate, "x into a path under a file")
}

func TestHostileArchives(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(outside, 0o755)

	// A symlink pointing out of the destination, then a file through it
	// (the unrar CVE-2022-30333 pattern).
	t1, t2 := filepath.Join(dir, "t1"), filepath.Join(dir, "t2")
	os.MkdirAll(t1, 0o755)
	if err := os.Symlink("../outside", filepath.Join(t1, "link")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, t2, map[string]string{"link/evil.txt": "pwned"})
	sevenZip(t, t1, "a", "-bd", "-snl", "../hostile.7z", "link")
	sevenZip(t, t2, "a", "-bd", "../hostile.7z", "link/evil.txt")
	os.MkdirAll(filepath.Join(dir, "dest", "x"), 0o755)
	r := garc(t, dir, "", "x", "hostile.7z", "-o", "dest/x")
	if r.code != ExitWarning && r.code != ExitFatal {
		t.Errorf("hostile link archive: exit %d, want a refusal (1)\n%s", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("a file was written outside the destination: %v", ents)
	}
	if !strings.Contains(r.stderr, "link") {
		t.Errorf("refusal not reported: %q", r.stderr)
	}
	// --links=unsafe still never writes through the link.
	r = garc(t, dir, "", "x", "--links=unsafe", "-y", "hostile.7z", "-o", "dest/y")
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("--links=unsafe wrote through a link: %v (exit %d, %s)", ents, r.code, r.stderr)
	}

	// A stored "../" path.
	inner := filepath.Join(dir, "inner")
	writeTree(t, dir, map[string]string{"escape.txt": "escaped"})
	os.MkdirAll(inner, 0o755)
	sevenZip(t, inner, "a", "-bd", "-spf", "../dotdot.7z", "../escape.txt")
	os.Remove(filepath.Join(dir, "escape.txt"))
	os.MkdirAll(filepath.Join(dir, "dest2", "x"), 0o755)
	r = garc(t, dir, "", "x", filepath.Join(dir, "dotdot.7z"), "-o", filepath.Join(dir, "dest2", "x"))
	r.expect(t, ExitWarning, "../ path")
	for _, p := range []string{filepath.Join(dir, "escape.txt"), filepath.Join(dir, "dest2", "escape.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("../ entry written outside the destination: %s", p)
		}
	}
}

func TestExtractDamagedAndPasswords(t *testing.T) {
	dir := t.TempDir()
	stored := makeArchive(t, dir, "stored.7z", "-mx=0", "-ms=off")
	data, _ := os.ReadFile(stored)
	i := strings.Index(string(data), "gamma gamma")
	data[i] = 'G'
	os.WriteFile(stored, data, 0o644)

	r := garc(t, dir, "", "x", stored, "-o", "out")
	r.expect(t, ExitChecksum, "x damaged")
	got := readTree(t, filepath.Join(dir, "out"))
	if _, ok := got["src/docs/c.txt"]; ok {
		t.Error("the damaged file was kept without --keep-broken")
	}
	if got["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Error("the intact files were not extracted")
	}
	garc(t, dir, "", "x", "-kb", stored, "-o", "kept").expect(t, ExitChecksum, "x -kb damaged")
	if c := readTree(t, filepath.Join(dir, "kept"))["src/docs/c.txt"]; len(c) != len(sampleFiles["src/docs/c.txt"]) {
		t.Errorf("-kb did not keep the damaged file (%d bytes)", len(c))
	}

	enc := makeArchive(t, dir, "enc.7z", "-psecret")
	r = garc(t, dir, "", "x", "-pwrong", enc, "-o", "wrong")
	r.expect(t, ExitPassword, "x wrong password")
	if _, err := os.Lstat(filepath.Join(dir, "wrong")); err == nil {
		t.Errorf("a wrong password left the destination behind: %s", keys(readTree(t, filepath.Join(dir, "wrong"))))
	}
	garc(t, dir, "", "x", enc, "-o", "nopw").expect(t, ExitPassword, "x without password")
	garc(t, dir, "", "x", "-psecret", enc, "-o", "right").expect(t, ExitOK, "x right password")
	if readTree(t, filepath.Join(dir, "right"))["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Error("x with the right password produced wrong content")
	}
}
