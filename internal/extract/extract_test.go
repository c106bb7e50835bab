package extract

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

type fixture struct {
	t       *testing.T
	x       *Extractor
	dest    string
	outside string
	warned  []string
	warnErr []error
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{t: t, dest: filepath.Join(base, "dest"), outside: filepath.Join(base, "outside")}
	if err := os.Mkdir(f.outside, 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Dest = f.dest
	opts.Warn = func(entry string, err error) {
		f.warned = append(f.warned, entry)
		f.warnErr = append(f.warnErr, err)
	}
	x, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.x = x
	return f
}

func fileEntry(name string) *archive.Entry {
	return &archive.Entry{Name: name, Type: archive.TypeFile, Size: -1}
}

func (f *fixture) write(e *archive.Entry, content string) error {
	return f.x.Write(e, strings.NewReader(content))
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dest, filepath.FromSlash(rel)))
	if err != nil {
		f.t.Fatalf("reading %s: %v", rel, err)
	}
	return string(b)
}

func (f *fixture) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(f.dest, filepath.FromSlash(rel)))
	return err == nil
}

// outsideUntouched checks that nothing but the listed names exists in the
// outside directory.
func (f *fixture) outsideUntouched(allowed ...string) {
	f.t.Helper()
	ents, err := os.ReadDir(f.outside)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, e := range ents {
		ok := false
		for _, a := range allowed {
			ok = ok || e.Name() == a
		}
		if !ok {
			f.t.Errorf("created outside the destination: %s", e.Name())
		}
	}
	// Nothing in the parent of dest besides dest and outside.
	ents, _ = os.ReadDir(filepath.Dir(f.dest))
	for _, e := range ents {
		if e.Name() != "dest" && e.Name() != "outside" {
			f.t.Errorf("created next to the destination: %s", e.Name())
		}
	}
}

// temps lists temporary files left anywhere in dest.
func (f *fixture) temps() []string {
	var found []string
	filepath.WalkDir(f.dest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".garc-") {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestHostileNames(t *testing.T) {
	names := []string{
		"../evil",
		"a/../../evil",
		"/../evil",
		"C:/../evil",
		"//server/share/../evil",
		"//server",
		"C:",
		"",
		"a/\x00b",
		".",
		"./",
		"a/..",
		"..",
		"./../evil",
	}
	for _, name := range names {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			f := newFixture(t, Options{Overwrite: OverwriteAll})
			err := f.write(fileEntry(name), "evil")
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("error %v, want ErrRefused", err)
			}
			if len(f.warned) != 1 {
				t.Fatalf("Warn called %d times", len(f.warned))
			}
			f.outsideUntouched()
			ents, _ := os.ReadDir(f.dest)
			if len(ents) != 0 {
				t.Fatalf("created %v", ents)
			}
		})
	}
}

// TestAbsoluteNamesMadeRelative checks that absolute prefixes are removed
// (as 7-Zip, unrar and tar do), with a warning, and the entry is written
// inside the destination, never at the absolute location.
func TestAbsoluteNamesMadeRelative(t *testing.T) {
	cases := map[string]string{
		"/tmp/evil":           "tmp/evil",
		"//server/share/evil": "evil",
		"C:evil":              "evil",
		"C:/evil":             "evil",
		"c:/dir/evil":         "dir/evil",
		"///a/b":              "a/b",
	}
	for name, want := range cases {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			f := newFixture(t, Options{Overwrite: OverwriteAll})
			if err := f.write(fileEntry(name), "data"); err != nil {
				t.Fatalf("write: %v", err)
			}
			if len(f.warned) != 1 {
				t.Fatalf("Warn called %d times, want 1 notice", len(f.warned))
			}
			if !errors.Is(f.warnErr[0], ErrNotice) {
				t.Fatalf("warning %v does not wrap ErrNotice", f.warnErr[0])
			}
			f.outsideUntouched()
			got, err := os.ReadFile(filepath.Join(f.dest, filepath.FromSlash(want)))
			if err != nil || string(got) != "data" {
				t.Fatalf("%s: %q %v", want, got, err)
			}
		})
	}
}

func TestNamesInside(t *testing.T) {
	cases := map[string]string{
		"./a.txt":       "a.txt",
		"././b.txt":     "b.txt",
		"d/./c.txt":     "d/c.txt",
		"d/../e.txt":    "e.txt",
		"s//t.txt":      "s/t.txt",
		"dir/sub/":      "dir/sub",
		"name:with.txt": "name:with.txt",
	}
	if runtime.GOOS == "windows" {
		delete(cases, "name:with.txt")
	}
	f := newFixture(t, Options{})
	for name, want := range cases {
		if err := f.write(fileEntry(name), name); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if got := f.read(want); got != name {
			t.Fatalf("%q: content %q at %s", name, got, want)
		}
	}
	f.outsideUntouched()
}

func TestSymlinkThenWriteThrough(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	// The archive makes a -> outside (allowed only with LinksUnsafe), then
	// writes a/x: the write must be refused in every policy.
	for _, pol := range []LinkPolicy{LinksSafe, LinksUnsafe} {
		f := newFixture(t, Options{Links: pol, Overwrite: OverwriteAll})
		link := &archive.Entry{Name: "a", Type: archive.TypeSymlink, LinkTarget: f.outside}
		err := f.x.Write(link, strings.NewReader(""))
		if pol == LinksSafe && !errors.Is(err, ErrRefused) {
			t.Fatalf("absolute link accepted under LinksSafe: %v", err)
		}
		if pol == LinksUnsafe && err != nil {
			t.Fatalf("LinksUnsafe: %v", err)
		}
		for _, name := range []string{"a/x", "a/sub/x"} {
			if err := f.write(fileEntry(name), "evil"); pol == LinksUnsafe && !errors.Is(err, ErrRefused) {
				t.Fatalf("%s written through a link: %v", name, err)
			}
		}
		dir := &archive.Entry{Name: "a/newdir", Type: archive.TypeDir}
		if err := f.x.Write(dir, strings.NewReader("")); pol == LinksUnsafe && !errors.Is(err, ErrRefused) {
			t.Fatalf("directory created through a link: %v", err)
		}
		f.outsideUntouched()
	}
}

func TestPreexistingSymlinkComponent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{Overwrite: OverwriteAll})
	if err := os.Symlink(f.outside, filepath.Join(f.dest, "pre")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pre/x", "pre/d/x"} {
		if err := f.write(fileEntry(name), "evil"); !errors.Is(err, ErrRefused) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A link inside dest to a directory inside dest is refused as a path
	// component too (unrar CVE-2022-30333 pattern).
	os.Mkdir(filepath.Join(f.dest, "real"), 0o755)
	os.Symlink("real", filepath.Join(f.dest, "alias"))
	if err := f.write(fileEntry("alias/x"), "x"); !errors.Is(err, ErrRefused) {
		t.Fatalf("alias/x: %v", err)
	}
	f.outsideUntouched()
}

func TestExistingSymlinkReplaced(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, mode := range []OverwriteMode{OverwriteNever, OverwriteAll} {
		f := newFixture(t, Options{Overwrite: mode})
		victim := filepath.Join(f.outside, "victim")
		os.WriteFile(victim, []byte("orig"), 0o644)
		os.Symlink(victim, filepath.Join(f.dest, "f"))
		// A dangling link is not followed either (O_CREAT alone would
		// create the file it names).
		os.Symlink(filepath.Join(f.outside, "absent"), filepath.Join(f.dest, "g"))
		if err := f.write(fileEntry("g"), "new"); mode == OverwriteNever && !errors.Is(err, ErrSkipped) || mode == OverwriteAll && err != nil {
			t.Fatalf("mode %d, dangling link: %v", mode, err)
		}
		if _, err := os.Lstat(filepath.Join(f.outside, "absent")); err == nil {
			t.Fatal("created through a dangling link")
		}
		err := f.write(fileEntry("f"), "new")
		if mode == OverwriteNever {
			if !errors.Is(err, ErrSkipped) {
				t.Fatalf("Never: %v", err)
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Lstat(filepath.Join(f.dest, "f"))
			if !fi.Mode().IsRegular() || f.read("f") != "new" {
				t.Fatalf("link not replaced by a file: %v", fi.Mode())
			}
		}
		if b, _ := os.ReadFile(victim); string(b) != "orig" {
			t.Fatalf("written through the link: %q", b)
		}
		f.outsideUntouched("victim")
	}
}

func TestSymlinkPolicy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	cases := []struct {
		name, target string
		safe         bool
	}{
		{"l1", "file.txt", true},
		{"sub/l2", "../file.txt", true},
		{"sub/deeper/l3", "../../file.txt", true},
		{"l4", "sub/dir/x", true},
		{"l5", "/etc/passwd", false},
		{"l6", "../x", false},
		{"sub/l7", "../../x", false},
		// On Unix a '\' in a target is a character of the name it
		// leads to: these name files in the link's own directory.
		{"l8", `..\x`, true},
		{"sub/l9", `..\..\x`, true},
		{"l10", `C:\Windows`, false},
		{"l11", `\\server\share`, true},
		{"l12", "d/d/d/../../..", false},
		{"l13", "a/../../x", false},
		{"l14", "", false},
		{"l15", "c:x", false},
	}
	for _, pol := range []LinkPolicy{LinksSafe, LinksSkip, LinksUnsafe} {
		f := newFixture(t, Options{Links: pol})
		for _, c := range cases {
			e := &archive.Entry{Name: c.name, Type: archive.TypeSymlink, LinkTarget: c.target}
			err := f.x.Write(e, strings.NewReader(""))
			switch {
			case pol == LinksSkip:
				if !errors.Is(err, ErrSkipped) || f.exists(c.name) {
					t.Errorf("skip %s: %v", c.name, err)
				}
			case pol == LinksSafe && !c.safe, c.target == "":
				if !errors.Is(err, ErrRefused) || f.exists(c.name) {
					t.Errorf("safe %s -> %s: %v", c.name, c.target, err)
				}
			default:
				if err != nil {
					t.Errorf("%v %s -> %s: %v", pol, c.name, c.target, err)
					continue
				}
				got, err := os.Readlink(filepath.Join(f.dest, c.name))
				if err != nil || got != c.target {
					t.Errorf("%s: link %q (%v), want %q", c.name, got, err, c.target)
				}
			}
		}
		f.outsideUntouched()
	}
}

func TestSymlinkChainCannotEscape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{})
	// d -> "." is harmless alone; q -> d/d/../.. would climb out through it.
	if err := f.x.Write(&archive.Entry{Name: "d", Type: archive.TypeSymlink, LinkTarget: "."}, nil); err != nil {
		t.Fatal(err)
	}
	err := f.x.Write(&archive.Entry{Name: "q", Type: archive.TypeSymlink, LinkTarget: "d/d/../.."}, nil)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("chain escape: %v", err)
	}
}

func TestSymlinkTargetFromData(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{})
	e := &archive.Entry{Name: "sub/link", Type: archive.TypeSymlink}
	if err := f.x.Write(e, strings.NewReader("../target.txt")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.Readlink(filepath.Join(f.dest, "sub", "link")); got != "../target.txt" {
		t.Fatalf("link %q", got)
	}
	e = &archive.Entry{Name: "bad", Type: archive.TypeSymlink}
	if err := f.x.Write(e, strings.NewReader("../../etc")); !errors.Is(err, ErrRefused) {
		t.Fatalf("escaping target from data: %v", err)
	}
}

func TestHardLinksAndCopies(t *testing.T) {
	f := newFixture(t, Options{})
	if err := f.write(fileEntry("dir/a.txt"), "content"); err != nil {
		t.Fatal(err)
	}
	hl := &archive.Entry{Name: "b.txt", Type: archive.TypeHardlink, LinkTarget: "dir/a.txt"}
	if err := f.x.Write(hl, strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	if f.read("b.txt") != "content" {
		t.Fatal("hard link content")
	}
	a, _ := os.Stat(filepath.Join(f.dest, "dir", "a.txt"))
	b, _ := os.Stat(filepath.Join(f.dest, "b.txt"))
	if !os.SameFile(a, b) {
		t.Log("hard link fell back to a copy")
	}
	cp := &archive.Entry{Name: "c.txt", Type: archive.TypeCopy, LinkTarget: "dir/a.txt"}
	if err := f.x.Write(cp, strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	c, _ := os.Stat(filepath.Join(f.dest, "c.txt"))
	if f.read("c.txt") != "content" || os.SameFile(a, c) {
		t.Fatal("copy is not an independent file with the content")
	}
	// A link to a link works through the map.
	hl2 := &archive.Entry{Name: "d.txt", Type: archive.TypeHardlink, LinkTarget: "b.txt"}
	if err := f.x.Write(hl2, nil); err != nil || f.read("d.txt") != "content" {
		t.Fatalf("link to link: %v", err)
	}
	// Targets not extracted in this run, or outside, are refused.
	os.WriteFile(filepath.Join(f.outside, "secret"), []byte("s"), 0o644)
	os.WriteFile(filepath.Join(f.dest, "preexisting"), []byte("p"), 0o644)
	for _, target := range []string{"missing", "../outside/secret", "/etc/passwd", "preexisting", ""} {
		for _, typ := range []archive.EntryType{archive.TypeHardlink, archive.TypeCopy} {
			e := &archive.Entry{Name: "x-" + typ.String(), Type: typ, LinkTarget: target}
			if err := f.x.Write(e, nil); !errors.Is(err, ErrRefused) || f.exists(e.Name) {
				t.Errorf("%s to %q: %v", typ, target, err)
			}
		}
	}
	f.outsideUntouched("secret")
}

func TestHardLinkTargetReplacedBySymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newFixture(t, Options{Overwrite: OverwriteAll, Links: LinksUnsafe})
	f.write(fileEntry("a"), "a")
	// The archive replaces a with a link to a file outside, then hard
	// links to a: the copy must not read the outside file.
	os.WriteFile(filepath.Join(f.outside, "secret"), []byte("secret"), 0o644)
	if err := f.x.Write(&archive.Entry{Name: "a", Type: archive.TypeSymlink, LinkTarget: filepath.Join(f.outside, "secret")}, nil); err != nil {
		t.Fatal(err)
	}
	err := f.x.Write(&archive.Entry{Name: "b-copy", Type: archive.TypeCopy, LinkTarget: "a"}, nil)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("copy through replaced target: %v", err)
	}
	// A hard link to a is a hard link to the symbolic link: the same link
	// once more, which reads nothing.
	if err := f.x.Write(&archive.Entry{Name: "b-hardlink", Type: archive.TypeHardlink, LinkTarget: "a"}, nil); err != nil {
		t.Fatalf("hard link to the symbolic link: %v", err)
	}
	if got, err := os.Readlink(filepath.Join(f.dest, "b-hardlink")); err != nil || got != filepath.Join(f.outside, "secret") {
		t.Fatalf("b-hardlink: link to %q (%v)", got, err)
	}
}

// TestHardLinkToSymlink: GNU tar and bsdtar store a hard link to a
// symbolic link as a hard link entry naming the link, and extract it as
// the same link once more; garc refused it ("link target was not
// extracted"). It is made as a symbolic link with the same target, under
// the link rules for its own place: "../x" is inside from sub/ but not
// from the root.
func TestHardLinkToSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, policy := range []LinkPolicy{LinksSafe, LinksSkip} {
		f := newFixture(t, Options{Links: policy})
		for _, e := range []*archive.Entry{
			{Name: "s", Type: archive.TypeSymlink, LinkTarget: "target.txt"},
			{Name: "sub/s", Type: archive.TypeSymlink, LinkTarget: "../target.txt"},
		} {
			f.x.Write(e, nil)
		}
		err := f.x.Write(&archive.Entry{Name: "h", Type: archive.TypeHardlink, LinkTarget: "s"}, nil)
		got, lerr := os.Readlink(filepath.Join(f.dest, "h"))
		if policy == LinksSafe && (err != nil || lerr != nil || got != "target.txt") {
			t.Errorf("safe: h: %v, link to %q (%v)", err, got, lerr)
		}
		if policy == LinksSkip && (!errors.Is(err, ErrSkipped) && !errors.Is(err, ErrRefused) || lerr == nil) {
			t.Errorf("skip: h: %v, link to %q", err, got)
		}
		err = f.x.Write(&archive.Entry{Name: "h2", Type: archive.TypeHardlink, LinkTarget: "sub/s"}, nil)
		if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrSkipped) || f.exists("h2") {
			t.Errorf("%v: h2 (../target.txt from the root): %v", policy, err)
		}
		f.outsideUntouched()
	}
}

func TestOverwriteModes(t *testing.T) {
	setup := func(t *testing.T, opts Options) *fixture {
		f := newFixture(t, opts)
		os.WriteFile(filepath.Join(f.dest, "f.txt"), []byte("old"), 0o644)
		return f
	}
	t.Run("never", func(t *testing.T) {
		f := setup(t, Options{})
		if err := f.write(fileEntry("f.txt"), "new"); !errors.Is(err, ErrSkipped) || f.read("f.txt") != "old" || len(f.warned) != 1 {
			t.Fatalf("%v %q %v", err, f.read("f.txt"), f.warned)
		}
	})
	t.Run("skip", func(t *testing.T) {
		f := setup(t, Options{Overwrite: OverwriteSkip})
		if err := f.write(fileEntry("f.txt"), "new"); !errors.Is(err, ErrSkipped) || f.read("f.txt") != "old" || len(f.warned) != 0 {
			t.Fatalf("%v %q %v", err, f.read("f.txt"), f.warned)
		}
	})
	t.Run("all", func(t *testing.T) {
		f := setup(t, Options{Overwrite: OverwriteAll})
		if err := f.write(fileEntry("f.txt"), "new"); err != nil || f.read("f.txt") != "new" {
			t.Fatal(err)
		}
	})
	t.Run("rename", func(t *testing.T) {
		f := setup(t, Options{Overwrite: OverwriteRename})
		for i, want := range []string{"f_1.txt", "f_2.txt"} {
			if err := f.write(fileEntry("f.txt"), fmt.Sprint(i)); err != nil || f.read(want) != fmt.Sprint(i) {
				t.Fatalf("%s: %v", want, err)
			}
		}
		os.WriteFile(filepath.Join(f.dest, ".rc"), nil, 0o644)
		if err := f.write(fileEntry(".rc"), "x"); err != nil || f.read(".rc_1") != "x" {
			t.Fatalf(".rc: %v", err)
		}
		if f.read("f.txt") != "old" {
			t.Fatal("original changed")
		}
	})
	t.Run("ask", func(t *testing.T) {
		type answer struct {
			a   Answer
			err error
		}
		var answers []answer
		var asked []string
		f := newFixture(t, Options{Overwrite: OverwriteAsk, Ask: func(p string, e *archive.Entry) (Answer, error) {
			if filepath.Base(p) != e.Name {
				t.Errorf("asked about %s for the entry %s", p, e.Name)
			}
			asked = append(asked, filepath.Base(p))
			a := answers[0]
			answers = answers[1:]
			return a.a, a.err
		}})
		for _, n := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
			os.WriteFile(filepath.Join(f.dest, n), []byte("old"), 0o644)
		}
		stop := errors.New("stop")
		answers = []answer{{AnswerKeep, nil}, {AnswerReplace, nil}, {AnswerKeep, stop}, {AnswerRename, nil}, {AnswerReplaceAll, nil}}
		if err := f.write(fileEntry("1"), "new"); !errors.Is(err, ErrExists) || f.read("1") != "old" {
			t.Fatalf("1: %v", err)
		}
		if err := f.write(fileEntry("2"), "new"); err != nil || f.read("2") != "new" {
			t.Fatalf("2: %v", err)
		}
		if err := f.write(fileEntry("3"), "new"); !errors.Is(err, stop) || f.read("3") != "old" {
			t.Fatalf("3: %v", err)
		}
		// Rename: the new file beside the old one, as -aou names it.
		if err := f.write(fileEntry("4"), "new"); err != nil || f.read("4") != "old" || f.read("4_1") != "new" {
			t.Fatalf("4: %v", err)
		}
		if err := f.write(fileEntry("5"), "new"); err != nil || f.read("5") != "new" {
			t.Fatalf("5: %v", err)
		}
		// "all" was answered: 6 is overwritten without asking.
		if err := f.write(fileEntry("6"), "new"); err != nil || f.read("6") != "new" || len(asked) != 5 {
			t.Fatalf("6: %v, asked %v", err, asked)
		}
		if err := f.write(fileEntry("fresh"), "new"); err != nil || len(asked) != 5 {
			t.Fatal("asked about a new file")
		}
	})
	for _, tc := range []struct {
		all  Answer
		want string // 8's content and what is beside it
	}{{AnswerKeepAll, "old"}, {AnswerRenameAll, "old new"}} {
		asked := 0
		f := newFixture(t, Options{Overwrite: OverwriteAsk, Ask: func(string, *archive.Entry) (Answer, error) {
			asked++
			return tc.all, nil
		}})
		for _, n := range []string{"7", "8"} {
			os.WriteFile(filepath.Join(f.dest, n), []byte("old"), 0o644)
			f.write(fileEntry(n), "new")
		}
		got := f.read("8")
		if b, err := os.ReadFile(filepath.Join(f.dest, "8_1")); err == nil {
			got += " " + string(b)
		}
		if got != tc.want || asked != 1 {
			t.Errorf("answer %d: 8 holds %q, want %q; asked %d times", tc.all, got, tc.want, asked)
		}
	}
	if _, err := New(Options{Dest: t.TempDir(), Overwrite: OverwriteAsk}); err == nil {
		t.Fatal("OverwriteAsk without Ask accepted")
	}
}

// failingReader yields some data, then an error wrapping ErrChecksum.
type failingReader struct {
	data string
	done bool
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, fmt.Errorf("entry: %w", archive.ErrChecksum)
	}
	r.done = true
	return copy(p, r.data), nil
}

func TestChecksumFailure(t *testing.T) {
	for _, keep := range []bool{false, true} {
		f := newFixture(t, Options{KeepBroken: keep, Overwrite: OverwriteAll})
		err := f.x.Write(fileEntry("d/broken.bin"), &failingReader{data: "partial"})
		if !errors.Is(err, archive.ErrChecksum) {
			t.Fatalf("keep=%v: error %v", keep, err)
		}
		if keep {
			if f.read("d/broken.bin") != "partial" {
				t.Fatal("partial file not kept")
			}
		} else if f.exists("d/broken.bin") {
			t.Fatal("broken file left")
		}
		if tmp := f.temps(); len(tmp) != 0 {
			t.Fatalf("temporary files left: %v", tmp)
		}
		// An existing file is kept when the replacement fails.
		os.WriteFile(filepath.Join(f.dest, "good"), []byte("good"), 0o644)
		if !keep {
			f.x.Write(fileEntry("good"), &failingReader{data: "bad"})
			if f.read("good") != "good" {
				t.Fatal("existing file replaced by a failed entry")
			}
		}
	}
}

// TestAbortRemovesTemps: Abort during an entry's content removes what
// the entry has written: a new file at its final name, or the temporary
// file that was to replace an existing one (which stays as it was).
func TestAbortRemovesTemps(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprint("existing ", existing), func(t *testing.T) {
			f := newFixture(t, Options{Overwrite: OverwriteAll})
			if existing {
				os.WriteFile(filepath.Join(f.dest, "big"), []byte("old"), 0o644)
			}
			var seen []string
			r := readerFunc(func(p []byte) (int, error) {
				seen = f.temps()
				f.x.Abort()
				return 0, errors.New("interrupted")
			})
			err := f.x.Write(fileEntry("big"), r)
			want := 0
			if existing {
				want = 1
			}
			if err == nil || len(seen) != want {
				t.Fatalf("err %v, temps during write %v", err, seen)
			}
			if tmp := f.temps(); len(tmp) != 0 {
				t.Fatalf("left behind: %v", tmp)
			}
			if existing && f.read("big") != "old" {
				t.Fatal("the existing file was changed")
			}
			if !existing && f.exists("big") {
				t.Fatal("the new file was left")
			}
		})
	}
}

// TestNewFileWrittenInPlace: a new file is written at its final name
// (no temporary file, no rename: issue 24), while an existing file is
// replaced whole: it keeps its old content until the new one is
// complete. A content error in the middle of a new file removes it.
func TestNewFileWrittenInPlace(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprint("existing ", existing), func(t *testing.T) {
			f := newFixture(t, Options{Overwrite: OverwriteAll})
			if existing {
				os.MkdirAll(filepath.Join(f.dest, "d"), 0o755)
				os.WriteFile(filepath.Join(f.dest, "d", "f"), []byte("old"), 0o644)
			}
			var temps []string
			var during string
			sent := false
			r := readerFunc(func(p []byte) (int, error) {
				if !sent {
					sent = true
					return copy(p, "new "), nil
				}
				temps = f.temps()
				during = f.read("d/f")
				return copy(p, "content"), io.EOF
			})
			if err := f.x.Write(fileEntry("d/f"), r); err != nil {
				t.Fatal(err)
			}
			if got := f.read("d/f"); got != "new content" {
				t.Fatalf("d/f holds %q", got)
			}
			if existing {
				if len(temps) != 1 || during != "old" {
					t.Fatalf("while writing over an existing file: temporary files %v, it held %q", temps, during)
				}
			} else if len(temps) != 0 || during != "new " {
				t.Fatalf("while writing a new file: temporary files %v, it held %q", temps, during)
			}
			if err := f.x.Write(fileEntry("d/g"), &failingReader{data: "partial"}); !errors.Is(err, archive.ErrChecksum) {
				t.Fatalf("failing entry: %v", err)
			}
			if f.exists("d/g") || len(f.temps()) != 0 {
				t.Fatalf("a failed new file left: %v", tree(t, f.dest))
			}
		})
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	f := newFixture(t, Options{})
	e := fileEntry("suid")
	e.Mode, e.HasUnixMode = 0o755|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky, true
	if err := f.write(e, "x"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(f.dest, "suid"))
	if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
		t.Fatalf("special bits kept: %v", fi.Mode())
	}
	if fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("exec bit lost: %v", fi.Mode())
	}
	e = fileEntry("private")
	e.Mode, e.HasUnixMode = 0o600, true
	f.write(e, "x")
	if fi, _ := os.Stat(filepath.Join(f.dest, "private")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("private: %v", fi.Mode())
	}
	e = fileEntry("readonly")
	e.Attributes = archive.AttrReadOnly
	f.write(e, "x")
	if fi, _ := os.Stat(filepath.Join(f.dest, "readonly")); fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("read-only attribute ignored: %v", fi.Mode())
	}
	e = fileEntry("plain")
	f.write(e, "x")
	if fi, _ := os.Stat(filepath.Join(f.dest, "plain")); fi.Mode().Perm()&0o111 != 0 {
		t.Fatalf("plain file executable: %v", fi.Mode())
	}
}

func TestDirectoryTimesAfterContents(t *testing.T) {
	f := newFixture(t, Options{})
	t1 := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	t2 := time.Date(2002, 2, 3, 4, 5, 6, 0, time.UTC)
	t3 := time.Date(2003, 2, 3, 4, 5, 6, 0, time.UTC)
	d := &archive.Entry{Name: "d", Type: archive.TypeDir, ModTime: t1}
	de := &archive.Entry{Name: "d/e", Type: archive.TypeDir, ModTime: t2}
	ro := &archive.Entry{Name: "ro", Type: archive.TypeDir, ModTime: t3, Mode: fs.ModeDir | 0o555, HasUnixMode: true}
	for _, e := range []*archive.Entry{d, de, ro} {
		if err := f.x.Write(e, nil); err != nil {
			t.Fatal(err)
		}
	}
	file := fileEntry("d/e/f.txt")
	file.ModTime = t3
	if err := f.write(file, "x"); err != nil {
		t.Fatal(err)
	}
	if err := f.write(fileEntry("ro/inside.txt"), "x"); err != nil {
		t.Fatal("writing into a read-only directory before Finish:", err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(f.dest, "ro"), 0o755)
	for rel, want := range map[string]time.Time{"d": t1, "d/e": t2, "d/e/f.txt": t3, "ro": t3} {
		fi, err := os.Stat(filepath.Join(f.dest, rel))
		if err != nil || !fi.ModTime().Equal(want) {
			t.Errorf("%s: mtime %v, want %v (%v)", rel, fi.ModTime(), want, err)
		}
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(filepath.Join(f.dest, "ro"))
		if fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("ro mode %v", fi.Mode())
		}
	}
}

func TestDirectoryEntries(t *testing.T) {
	f := newFixture(t, Options{})
	os.WriteFile(filepath.Join(f.dest, "file"), nil, 0o644)
	if err := f.x.Write(&archive.Entry{Name: "file", Type: archive.TypeDir}, nil); !errors.Is(err, ErrCreate) {
		t.Fatalf("dir over file: %v", err)
	}
	if err := f.write(fileEntry("file/x"), "x"); !errors.Is(err, ErrCreate) {
		t.Fatalf("file under file: %v", err)
	}
	os.Mkdir(filepath.Join(f.dest, "dir"), 0o755)
	if err := f.write(fileEntry("dir"), "x"); !errors.Is(err, ErrCreate) {
		t.Fatalf("file over dir: %v", err)
	}
	if err := f.x.Write(&archive.Entry{Name: "./", Type: archive.TypeDir}, nil); err != nil {
		t.Fatalf("root dir entry: %v", err)
	}
	if err := f.x.Write(&archive.Entry{Name: "dir", Type: archive.TypeDir}, nil); err != nil {
		t.Fatalf("existing dir: %v", err)
	}
	if runtime.GOOS != "windows" {
		// mkdir comes first now: a link at the name still refuses
		// the entry, and nothing is made where it points.
		os.Symlink(f.outside, filepath.Join(f.dest, "link"))
		if err := f.x.Write(&archive.Entry{Name: "link", Type: archive.TypeDir}, nil); !errors.Is(err, ErrRefused) {
			t.Fatalf("dir over a link: %v", err)
		}
		os.Symlink(filepath.Join(f.outside, "absent"), filepath.Join(f.dest, "dangling"))
		if err := f.x.Write(&archive.Entry{Name: "dangling", Type: archive.TypeDir}, nil); !errors.Is(err, ErrRefused) {
			t.Fatalf("dir over a dangling link: %v", err)
		}
		f.outsideUntouched()
	}
	// A directory entry's directory, made or found real, is verified:
	// the files written in it do not examine it again.
	for _, d := range []string{"dir", "new"} {
		if err := f.x.Write(&archive.Entry{Name: d, Type: archive.TypeDir}, nil); err != nil {
			t.Fatal(err)
		}
		if !f.x.verified[filepath.Join(f.x.root, d)] {
			t.Errorf("directory entry %s not verified", d)
		}
	}
}

// TestFinishDirectoryModesAndLinks: Finish sets the modes and times of
// the directories the run created, examining only those whose mode needs
// a chmod (elsewhere than on Linux, all of them); a directory replaced by
// a link meanwhile is never followed: neither chmod nor times reach
// where the link points.
func TestFinishDirectoryModesAndLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix modes and links")
	}
	f := newFixture(t, Options{})
	for _, d := range []struct {
		name string
		mode fs.FileMode
	}{{"ro", 0o555}, {"open", 0o755}, {"gone", 0o755}, {"gone-ro", 0o500}} {
		e := &archive.Entry{Name: d.name, Type: archive.TypeDir, Mode: d.mode | fs.ModeDir, HasUnixMode: true, ModTime: archiveTime()}
		if err := f.x.Write(e, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A directory made with the default mode, which Revise (a ZIP read
	// from a pipe) then narrows, gets the narrower mode.
	if err := f.x.Write(&archive.Entry{Name: "revised", Type: archive.TypeDir, ModTime: archiveTime()}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Revise(&archive.Entry{Name: "revised", Type: archive.TypeDir, Mode: 0o700 | fs.ModeDir, HasUnixMode: true}); err != nil {
		t.Fatal(err)
	}
	outsideFi, err := os.Stat(f.outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"gone", "gone-ro"} {
		p := filepath.Join(f.dest, d)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(f.outside, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(f.dest, "ro"), 0o755) })
	for _, d := range []struct {
		name string
		mode fs.FileMode
	}{{"ro", 0o555}, {"open", 0o755}, {"revised", 0o700}} {
		fi, err := os.Lstat(filepath.Join(f.dest, d.name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != d.mode&^processUmask() || !fi.ModTime().Equal(archiveTime()) {
			t.Errorf("%s: mode %v, time %v", d.name, fi.Mode(), fi.ModTime())
		}
	}
	fi, err := os.Stat(f.outside)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != outsideFi.Mode() || !fi.ModTime().Equal(outsideFi.ModTime()) {
		t.Errorf("the directory a link points to was changed: %v %v, was %v %v", fi.Mode(), fi.ModTime(), outsideFi.Mode(), outsideFi.ModTime())
	}
}

func TestAntiAndFlat(t *testing.T) {
	f := newFixture(t, Options{Flat: true})
	anti := fileEntry("gone.txt")
	anti.Anti = true
	if err := f.write(anti, "x"); err != nil || f.exists("gone.txt") {
		t.Fatalf("anti item: %v", err)
	}
	if err := f.x.Write(&archive.Entry{Name: "a/b", Type: archive.TypeDir}, nil); err != nil || f.exists("a") {
		t.Fatalf("flat dir: %v", err)
	}
	if err := f.write(fileEntry("a/b/c.txt"), "c"); err != nil || f.read("c.txt") != "c" {
		t.Fatalf("flat file: %v", err)
	}
	hl := &archive.Entry{Name: "x/d.txt", Type: archive.TypeCopy, LinkTarget: "a/b/c.txt"}
	if err := f.x.Write(hl, nil); err != nil || f.read("d.txt") != "c" {
		t.Fatalf("flat copy: %v", err)
	}
	if err := f.write(fileEntry("../../evil"), "x"); !errors.Is(err, ErrRefused) {
		t.Fatalf("flat traversal: %v", err)
	}
	f.outsideUntouched()
}

func TestFinishRemovesLeftovers(t *testing.T) {
	f := newFixture(t, Options{})
	fh, tmp, err := f.x.tempFile(f.dest, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("temporary file left after Finish")
	}
}

func TestSanitizedExtraction(t *testing.T) {
	sanitizeNames = true
	defer func() { sanitizeNames = runtime.GOOS == "windows" }()
	f := newFixture(t, Options{})
	for name, want := range map[string]string{
		"a/CON.txt":   "a/_CON.txt",
		"b/x:y?.txt":  "b/x_y_.txt",
		"c./d ":       "c_/d_",
		"e/C:/f.txt":  "e/C_/f.txt",
		"g/lpt1":      "g/_lpt1",
		"h/ok name":   "h/ok name",
		"i/\x01z.txt": "i/_z.txt",
	} {
		if err := f.write(fileEntry(name), name); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if f.read(want) != name {
			t.Fatalf("%q not at %q", name, want)
		}
	}
}

func TestSanitizeWindowsName(t *testing.T) {
	cases := map[string]string{
		"normal.txt":   "normal.txt",
		"CON":          "_CON",
		"con.txt":      "_con.txt",
		"Aux.tar.gz":   "_Aux.tar.gz",
		"NUL ":         "NUL_",
		"COM1":         "_COM1",
		"lpt9.log":     "_lpt9.log",
		"COM0":         "COM0",
		"COM10":        "COM10",
		"CONSOLE":      "CONSOLE",
		"a<b>c":        "a_b_c",
		`q"u|o?t*e`:    "q_u_o_t_e",
		"colon:x":      "colon_x",
		"trail.":       "trail_",
		"trail. .":     "trail___",
		"tab\tname":    "tab_name",
		"ünïcödé":      "ünïcödé",
		"":             "",
		"...":          "___",
		"PRN.":         "PRN_",
		"x\x7fy":       "x_y",
		"back\\slash":  "back_slash",
		"lpt1 .txt":    "_lpt1 .txt",
		"normal .txt ": "normal .txt_",
	}
	for in, want := range cases {
		if got := SanitizeWindowsName(in); got != want {
			t.Errorf("SanitizeWindowsName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"a":        "a",
		"./a":      "a",
		"a/":       "a",
		"a/b/../c": "a/c",
		`a\b`:      `a\b`,
		`\a`:       `\a`,
		"./":       ".",
	} {
		if got, _, why := cleanName(in); got != want || why != "" {
			t.Errorf("cleanName(%q) = %q %q, want %q", in, got, why, want)
		}
	}
}

func FuzzWriteName(f *testing.F) {
	for _, s := range []string{"a", "../x", `..\x`, "C:x", "a/../../b", "./a/./b", `\\s\x`} {
		f.Add(s, "t", uint8(0))
	}
	f.Fuzz(func(t *testing.T, name, target string, kind uint8) {
		base := t.TempDir()
		dest := filepath.Join(base, "d")
		x, err := New(Options{Dest: dest, Overwrite: OverwriteAll})
		if err != nil {
			t.Fatal(err)
		}
		e := &archive.Entry{Name: name, LinkTarget: target}
		switch kind % 3 {
		case 1:
			e.Type = archive.TypeDir
		case 2:
			e.Type = archive.TypeSymlink
		}
		x.Write(e, strings.NewReader("data"))
		x.Finish()
		ents, _ := os.ReadDir(base)
		if len(ents) != 1 || ents[0].Name() != "d" {
			t.Fatalf("%q created outside: %v", name, ents)
		}
		// Every link created must resolve inside dest.
		filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink != 0 {
				l, _ := os.Readlink(p)
				if filepath.IsAbs(l) {
					t.Fatalf("absolute link %s -> %s", p, l)
				}
				r, _ := filepath.Rel(dest, filepath.Join(filepath.Dir(p), l))
				if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					t.Fatalf("link %s -> %s leaves dest", p, l)
				}
			}
			return nil
		})
	})
}

func TestSymlinkTimes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("link times are restored on Linux only")
	}
	f := newFixture(t, Options{})
	mt := time.Date(2005, 6, 7, 8, 9, 10, 0, time.UTC)
	e := &archive.Entry{Name: "l", Type: archive.TypeSymlink, LinkTarget: "nowhere", ModTime: mt}
	if err := f.x.Write(e, nil); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(f.dest, "l"))
	if err != nil || !fi.ModTime().Equal(mt) {
		t.Fatalf("link mtime %v, want %v (%v)", fi.ModTime(), mt, err)
	}
}

// TestEmptyNameIsLabelled: a refused entry with an empty name is still
// identified in the error (by its position), not as an empty string.
func TestEmptyNameIsLabelled(t *testing.T) {
	f := newFixture(t, Options{})
	e := fileEntry("")
	e.Index = 6
	err := f.write(e, "x")
	if !errors.Is(err, ErrRefused) || !strings.HasPrefix(err.Error(), "entry #7: ") {
		t.Fatalf("error %q, want ErrRefused naming entry #7", err)
	}
}

// TestRenameManySameName: many entries of one name with OverwriteRename
// get "name_1.ext", "name_2.ext", … in order, skipping names taken
// before the run; the search resumes where the previous entry stopped
// (it used to restart at 1, quadratic in the number of entries).
func TestRenameManySameName(t *testing.T) {
	f := newFixture(t, Options{Overwrite: OverwriteRename})
	if err := os.WriteFile(filepath.Join(f.dest, "a_5.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := 0; i < n; i++ {
		if err := f.write(fileEntry("a.txt"), strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name, want string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(f.dest, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	check("a.txt", "0")
	check("a_1.txt", "1")
	check("a_4.txt", "4")
	check("a_5.txt", "mine")
	check("a_6.txt", "5")
	check(fmt.Sprintf("a_%d.txt", n), strconv.Itoa(n-1))
	if ents, _ := os.ReadDir(f.dest); len(ents) != n+1 {
		t.Errorf("%d files, want %d", len(ents), n+1)
	}
}

// TestTimesBeyondUnixNano: times after 2262 (a GNU tar base-256 or pax
// mtime, an NTFS time) are set as they are on Linux. They went through
// UnixNano, which overflows there: a file of 2300 got 1901-12-13.
func TestTimesBeyondUnixNano(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("times beyond UnixNano's range are set exactly on Linux; elsewhere the nearest one is")
	}
	f := newFixture(t, Options{})
	t2300 := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	t2400 := time.Date(2400, 6, 7, 8, 9, 10, 500, time.UTC)
	d := &archive.Entry{Name: "d", Type: archive.TypeDir, ModTime: t2300}
	l := &archive.Entry{Name: "d/l", Type: archive.TypeSymlink, LinkTarget: "f", ModTime: t2400}
	file := fileEntry("d/f")
	file.ModTime = t2400
	for _, e := range []*archive.Entry{d, l} {
		if err := f.x.Write(e, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.write(file, "x"); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]time.Time{"d": t2300, "d/f": t2400, "d/l": t2400} {
		fi, err := os.Lstat(filepath.Join(f.dest, rel))
		if err != nil || !fi.ModTime().Equal(want) {
			t.Errorf("%s: mtime %v, want %v (%v)", rel, fi.ModTime(), want, err)
		}
	}
}
