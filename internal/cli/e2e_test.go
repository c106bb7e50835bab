package cli

// End-to-end tests: build the garc binary once and run it. With
// GARC_COVERDIR set, the binary is built with -cover and its runs write
// coverage data there.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

var garcBin string

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(m.Run()) // a child process of one in-process test: no binary
	}
	dir, err := os.MkdirTemp("", "garc-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	garcBin = filepath.Join(dir, "garc")
	args := []string{"build", "-o", garcBin}
	// GARC_COVERDIR=DIR measures the coverage of the runs of the binary:
	// afterwards `go tool covdata percent -i DIR` reports it.
	if cov := os.Getenv("GARC_COVERDIR"); cov != "" {
		args = append(args, "-cover", "-coverpkg=github.com/garc-dev/garc/...")
		if err := os.MkdirAll(cov, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Setenv("GOCOVERDIR", cov)
	}
	build := exec.Command("go", append(args, "github.com/garc-dev/garc/cmd/garc")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building garc:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// garc runs the binary in dir with stdin as standard input (not a
// terminal).
func garc(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	// The deadline only stops a hung run; it is not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, garcBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ctx.Err() != nil {
		t.Fatalf("garc %q did not finish within 2 minutes\nstderr:\n%s", args, errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errb.String(), "panic:") || strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("garc %q panicked:\n%s", args, errb.String())
	}
	return result{out.String(), errb.String(), code}
}

func (r result) expect(t *testing.T, code int, what string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
}

// writeTree creates files (name → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sevenZip runs 7zz in dir, skipping the test when it is not installed.
func sevenZip(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin := testenv.SevenZip(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("7zz %q: %v\n%s", args, err, out)
	}
}

var sampleFiles = map[string]string{
	"src/a.txt":       strings.Repeat("alpha\n", 500),
	"src/b.png":       "not really a png",
	"src/docs/c.txt":  strings.Repeat("gamma gamma\n", 300),
	"src/docs/d.bin":  strings.Repeat("\x00\x01\x02", 1000),
	"src/empty/.keep": "",
}

// makeArchive creates dir/name from sampleFiles with extra 7zz switches.
func makeArchive(t *testing.T, dir, name string, switches ...string) string {
	t.Helper()
	writeTree(t, dir, sampleFiles)
	args := append([]string{"a", "-bd", name, "src"}, switches...)
	sevenZip(t, dir, args...)
	return filepath.Join(dir, name)
}

func TestHelpAndUsage(t *testing.T) {
	dir := t.TempDir()
	r := garc(t, dir, "", "--help")
	r.expect(t, ExitOK, "--help")
	for _, want := range []string{"Exit codes:", "255", "wrong or missing password", "x ", "--password-file"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if r := garc(t, dir, "", "--version"); r.code != ExitOK || !strings.HasPrefix(r.stdout, "garc version ") {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
	r = garc(t, dir, "", "l", "--help")
	r.expect(t, ExitOK, "l --help")
	if !strings.Contains(r.stdout, `"encrypted_headers": bool`) || !strings.Contains(r.stdout, "RFC 3339") {
		t.Errorf("l --help does not document the JSON schema:\n%s", r.stdout)
	}
	for _, args := range [][]string{
		{},
		{"x"},
		{"frobnicate", "a.7z"},
		{"x", "--no-such-flag", "a.7z"},
		{"x", "--overwrite=sometimes", "a.7z"},
		{"x", "--links=maybe", "a.7z"},
		{"x", "--progress=loud", "a.7z"},
		{"x", "--max-dict=lots", "a.7z"},
		{"l", "--format=xml", "a.7z"},
		{"x", "-p1", "--password-file=f", "a.7z"},
	} {
		r := garc(t, dir, "", args...)
		r.expect(t, ExitUsage, fmt.Sprint(args))
		if !strings.HasPrefix(r.stderr, "garc: ") && len(args) > 0 {
			t.Errorf("%q: diagnostic %q does not start with garc:", args, r.stderr)
		}
		if r.stdout != "" && len(args) > 0 {
			t.Errorf("%q: usage error wrote to stdout: %q", args, r.stdout)
		}
	}
}

func TestNotAnArchive(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"notes.7z": "hello, this is text\n", "x.rar": ""})
	for _, cmd := range []string{"l", "t", "x"} {
		r := garc(t, dir, "", cmd, "notes.7z")
		r.expect(t, ExitFatal, cmd+" notes.7z")
		if !strings.Contains(r.stderr, "garc: notes.7z: not an archive") {
			t.Errorf("%s: message %q", cmd, r.stderr)
		}
	}
	garc(t, dir, "", "l", "x.rar").expect(t, ExitFatal, "empty file")
	garc(t, dir, "", "l", "missing.7z").expect(t, ExitFatal, "missing file")
	if _, err := os.Stat(filepath.Join(dir, "notes")); err == nil {
		t.Error("x on a non-archive created something")
	}
}

func TestListFormats(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z", "-mx=5")
	r := garc(t, dir, "", "l", "--format=json", arc)
	r.expect(t, ExitOK, "l --format=json")
	var doc struct {
		Archive struct {
			Type        string   `json:"type"`
			Solid       bool     `json:"solid"`
			Volumes     []string `json:"volumes"`
			HeadersSize *int64   `json:"headers_size"`
			Blocks      *int64   `json:"blocks"`
		} `json:"archive"`
		Entries []struct {
			Path  string `json:"path"`
			Type  string `json:"type"`
			Size  *int64 `json:"size"`
			MTime string `json:"mtime"`
			CRC32 string `json:"crc32"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("JSON listing does not parse: %v\n%s", err, r.stdout)
	}
	if doc.Archive.Type != "7z" || !doc.Archive.Solid || len(doc.Archive.Volumes) != 1 ||
		doc.Archive.HeadersSize == nil || *doc.Archive.HeadersSize <= 0 || doc.Archive.Blocks == nil || *doc.Archive.Blocks != 1 {
		t.Errorf("archive fields: %+v", doc.Archive)
	}
	seen := map[string]string{}
	for _, e := range doc.Entries {
		seen[e.Path] = e.Type
		if e.Type == "file" && (e.Size == nil || e.CRC32 == "" && *e.Size > 0 || e.MTime == "") {
			t.Errorf("entry %s lacks size, crc or mtime", e.Path)
		}
	}
	for name := range sampleFiles {
		if seen[name] != "file" {
			t.Errorf("JSON listing lacks %s (%v)", name, seen)
		}
	}
	if seen["src/docs"] != "dir" {
		t.Errorf("src/docs not listed as dir")
	}

	r = garc(t, dir, "", "l", "-slt", arc)
	r.expect(t, ExitOK, "l -slt")
	for _, key := range []string{"Path = src/a.txt", "Size = 3000", "Packed Size = ", "Modified = ", "Attributes = A -rw-r--r--", "CRC = ", "Encrypted = -", "Method = LZMA2", "Block = 0", "Headers Size = ", "Blocks = 1"} {
		if !strings.Contains(r.stdout, key) {
			t.Errorf("-slt output lacks %q:\n%s", key, r.stdout)
		}
	}
	r = garc(t, dir, "", "l", arc)
	r.expect(t, ExitOK, "l")
	if !strings.Contains(r.stdout, "src/docs/c.txt") || !strings.Contains(r.stdout, "Type = 7z") {
		t.Errorf("table listing:\n%s", r.stdout)
	}
	// Patterns filter the listing; no match is exit 10.
	r = garc(t, dir, "", "l", "-r", arc, "*.txt")
	r.expect(t, ExitOK, "l -r *.txt")
	if !strings.Contains(r.stdout, "src/docs/c.txt") || strings.Contains(r.stdout, "b.png") {
		t.Errorf("l -r *.txt:\n%s", r.stdout)
	}
	garc(t, dir, "", "l", arc, "*.doesnotexist").expect(t, ExitNoMatch, "no match")
	garc(t, dir, "", "t", arc, "nothing/here").expect(t, ExitNoMatch, "t no match")
	garc(t, dir, "", "x", arc, "nothing").expect(t, ExitNoMatch, "x no match")
}

func TestTest(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	r := garc(t, dir, "", "t", arc)
	r.expect(t, ExitOK, "t")
	// The summary is a message: stderr (issue 24, point 3).
	for _, want := range []string{"Testing archive: " + arc + "\n", "\nEverything is Ok\n", "\nFolders: 3\n", "\nFiles: 5\n", "\nSize:       9616\n", "\nCompressed: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("t output lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("t printed on stdout: %q", r.stdout)
	}
	if r := garc(t, dir, "", "t", "-q", arc); r.stdout != "" || r.stderr != "" {
		t.Errorf("t -q printed %q, %q", r.stdout, r.stderr)
	}

	// A stored, non-solid archive with one byte of content changed: the
	// damaged entry fails its CRC (exit 3), the others still pass.
	stored := makeArchive(t, dir, "stored.7z", "-mx=0", "-ms=off")
	data, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("gamma gamma"))
	if i < 0 {
		t.Fatal("stored content not found")
	}
	data[i] = 'G'
	os.WriteFile(stored, data, 0o644)
	r = garc(t, dir, "", "t", stored)
	r.expect(t, ExitChecksum, "t damaged")
	if !strings.Contains(r.stderr, "stored.7z: src/docs/c.txt:") || strings.Count(r.stderr, "garc: ") != 1 {
		t.Errorf("damaged entry not reported once by name:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "\nSub items Errors: 1\n") || strings.Contains(r.stderr, "Everything is Ok") {
		t.Errorf("summary: %q", r.stderr)
	}
	if strings.Contains(r.stdout, "garc: ") {
		t.Errorf("diagnostics on stdout: %q", r.stdout)
	}
}

func TestPasswords(t *testing.T) {
	dir := t.TempDir()
	enc := makeArchive(t, dir, "enc.7z", "-psecret")
	hdr := makeArchive(t, dir, "hdr.7z", "-psecret", "-mhe=on")
	writeTree(t, dir, map[string]string{"pw.txt": "secret\nignored second line\n", "bad.txt": "nope\n"})
	for _, arc := range []string{enc, hdr} {
		name := filepath.Base(arc)
		garc(t, dir, "", "t", "-psecret", arc).expect(t, ExitOK, name+" -p")
		garc(t, dir, "", "t", "--password", "secret", arc).expect(t, ExitOK, name+" --password")
		garc(t, dir, "", "t", "--password-file", "pw.txt", arc).expect(t, ExitOK, name+" --password-file")
		garc(t, dir, "secret\n", "t", "--password-stdin", arc).expect(t, ExitOK, name+" --password-stdin")
		garc(t, dir, "secret", "t", "--password-stdin", arc).expect(t, ExitOK, name+" --password-stdin without newline")
		garc(t, dir, "secret\r\n", "t", "--password-stdin", arc).expect(t, ExitOK, name+" --password-stdin CRLF")
		garc(t, dir, "", "t", "-pwrong", arc).expect(t, ExitPassword, name+" wrong password")
		garc(t, dir, "", "t", "--password-file", "bad.txt", arc).expect(t, ExitPassword, name+" wrong password file")
		r := garc(t, dir, "", "t", arc)
		r.expect(t, ExitPassword, name+" no password, stdin not a terminal")
		if !strings.Contains(r.stderr, "password required") {
			t.Errorf("%s: message %q", name, r.stderr)
		}
		if strings.Contains(r.stderr, "Enter password") {
			t.Errorf("%s: prompted although stdin is not a terminal", name)
		}
		garc(t, dir, "", "t", "--password-file", "missing.txt", arc).expect(t, ExitFatal, name+" missing password file")
	}
	// Listing needs the password only when the headers are encrypted.
	garc(t, dir, "", "l", enc).expect(t, ExitOK, "l enc.7z without password")
	garc(t, dir, "", "l", hdr).expect(t, ExitPassword, "l hdr.7z without password")
	r := garc(t, dir, "", "l", "--format=json", "-psecret", hdr)
	r.expect(t, ExitOK, "l hdr.7z with password")
	if !strings.Contains(r.stdout, `"encrypted_headers":true`) {
		t.Errorf("encrypted headers not reported:\n%s", r.stdout)
	}
}

func TestMaxDict(t *testing.T) {
	dir := t.TempDir()
	// 7-Zip shrinks the stored dictionary to the data size, so give it
	// half a megabyte.
	big := make([]byte, 512<<10)
	x := uint32(1)
	for i := range big {
		x = x*1664525 + 1013904223
		big[i] = byte(x >> 24)
	}
	writeTree(t, dir, map[string]string{"src/random.bin": string(big)})
	arc := makeArchive(t, dir, "big.7z", "-m0=LZMA2", "-md=4m")
	r := garc(t, dir, "", "t", "--max-dict=64k", arc)
	r.expect(t, ExitLimit, "--max-dict below the dictionary")
	if !strings.Contains(r.stderr, "limit") {
		t.Errorf("message %q", r.stderr)
	}
	garc(t, dir, "", "t", "--max-dict=64m", arc).expect(t, ExitOK, "--max-dict above the dictionary")
}

func TestRawSplit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/big.bin": strings.Repeat("0123456789abcdef", 4096)})
	sevenZip(t, dir, "a", "-bd", "-mx=0", "-v10k", "split.7z", "src")
	if _, err := os.Stat(filepath.Join(dir, "split.7z.003")); err != nil {
		t.Fatalf("7zz did not split: %v", err)
	}
	for _, start := range []string{"split.7z.001", "split.7z.002"} {
		r := garc(t, dir, "", "l", "--format=json", start)
		r.expect(t, ExitOK, "l "+start)
		var doc struct {
			Archive struct{ Volumes []string } `json:"archive"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Archive.Volumes) < 3 || !strings.HasSuffix(doc.Archive.Volumes[0], ".001") {
			t.Errorf("%s: volumes %q", start, doc.Archive.Volumes)
		}
		garc(t, dir, "", "t", start).expect(t, ExitOK, "t "+start)
	}
}

func TestCreateSwitches(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "x"})
	r := garc(t, dir, "", "a", "-mx9", "-m0=lzma2", "-mhe=on", "-psecret", "-mmt2", "-ms=on", "-v1m", "out.7z", "f.txt")
	if r.code != ExitOK {
		t.Fatalf("a: exit %d: %s", r.code, r.stderr)
	}
	garc(t, dir, "", "t", "-psecret", "out.7z.001").expect(t, ExitOK, "test the created archive")
	garc(t, dir, "", "a", "-mx=12", "out.7z", "f.txt").expect(t, ExitUsage, "bad level")
	garc(t, dir, "", "a", "-mhe=on", "out.7z", "f.txt").expect(t, ExitUsage, "-mhe without password")
	garc(t, dir, "", "a", "-t7z", "out.7z").expect(t, ExitUsage, "no inputs")
	garc(t, dir, "", "a", "-trar", "out.rar", "f.txt").expect(t, ExitUsage, "rar")
}
