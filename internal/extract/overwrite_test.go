package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/testenv"
)

// dirContents maps each file name in dir to its content.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]string)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// OverwriteRename and OverwriteRenameExisting name files as 7-Zip's -aou
// and -aot do: the same archive extracted twice over the same existing
// files leaves the same names with the same contents.
func TestRenameModesMatch7zz(t *testing.T) {
	sz := testenv.SevenZip(t)
	names := []string{"x.txt", "noext", ".profile", "a.b.c"}
	src := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(src, n), []byte("new "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	arc := filepath.Join(t.TempDir(), "a.7z")
	cmd := exec.Command(sz, append([]string{"a", "-bd", arc}, names...)...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz a: %v\n%s", err, out)
	}
	existing := append([]string{"x_1.txt"}, names...)
	prepare := func(dir string) {
		for _, n := range existing {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("old "+n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		switch_ string
		mode    OverwriteMode
	}{{"-aou", OverwriteRename}, {"-aot", OverwriteRenameExisting}} {
		t.Run(c.switch_, func(t *testing.T) {
			want := t.TempDir()
			prepare(want)
			for run := 0; run < 2; run++ {
				out, err := exec.Command(sz, "x", "-bd", c.switch_, "-o"+want, arc).CombinedOutput()
				if err != nil {
					t.Fatalf("7zz x: %v\n%s", err, out)
				}
			}
			f := newFixture(t, Options{Overwrite: c.mode})
			prepare(f.dest)
			for run := 0; run < 2; run++ {
				for _, n := range names {
					if err := f.write(fileEntry(n), "new "+n); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got, w := dirContents(t, f.dest), dirContents(t, want); !reflect.DeepEqual(got, w) {
				t.Errorf("garc:\n%q\n7zz:\n%q", got, w)
			}
		})
	}
}

// With OverwriteRenameExisting the existing file moves only when the new
// content is complete; Rollback moves it back.
func TestRenameExistingFailureAndRollback(t *testing.T) {
	f := newFixture(t, Options{Overwrite: OverwriteRenameExisting})
	os.WriteFile(filepath.Join(f.dest, "x.txt"), []byte("old"), 0o644)
	if err := f.x.Write(fileEntry("x.txt"), &failingReader{data: "partial"}); err == nil {
		t.Fatal("failure not reported")
	}
	if got := dirContents(t, f.dest); !reflect.DeepEqual(got, map[string]string{"x.txt": "old"}) {
		t.Fatalf("after a failed entry: %q", got)
	}
	for _, content := range []string{"new1", "new2"} {
		if err := f.write(fileEntry("x.txt"), content); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"x.txt": "new2", "x_1.txt": "old", "x_2.txt": "new1"}
	if got := dirContents(t, f.dest); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := f.x.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The fixture's New created the destination, but the file written
	// there before the run keeps it.
	if got := dirContents(t, f.dest); !reflect.DeepEqual(got, map[string]string{"x.txt": "old"}) {
		t.Fatalf("after Rollback: %q", got)
	}
}

// Rollback removes files written under a free name and through Flat.
func TestRollbackRenamedAndFlat(t *testing.T) {
	for _, opts := range []Options{{Overwrite: OverwriteRename}, {Overwrite: OverwriteRename, Flat: true}} {
		f := newFixture(t, opts)
		os.WriteFile(filepath.Join(f.dest, "x.txt"), []byte("old"), 0o644)
		for _, name := range []string{"x.txt", "a/x.txt", "b/y.txt"} {
			if err := f.write(fileEntry(name), "new "+name); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.x.Rollback(); err != nil {
			t.Fatal(err)
		}
		if got := dirContents(t, f.dest); !reflect.DeepEqual(got, map[string]string{"x.txt": "old"}) {
			t.Errorf("flat=%v: after Rollback: %q", opts.Flat, got)
		}
	}
}

// TestErrExists: an entry kept out by an existing file is told apart from
// other skips by errors.Is(err, ErrExists), in every mode that keeps the
// file, and still wraps ErrSkipped; other skips do not wrap ErrExists.
func TestErrExists(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"never", Options{}},
		{"skip", Options{Overwrite: OverwriteSkip}},
		{"ask-no", Options{Overwrite: OverwriteAsk, Ask: func(string, *archive.Entry) (Answer, error) { return AnswerKeep, nil }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.opts)
			os.WriteFile(filepath.Join(f.dest, "f.txt"), []byte("old"), 0o644)
			err := f.write(fileEntry("f.txt"), "new")
			if !errors.Is(err, ErrExists) || !errors.Is(err, ErrSkipped) {
				t.Fatalf("got %v, want ErrExists and ErrSkipped", err)
			}
			if want := "f.txt: skipped: file exists"; err.Error() != want {
				t.Fatalf("message %q, want %q", err, want)
			}
		})
	}
	f := newFixture(t, Options{Links: LinksSkip})
	err := f.x.Write(&archive.Entry{Name: "l", Type: archive.TypeSymlink, LinkTarget: "x"}, nil)
	if !errors.Is(err, ErrSkipped) || errors.Is(err, ErrExists) {
		t.Fatalf("skipped link: %v", err)
	}
}

// TestNameTwiceInCreatedDirectory: a new file is created at its final
// name with O_EXCL, without examining the name first; an archive holding
// the name twice (or a directory in the way) makes O_EXCL fail, and each
// overwrite mode still gets its result, no temporary file is left, and
// Rollback removes exactly what the run made.
func TestNameTwiceInCreatedDirectory(t *testing.T) {
	cases := []struct {
		mode   OverwriteMode
		err    error
		want   map[string]string
		warned int
	}{
		{OverwriteNever, ErrExists, map[string]string{"f.txt": "first"}, 1},
		{OverwriteSkip, ErrExists, map[string]string{"f.txt": "first"}, 0},
		{OverwriteAll, nil, map[string]string{"f.txt": "second"}, 0},
		{OverwriteRename, nil, map[string]string{"f.txt": "first", "f_1.txt": "second"}, 0},
		{OverwriteRenameExisting, nil, map[string]string{"f.txt": "second", "f_1.txt": "first"}, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("mode %d", c.mode), func(t *testing.T) {
			f := newFixture(t, Options{Overwrite: c.mode})
			testNameTwice(t, f, c.err, c.want, c.warned)
		})
	}
}

// testNameTwice writes d/f.txt twice, then a file over the directory
// d/sub, then rolls back, checking the second write's error, what d
// holds, the number of warnings and that Rollback removes everything.
func testNameTwice(t *testing.T, f *fixture, wantErr error, want map[string]string, warned int) {
	t.Helper()
	if err := f.write(fileEntry("d/f.txt"), "first"); err != nil {
		t.Fatal(err)
	}
	if err := f.write(fileEntry("d/f.txt"), "second"); !errors.Is(err, wantErr) || err != nil && wantErr == nil {
		t.Fatalf("second write: %v, want %v", err, wantErr)
	}
	if got := dirContents(t, filepath.Join(f.dest, "d")); !reflect.DeepEqual(got, want) {
		t.Fatalf("d holds %v, want %v", got, want)
	}
	if len(f.warned) != warned {
		t.Fatalf("warnings %v", f.warnErr)
	}
	if err := f.x.Write(&archive.Entry{Name: "d/sub", Type: archive.TypeDir}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.write(fileEntry("d/sub"), "x"); !errors.Is(err, ErrCreate) {
		t.Fatalf("file over a directory: %v", err)
	}
	if err := f.x.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.dest); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Rollback left the destination: %v", tree(t, f.dest))
	}
}
