package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/corpus"
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

// A run that fails without a word is the command around garc (Wine's
// loader): it is made again, at most silentTries times in all; a silent
// failure that stays is still a failure.
func TestBinaryRunSilentFailure(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for the binary")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	script := filepath.Join(dir, "fake")
	// Fails silently while fewer than $1 runs have been made.
	os.WriteFile(script, []byte("#!/bin/sh\necho x >>"+count+"\n[ $(wc -l <"+count+") -ge \"$1\" ] || exit 1\necho listed\n"), 0o755)
	for _, c := range []struct {
		need    string
		wantErr bool
		runs    int
	}{
		{"1", false, 1},
		{"3", false, 3},
		{"4", true, 3},
	} {
		os.Remove(count)
		b := &binaryRunner{cmd: []string{script, c.need}, u: &corpus.Unit{}}
		out, _, err := b.run(context.Background(), "l", "x.7z")
		data, _ := os.ReadFile(count)
		runs := strings.Count(string(data), "\n")
		if (err != nil) != c.wantErr || runs != c.runs || !c.wantErr && out != "listed\n" {
			t.Errorf("needing %s runs: %q, %v after %d runs", c.need, out, err, runs)
		}
	}
}
