package security

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/testenv"
)

// garcBin is the garc binary built once by TestMain.
var garcBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "garc-security-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	garcBin = filepath.Join(dir, "garc")
	build := exec.Command("go", "build", "-o", garcBin, "github.com/garc-dev/garc/cmd/garc")
	if out, err := build.CombinedOutput(); err != nil {
		// Tests that need the binary fail with this message.
		garcBin = ""
		fmt.Fprintf(os.Stderr, "building garc: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is the outcome of one garc run.
type result struct {
	code           int
	stdout, stderr string
}

// runGarc runs the garc binary in dir with a time limit and fails t on a
// panic, a hang or an undocumented exit code.
func runGarc(t *testing.T, dir string, args ...string) result {
	t.Helper()
	if garcBin == "" {
		t.Fatal("the garc binary could not be built (see the test output)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, garcBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("") // never a terminal: no questions
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("garc %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("garc %q did not finish within 60 s", args)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("garc %q panicked:\n%s", args, r.stderr)
	}
	switch r.code {
	case 0, 1, 2, 3, 7, 8, 9, 10, 11, 255:
	default:
		t.Fatalf("garc %q: undocumented exit code %d\n%s", args, r.code, r.stderr)
	}
	return r
}

// sandbox is a directory tree in which garc extracts into Dest, three
// levels down, and runs from Dest's parent, so that relative escapes of one
// to three levels and absolute names into Outside both land in the
// sandbox, where they are seen.
type sandbox struct {
	Root    string // the whole tree
	Outside string // a directory outside the destination holding victim.txt
	Work    string // garc's working directory: Root/l1/l2
	Dest    string // the destination: Root/l1/l2/dest
}

const victimText = "original content\n"

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	s := &sandbox{
		Root:    root,
		Outside: filepath.Join(root, "outside"),
		Work:    filepath.Join(root, "l1", "l2"),
	}
	s.Dest = filepath.Join(s.Work, "dest")
	for _, d := range []string{s.Outside, s.Work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Outside, "victim.txt"), []byte(victimText), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshot describes every path under root except those under skip: its
// type, and for files the content, for links the target.
func snapshot(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	m := make(map[string]string)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			tgt, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[p] = "link " + tgt
		case d.IsDir():
			m[p] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[p] = fmt.Sprintf("file %q", b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// outsideState is the snapshot of everything but the destination.
func (s *sandbox) outsideState(t *testing.T) map[string]string {
	return snapshot(t, s.Root, s.Dest)
}

// checkUnchanged fails t if anything outside the destination differs
// from before.
func (s *sandbox) checkUnchanged(t *testing.T, before map[string]string, r result) {
	t.Helper()
	after := s.outsideState(t)
	var diffs []string
	for p, v := range after {
		if before[p] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %s (was %q)", p, v, before[p]))
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, p+": removed")
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("changed outside the destination:\n  %s\ngarc exit %d, stderr:\n%s",
			strings.Join(diffs, "\n  "), r.code, r.stderr)
	}
}

// checkLinksInside fails t if a symbolic link under the destination is
// absolute or, resolved lexically from its directory, leaves the
// destination (the safe-links rule).
func (s *sandbox) checkLinksInside(t *testing.T) {
	t.Helper()
	filepath.WalkDir(s.Dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		tgt, _ := os.Readlink(p)
		res := filepath.Join(filepath.Dir(p), tgt)
		if filepath.IsAbs(tgt) || (res != s.Dest && !strings.HasPrefix(res, s.Dest+string(filepath.Separator))) {
			t.Errorf("link %s -> %s leaves the destination", p, tgt)
		}
		return nil
	})
}

// entrySpec is one member of a 7z archive made by make7z.
type entrySpec struct {
	name    string // final name in the archive (may hold "..", '\', a leading '/')
	content string // file content, or the target of a symlink
	symlink bool
}

// make7z creates a 7z archive with 7zz holding entries in the given order.
// Entries are made on disk under placeholder names of the same length
// (sorted as wanted, since 7zz sorts by name), stored uncompressed with an
// uncompressed header, and then renamed in the header bytes; the header
// CRCs are recomputed.
func make7z(t *testing.T, entries []entrySpec) string {
	t.Helper()
	sz := testenv.SevenZip(t)
	src := t.TempDir()
	var args []string
	patches := make(map[string]string)
	for i, e := range entries {
		n := len(utf16.Encode([]rune(e.name)))
		if n < 3 {
			t.Fatalf("entry name %q: too short for a placeholder", e.name)
		}
		ph := fmt.Sprintf("%c%c", 'a'+i/26, 'a'+i%26) + strings.Repeat("q", n-2)
		patches[ph] = e.name
		p := filepath.Join(src, ph)
		var err error
		if e.symlink {
			err = os.Symlink(e.content, p)
		} else {
			err = os.WriteFile(p, []byte(e.content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, ph)
	}
	arc := filepath.Join(t.TempDir(), "test.7z")
	cmd := exec.Command(sz, append([]string{"a", "-snl", "-mx0", "-mhc=off", "-mhe=off", "-bd", arc}, args...)...)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, out)
	}
	data, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 32 || string(data[:6]) != "7z\xbc\xaf\x27\x1c" {
		t.Fatal("7zz did not write a 7z archive")
	}
	off := binary.LittleEndian.Uint64(data[12:])
	size := binary.LittleEndian.Uint64(data[20:])
	if 32+off+size != uint64(len(data)) {
		t.Fatalf("unexpected 7z layout: header at %d+%d, file %d bytes", off, size, len(data))
	}
	hdr := data[32+off:]
	for ph, name := range patches {
		old := utf16le(ph + "\x00")
		i := bytes.Index(hdr, old)
		if i < 0 || bytes.Contains(hdr[i+1:], old) {
			t.Fatalf("placeholder %q not found exactly once in the header", ph)
		}
		copy(hdr[i:], utf16le(name+"\x00"))
	}
	binary.LittleEndian.PutUint32(data[28:], crc32.ChecksumIEEE(hdr))
	binary.LittleEndian.PutUint32(data[8:], crc32.ChecksumIEEE(data[12:32]))
	if err := os.WriteFile(arc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return arc
}

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// TestSevenZipNames extracts names that leave the destination, absolute
// names and backslash names: the escaping ones are refused by name
// (exit 1), the absolute one lands inside the destination, nothing
// outside changes. The archive is written on Unix (its entries carry a
// Unix mode), so a '\' is a character of the name there, as 7zz reads
// it: "..\..\up4.txt" is one file inside the destination (a 7z entry
// with Windows attributes only is TestBackslashByAttributes' case).
func TestSevenZipNames(t *testing.T) {
	s := newSandbox(t)
	abs := filepath.Join(s.Outside, "abs.txt")
	arc := make7z(t, []entrySpec{
		{name: "../up1.txt", content: "pwned1"},
		{name: "../../up2.txt", content: "pwned2"},
		{name: "sub/../../../up3.txt", content: "pwned3"},
		{name: `..\..\up4.txt`, content: "pwned4"},
		{name: abs, content: "pwned5"},
		{name: "/../../victim.txt", content: "pwned6"},
		{name: "ok.txt", content: "fine"},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest)
	s.checkUnchanged(t, before, r)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1 (entries refused)\n%s", r.code, r.stderr)
	}
	for _, n := range []string{"../up1.txt", "../../up2.txt", "sub/../../../up3.txt"} {
		if !strings.Contains(r.stderr, n) {
			t.Errorf("stderr does not name the refused entry %q:\n%s", n, r.stderr)
		}
	}
	if runtime.GOOS != "windows" {
		if b, err := os.ReadFile(filepath.Join(s.Dest, `..\..\up4.txt`)); err != nil || string(b) != "pwned4" {
			t.Errorf(`..\..\up4.txt is not one file inside the destination: %q, %v`, b, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.Dest, "ok.txt")); err != nil || string(b) != "fine" {
		t.Errorf("ok.txt: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(s.Dest, strings.TrimPrefix(abs, "/"))); err != nil || string(b) != "pwned5" {
		t.Errorf("absolute name not extracted inside the destination: %q, %v", b, err)
	}
}

// TestSevenZipWriteThroughLink is the CVE-2022-30333 pattern: a symbolic
// link to a directory outside the destination, then a file whose path goes
// through the link. With every link policy the file must not be written
// through the link.
func TestSevenZipWriteThroughLink(t *testing.T) {
	cases := []struct {
		name   string
		target func(s *sandbox) string
	}{
		{"absolute", func(s *sandbox) string { return s.Outside }},
		{"relative", func(s *sandbox) string { return "../../../outside" }},
		{"dotdot", func(s *sandbox) string { return "../../.." }},
	}
	for _, c := range cases {
		for _, policy := range []string{"safe", "skip", "unsafe"} {
			t.Run(c.name+"/"+policy, func(t *testing.T) {
				s := newSandbox(t)
				tgt := c.target(s)
				through := "lnk/victim.txt"
				if c.name == "dotdot" {
					through = "lnk/outside/victim.txt"
				}
				arc := make7z(t, []entrySpec{
					{name: "lnk", content: tgt, symlink: true},
					{name: through, content: "pwned"},
					{name: "lnk/new.txt", content: "pwned"},
				})
				before := s.outsideState(t)
				r := runGarc(t, s.Work, "x", arc, "-o", s.Dest, "-y", "--links", policy)
				s.checkUnchanged(t, before, r)
				if r.code != 1 {
					t.Errorf("exit code %d, want 1\n%s", r.code, r.stderr)
				}
				if policy == "unsafe" {
					// The link exists, so the file behind it is refused.
					if !strings.Contains(r.stderr, through) {
						t.Errorf("stderr does not name the refused entry %q:\n%s", through, r.stderr)
					}
				} else {
					// No link was made: the file lands in a real directory.
					if !strings.Contains(r.stderr, "lnk: ") {
						t.Errorf("stderr does not name the refused or skipped link:\n%s", r.stderr)
					}
					s.checkLinksInside(t)
					p := filepath.Join(s.Dest, filepath.FromSlash(through))
					if b, err := os.ReadFile(p); err != nil || string(b) != "pwned" {
						t.Errorf("%s: %q, %v", through, b, err)
					}
				}
			})
		}
	}
}

// TestSevenZipLinkChains tries links whose targets look harmless one at a
// time but climb out in combination.
func TestSevenZipLinkChains(t *testing.T) {
	s := newSandbox(t)
	arc := make7z(t, []entrySpec{
		{name: "dot", content: ".", symlink: true},
		{name: "eee", content: "dot/dot/dot/../../../../../../outside", symlink: true},
		{name: "fff", content: "dot/../../../../outside", symlink: true},
		{name: "ggg", content: "sub/../../../../outside", symlink: true},
		{name: "hhh/iii", content: "../..", symlink: true},
		{name: "eee/victim.txt", content: "pwned e"},
		{name: "fff/victim.txt", content: "pwned f"},
		{name: "ggg/victim.txt", content: "pwned g"},
		{name: "hhh/iii/l2/../../outside/victim.txt", content: "pwned h"},
		{name: "dot/dot/new.txt", content: "pwned d"},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "x", arc, "-o", s.Dest, "-y")
	s.checkUnchanged(t, before, r)
	s.checkLinksInside(t)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1\n%s", r.code, r.stderr)
	}
}

// TestExistingLinkInDestination: links already in the destination (the
// user's, or left by an earlier run) are never written through, neither
// as a directory on the way nor as the file to overwrite.
func TestExistingLinkInDestination(t *testing.T) {
	for _, mode := range []string{"-y", "--overwrite=never", "--overwrite=rename"} {
		t.Run(mode, func(t *testing.T) {
			s := newSandbox(t)
			if err := os.MkdirAll(s.Dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(s.Outside, filepath.Join(s.Dest, "dir")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(s.Outside, "victim.txt"), filepath.Join(s.Dest, "file.txt")); err != nil {
				t.Fatal(err)
			}
			arc := make7z(t, []entrySpec{
				{name: "dir/victim.txt", content: "pwned dir"},
				{name: "file.txt", content: "pwned file"},
			})
			before := s.outsideState(t)
			r := runGarc(t, s.Work, "x", arc, "-o", s.Dest, mode)
			s.checkUnchanged(t, before, r)
			if r.code != 1 {
				t.Errorf("exit code %d, want 1\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "dir/victim.txt") {
				t.Errorf("stderr does not name the refused entry dir/victim.txt:\n%s", r.stderr)
			}
			if mode == "-y" {
				fi, err := os.Lstat(filepath.Join(s.Dest, "file.txt"))
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("file.txt should have replaced the link with a regular file: %v %v", fi, err)
				}
			}
		})
	}
}

// TestFlatExtraction: garc e drops directories; names with ".." and links
// must not escape that way either.
func TestFlatExtraction(t *testing.T) {
	s := newSandbox(t)
	arc := make7z(t, []entrySpec{
		{name: "x/../../victim.txt", content: "pwned 1"},
		{name: "lnk", content: s.Outside, symlink: true},
		{name: "y/..", content: "pwned 2"},
	})
	before := s.outsideState(t)
	r := runGarc(t, s.Work, "e", arc, "-o", s.Dest, "-y")
	s.checkUnchanged(t, before, r)
	s.checkLinksInside(t)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1\n%s", r.code, r.stderr)
	}
}

// TestRARCorpusSecurity extracts the RAR fixtures of the corpus marked
// SECURITY or LINK-ESCAPE with each link policy: nothing outside the
// destination may change, and with safe links every created link stays
// inside. Where the fixture holds an escaping name or link, the run must
// report it (exit 1).
func TestRARCorpusSecurity(t *testing.T) {
	root := testenv.CorpusRoot(t)
	units, err := corpus.Units(root)
	if err != nil {
		t.Fatal(err)
	}
	// Fixtures that hold something to refuse with the default policy.
	mustRefuse := map[string]bool{
		"files/rarfile/files__rar3-symlink-unix.rar":                     true,
		"files/rarfile/files__rar5-evil-symlink-traversal.rar":           true,
		"files/rarfile/files__rar5-symlink-unix.rar":                     true,
		"files/rarfile/files__rar5-symlink-win.rar":                      true,
		"files/junrar/com__github__junrar__parent-dir.rar":               true,
		"files/junrar/com__github__junrar__sibling-prefix-traversal.rar": true,
	}
	n := 0
	for _, u := range units {
		if !strings.HasPrefix(u.GTNote, "SECURITY") && !strings.HasPrefix(u.GTNote, "LINK-ESCAPE") {
			continue
		}
		if !strings.HasPrefix(u.Format, "rar") {
			continue
		}
		n++
		for _, policy := range []string{"safe", "skip", "unsafe"} {
			t.Run(filepath.Base(u.Unit)+"/"+policy, func(t *testing.T) {
				s := newSandbox(t)
				args := []string{"x", u.Path(root), "-o", s.Dest, "-y", "--links", policy}
				if u.Password != "" {
					args = append(args, "--password", u.Password)
				}
				before := s.outsideState(t)
				r := runGarc(t, s.Work, args...)
				s.checkUnchanged(t, before, r)
				if policy == "safe" {
					s.checkLinksInside(t)
					if mustRefuse[u.Unit] && r.code != 1 {
						t.Errorf("exit code %d, want 1 (something to refuse)\n%s", r.code, r.stderr)
					}
				}
				if r.code > 1 && !strings.Contains(r.stderr, filepath.Base(u.Unit)) {
					t.Errorf("error does not name the archive:\n%s", r.stderr)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no SECURITY or LINK-ESCAPE RAR fixtures found in the corpus index")
	}
}
