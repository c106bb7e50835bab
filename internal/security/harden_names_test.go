package security

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// copyInto copies the file src to dir/name.
func copyInto(t *testing.T, src, dir, name string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputDirFromArchiveName extracts archives whose file names reduce
// to "." or ".." once the extension and part number are taken off
// ("...7z", "...part1.rar", "..part1.rar") with 7-Zip's -o'*': the
// directory made from the name must be one safe component ("_"), so
// nothing lands beside the archives or above them.
func TestOutputDirFromArchiveName(t *testing.T) {
	rar := filepath.Join(testenv.CorpusRoot(t), "files/sharpcompress/Archives__Rar.none.rar")
	sevenZ := make7z(t, []entrySpec{{name: "inner.txt", content: "hello"}})
	cases := []struct {
		src, name string
		args      []string
		want      string // where inner files must appear, relative to Work
	}{
		{sevenZ, "...7z", []string{"x", "*.7z", "-o*"}, "_"},
		{sevenZ, "...7z", []string{"x", "...7z", "-o*"}, "_"},
		{sevenZ, "...7z", []string{"x", "*.7z", "-oout/*"}, "out/_"},
		{sevenZ, "....7z", []string{"x", "*.7z", "-o*"}, "_"},
		{rar, "...part1.rar", []string{"x", "*.rar", "-o*"}, "_"},
		{rar, "..part1.rar", []string{"x", "*.rar", "-oout/*"}, "out/_"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" "+tc.args[len(tc.args)-1], func(t *testing.T) {
			s := newSandbox(t)
			copyInto(t, tc.src, s.Work, tc.name)
			os.Mkdir(filepath.Join(s.Work, "out"), 0o755)
			// Everything garc may create lives under Work/want.
			s.Dest = filepath.Join(s.Work, tc.want)
			before := snapshot(t, s.Root, s.Dest)
			r := runGarc(t, s.Work, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			s.checkUnchanged(t, before, r)
			ents, err := os.ReadDir(s.Dest)
			if err != nil || len(ents) == 0 {
				t.Fatalf("nothing extracted into %s (%v)", tc.want, err)
			}
		})
	}
}
