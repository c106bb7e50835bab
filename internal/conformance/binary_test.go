package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestParseDiagnostics: the binary's warnings about refused entries give
// their names; notices and the closing summary are not errors; other
// diagnostics are.
func TestParseDiagnostics(t *testing.T) {
	names := []string{"a", "links/bad", "links/bad2", "dir/x y.txt"}
	stderr := strings.Join([]string{
		"garc: /c/t.rar: links/bad: refused: link target leaves the destination: ../../x",
		"garc: /c/t.rar: /abs: notice: absolute path made relative (leading '/' removed)",
		"garc: /c/t.rar: dir/x y.txt: skipped: cannot create symbolic link: not there",
		"garc: /c/t.rar: unknown: refused: path leaves the destination",
		"Everything is Ok: 1 files, 0 folders, 3 bytes",
		"",
	}, "\n")
	refused, errs := parseDiagnostics(stderr, names)
	if !reflect.DeepEqual(refused, []string{"links/bad"}) {
		t.Errorf("refused %q, want [links/bad]", refused)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "x y.txt: skipped") || !strings.Contains(errs[1].Error(), "unknown: refused") {
		t.Errorf("errors %q, want the skipped link and the refusal of an unlisted name", errs)
	}
}

func TestJSONNames(t *testing.T) {
	out := `{"schema_version":1,"archive":{"path":"x.7z"},"entries":[{"path":"a","type":"file"},{"path":"gone","type":"file","anti":true},{"path":"d/b","type":"file"}]}` + "\n"
	names, err := jsonNames(out)
	if err != nil || !reflect.DeepEqual(names, []string{"a", "d/b"}) {
		t.Fatalf("jsonNames = %q, %v", names, err)
	}
	if _, err := jsonNames("garbage"); err == nil {
		t.Fatal("garbage parsed")
	}
}

// The exit codes stand for the sentinels checkUnit tests.
func TestExitErrorIs(t *testing.T) {
	cases := []struct {
		code   int
		stderr string
		target error
		want   bool
	}{
		{8, "", archive.ErrLimit, true},
		{2, "", archive.ErrLimit, false},
		{11, "", archive.ErrPasswordRequired, true},
		{11, "", archive.ErrWrongPassword, true},
		{2, "garc: x.rar: f: unsupported: method 7", archive.ErrUnsupported, true},
		{2, "garc: x.rar: corrupt", archive.ErrUnsupported, false},
		{1, "", archive.ErrUnsupported, false},
	}
	for _, c := range cases {
		err := error(&exitError{code: c.code, stderr: c.stderr})
		if got := errors.Is(err, c.target); got != c.want {
			t.Errorf("exit %d %q is %v: %v, want %v", c.code, c.stderr, c.target, got, c.want)
		}
	}
}

// TestKnownDifferences: a listed difference must be seen and must explain
// every problem of its unit; malformed lines are errors.
func TestKnownDifferences(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tsv")
	os.WriteFile(good, []byte("# comment\n\ncorpus/files/a.rar\tx: missing \\S+ \\(want symlink -> \ttarget of a link Wine does not make\n"), 0o644)
	diffs, err := KnownDifferences(good)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := diffs["corpus/files/a.rar"]
	if !ok || d.Reason != "target of a link Wine does not make" {
		t.Fatalf("parsed %+v", diffs)
	}
	if bad := d.Check([]string{"x: missing l (want symlink -> t)"}); bad != "" {
		t.Errorf("matching problem rejected: %s", bad)
	}
	if bad := d.Check(nil); !strings.Contains(bad, "not seen") {
		t.Errorf("a difference no longer seen is accepted: %q", bad)
	}
	if bad := d.Check([]string{"x: missing l (want symlink -> t)", "t: checksum mismatch"}); !strings.Contains(bad, "does not match") {
		t.Errorf("an unexplained problem is accepted: %q", bad)
	}
	for i, text := range []string{
		"corpus/files/a.rar\tpattern\n",              // no reason
		"corpus/files/a.rar\t(\treason\n",            // bad pattern
		"u\tp\tr\nu\tp\tr\n",                         // listed twice
		"corpus/files/a.rar\tp\treason\textra tab\n", // four fields
	} {
		p := filepath.Join(dir, "bad.tsv")
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := KnownDifferences(p); err == nil {
			t.Errorf("case %d: %q accepted", i, text)
		}
	}
}
