package extract

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestWindowsLinkProblem checks link targets as Windows reads them, on
// every platform: drive letters, the \\?\, \\.\, \??\ (junction) and UNC
// forms, root-relative targets, and components Win32 shortens to "..".
func TestWindowsLinkProblem(t *testing.T) {
	cases := []struct {
		rel, target string
		refused     bool
	}{
		{"l", "f.txt", false},
		{"d/l", "../f.txt", false},
		{"d/l", `..\f.txt`, false},
		{"d/e/l", `..\..\f.txt`, false},
		{"l", "a/b/../c", false},
		{"l", "file:stream", false}, // a stream of a file inside
		{"l", "a. /b", false},       // "a. " is "a" to Win32, still inside
		{"d/l", "../", false},
		{"l", "..", true},
		{"l", `..\f.txt`, true},
		{"d/l", `..\..\f.txt`, true},
		{"d/l", `sub\..\..\..\f.txt`, true},
		{"l", `C:\Windows\System32`, true},
		{"l", "C:/Windows", true},
		{"l", "c:relative", true}, // drive-relative: C's current directory
		{"l", `\Windows`, true},   // the current drive's root
		{"l", `\\server\share\x`, true},
		{"l", `\\?\C:\x`, true},
		{"l", `\\?\UNC\server\share`, true},
		{"l", `\\.\PhysicalDrive0`, true},
		{"l", `\??\C:\Users`, true}, // a junction's NT target
		{"l", "//server/share", true},
		{"l", ".. /x", true},      // Win32 drops the trailing space
		{"l", `.. \..\x`, true},   // … and the trailing dots
		{"d/l", `...\..\x`, true}, // "..." counts as ".." too
		{"d/l", ". .\\..\\x", true},
		{"d/l", ".. ", false}, // climbs to the destination itself
	}
	for _, c := range cases {
		why := windowsLinkProblem(c.rel, c.target)
		if (why != "") != c.refused {
			t.Errorf("windowsLinkProblem(%q, %q) = %q, want refused=%v", c.rel, c.target, why, c.refused)
		}
	}
}

// withWindowsLinkRules turns the Windows reading of link targets on for
// one test.
func withWindowsLinkRules(t *testing.T) {
	windowsLinkRules = true
	t.Cleanup(func() { windowsLinkRules = runtime.GOOS == "windows" })
}

// Under the Windows rules the extractor refuses what windowsLinkProblem
// refuses, with LinksSafe and LinksCopy, and writes nothing for it.
func TestWindowsLinkRulesRefuse(t *testing.T) {
	withWindowsLinkRules(t)
	for _, policy := range []LinkPolicy{LinksSafe, LinksCopy} {
		for _, target := range []string{`\\?\C:\Windows\win.ini`, `..\outside`, ".. /outside", "C:x", `\??\C:\x`} {
			f := newFixture(t, Options{Links: policy})
			err := f.x.Write(&archive.Entry{Name: "l", Type: archive.TypeSymlink, LinkTarget: target}, nil)
			if !errors.Is(err, ErrRefused) {
				t.Errorf("policy %d, target %q: %v, want refused", policy, target, err)
			}
			if err := f.x.Finish(); err != nil {
				t.Fatal(err)
			}
			if f.exists("l") {
				t.Errorf("policy %d, target %q: l was written", policy, target)
			}
		}
	}
}

// TestLinksCopy: with LinksCopy a symbolic link is written as a copy of
// the file it names, whether the target comes before or after the link
// in the archive, through other links, and with the target's
// permissions; a link to a directory is skipped, one whose target never
// comes and one that leaves the destination are refused, each with a
// warning, and no symbolic link is made.
func TestLinksCopy(t *testing.T) {
	for _, win := range []bool{false, true} {
		t.Run(map[bool]string{false: "system rules", true: "windows rules"}[win], func(t *testing.T) {
			if win {
				withWindowsLinkRules(t)
			}
			testLinksCopy(t)
		})
	}
}

func testLinksCopy(t *testing.T) {
	f := newFixture(t, Options{Links: LinksCopy})
	link := func(name, target string) error {
		return f.x.Write(&archive.Entry{Name: name, Type: archive.TypeSymlink, LinkTarget: target,
			HasUnixMode: true, Mode: os.ModeSymlink | 0o777}, nil)
	}
	file := func(name, content string) {
		e := fileEntry(name)
		e.HasUnixMode, e.Mode = true, 0o640
		if err := f.write(e, content); err != nil {
			t.Fatal(err)
		}
	}
	file("d/t.txt", "target")
	for _, c := range []struct {
		name, target string
	}{
		{"d/after", "t.txt"},      // the target is extracted already
		{"top", "d/t.txt"},        // from another directory
		{"d/before", "later.txt"}, // the target comes later
		{"chain", "d/before"},     // a copy of a copy, both put off
		{"d/win", `..\d\t.txt`},   // '\' where the system separates with it
	} {
		if c.name == "d/win" && !windowsLinkRules {
			continue
		}
		if err := link(c.name, c.target); err != nil {
			t.Fatalf("%s -> %s: %v", c.name, c.target, err)
		}
	}
	if err := f.x.Write(&archive.Entry{Name: "sub", Type: archive.TypeDir}, nil); err != nil {
		t.Fatal(err)
	}
	if err := link("dirlink", "sub"); !errors.Is(err, ErrSkipped) {
		t.Errorf("link to a directory: %v, want skipped", err)
	}
	if err := link("esc", "../outside/x"); !errors.Is(err, ErrRefused) {
		t.Errorf("escaping link: %v, want refused", err)
	}
	if err := link("never", "missing.txt"); err != nil {
		t.Fatalf("link to a later target: %v", err)
	}
	file("d/later.txt", "later")
	if err := f.x.Finish(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"d/after": "target", "top": "target", "d/before": "later", "chain": "later"}
	if windowsLinkRules {
		want["d/win"] = "target"
	}
	for name, content := range want {
		p := filepath.Join(f.dest, filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, want a regular file", name, fi)
			continue
		}
		if got := f.read(name); got != content {
			t.Errorf("%s holds %q, want %q", name, got, content)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
			t.Errorf("%s has mode %v, want the target's 0640", name, fi.Mode().Perm())
		}
	}
	for _, name := range []string{"dirlink", "esc", "never"} {
		if f.exists(name) {
			t.Errorf("%s was written", name)
		}
	}
	warned := strings.Join(f.warned, " ")
	for _, name := range []string{"dirlink", "esc", "never"} {
		if !strings.Contains(warned, name) {
			t.Errorf("no warning about %s (warned: %s)", name, warned)
		}
	}
	var neverErr error
	for i, w := range f.warned {
		if w == "never" {
			neverErr = f.warnErr[i]
		}
	}
	if !errors.Is(neverErr, ErrRefused) {
		t.Errorf("never: %v, want refused at Finish", neverErr)
	}
}
