package cli

import (
	stdtar "archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
	"github.com/klauspost/compress/zstd"
)

// tarMembers lists a tar (plain, gzip or zstd by its name) with Go's
// archive/tar: "name=content" for files, "name/" for directories, and
// the member's xattr note when it has one.
func tarMembers(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	switch {
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case strings.HasSuffix(path, ".zst"):
		zr, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	var out []string
	tr := stdtar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("archive/tar of %s: %v", path, err)
		}
		b, _ := io.ReadAll(tr)
		s := h.Name + "=" + string(b)
		if h.Typeflag == stdtar.TypeDir {
			s = strings.TrimSuffix(h.Name, "/") + "/"
		}
		if x := h.PAXRecords["SCHILY.xattr.user.note"]; x != "" {
			s += " xattr=" + x
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// noTemporaries fails when dir holds a file other than the listed ones.
func noTemporaries(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s holds %q, want %q (a temporary file left?)", dir, got, want)
	}
}

// `a` on an existing tar (plain and compressed) updates it as 7-Zip does:
// a changed file replaced, an unchanged one kept, a new one added, and
// what another archiver stored (pax extended attributes) copied as it
// was; `d` deletes members.
func TestTarUpdateAndDelete(t *testing.T) {
	for _, ext := range []string{"tar", "tar.gz", "tar.zst"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"src/a.txt": "alpha", "src/b.txt": "beta"})
			old := time.Now().Add(-time.Hour)
			os.Chtimes(filepath.Join(dir, "src/a.txt"), old, old)
			os.Chtimes(filepath.Join(dir, "src/b.txt"), old, old)
			// A member written by another archiver, with an extended
			// attribute garc's writer never writes.
			var buf bytes.Buffer
			tw := stdtar.NewWriter(&buf)
			tw.WriteHeader(&stdtar.Header{Name: "foreign.txt", Mode: 0o644, Size: 3, ModTime: old,
				PAXRecords: map[string]string{"SCHILY.xattr.user.note": "kept"}, Format: stdtar.FormatPAX})
			tw.Write([]byte("xyz"))
			tw.Close()
			arc := filepath.Join(dir, "o."+ext)
			raw := buf.Bytes()
			switch ext {
			case "tar.gz":
				var z bytes.Buffer
				zw := gzip.NewWriter(&z)
				zw.Write(raw)
				zw.Close()
				raw = z.Bytes()
			case "tar.zst":
				zw, _ := zstd.NewWriter(nil)
				raw = zw.EncodeAll(raw, nil)
			}
			if err := os.WriteFile(arc, raw, 0o644); err != nil {
				t.Fatal(err)
			}

			garc(t, dir, "", "a", "o."+ext, "src").expect(t, ExitOK, "a src to the foreign tar")
			want := []string{"foreign.txt=xyz xattr=kept", "src/", "src/a.txt=alpha", "src/b.txt=beta"}
			if got := tarMembers(t, arc); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("after a: %q, want %q", got, want)
			}

			writeTree(t, dir, map[string]string{"src/a.txt": "alpha, changed", "src/c.txt": "gamma"})
			r := garc(t, dir, "", "a", "o."+ext, "src")
			r.expect(t, ExitOK, "a again")
			if !strings.Contains(r.stderr, "unchanged") {
				t.Errorf("a again: %q, want b.txt counted unchanged", r.stderr)
			}
			want = []string{"foreign.txt=xyz xattr=kept", "src/", "src/a.txt=alpha, changed", "src/b.txt=beta", "src/c.txt=gamma"}
			if got := tarMembers(t, arc); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("after the update: %q, want %q", got, want)
			}

			garc(t, dir, "", "d", "o."+ext, "src/b.txt", "foreign.txt").expect(t, ExitOK, "d")
			want = []string{"src/", "src/a.txt=alpha, changed", "src/c.txt=gamma"}
			if got := tarMembers(t, arc); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("after d: %q, want %q", got, want)
			}
			before, _ := os.ReadFile(arc)
			garc(t, dir, "", "d", "o."+ext, "nothing").expect(t, ExitNoMatch, "d of nothing")
			if after, _ := os.ReadFile(arc); !bytes.Equal(before, after) {
				t.Error("d of nothing changed the archive")
			}
			noTemporaries(t, dir, "o."+ext, "src")
		})
	}
}

// A damaged tar is not updated: the error names it, and it stays as it
// was, with no temporary file beside it.
func TestTarUpdateDamaged(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": strings.Repeat("a", 3000), "b.txt": "b"})
	garc(t, dir, "", "a", "-q", "o.tar", "a.txt").expect(t, ExitOK, "a")
	arc := filepath.Join(dir, "o.tar")
	b, _ := os.ReadFile(arc)
	cut := b[:1500]
	os.WriteFile(arc, cut, 0o644)
	r := garc(t, dir, "", "a", "o.tar", "b.txt")
	if r.code == ExitOK || !strings.Contains(r.stderr, "o.tar") || !strings.Contains(r.stderr, "cannot update") {
		t.Errorf("a to a cut tar: exit %d, %q", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(arc); !bytes.Equal(got, cut) {
		t.Error("the damaged archive was changed")
	}
	// A file that is not a tar under a .tar name is refused.
	os.WriteFile(arc, []byte("not a tar at all"), 0o644)
	r = garc(t, dir, "", "a", "o.tar", "b.txt")
	if r.code == ExitOK || !strings.Contains(r.stderr, "not a tar archive") {
		t.Errorf("a to a text file named .tar: exit %d, %q", r.code, r.stderr)
	}
	noTemporaries(t, dir, "a.txt", "b.txt", "o.tar")
}

// `a -si` writes standard input into a tar, plain or compressed, to a
// file or to standard output (-so): tar needs its size first, so it is
// copied into a temporary file that is gone afterwards. GNU tar reads the
// result.
func TestTarFromStdin(t *testing.T) {
	gnuTar := testenv.Tool(t, "tar")
	dir := t.TempDir()
	content := strings.Repeat("piped line\n", 5000)
	for _, ext := range []string{"tar", "tar.gz", "tar.zst"} {
		garc(t, dir, content, "a", "-sipiped.txt", "in."+ext).expect(t, ExitOK, "a -si "+ext)
		if got := tarMembers(t, filepath.Join(dir, "in."+ext)); len(got) != 1 || got[0] != "piped.txt="+content {
			t.Errorf("%s from stdin: %.60q", ext, got)
		}
	}
	r := garc(t, dir, content, "a", "-si", "-so", "-ttar", "out.tar")
	r.expect(t, ExitOK, "a -si -so -ttar")
	cmd := exec.Command(gnuTar, "-xOf", "-")
	cmd.Stdin = strings.NewReader(r.stdout)
	out, err := cmd.Output()
	if err != nil || string(out) != content {
		t.Errorf("GNU tar of a -si -so -ttar: %v, %d bytes", err, len(out))
	}
	noTemporaries(t, dir, "in.tar", "in.tar.gz", "in.tar.zst")
}
