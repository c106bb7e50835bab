package cli

// End-to-end tests of the user-facing command line (issue 12): passwords
// never printed, messages that name what the user typed, unrar and 7-Zip
// switches people type, completion, the man page and --version.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestPasswordNeverPrinted runs every way of mistyping or misusing a
// password and checks that no output contains it.
func TestPasswordNeverPrinted(t *testing.T) {
	const secret = "Sekr1tPw"
	dir := t.TempDir()
	enc := makeArchive(t, dir, "enc.7z", "-p"+secret, "-mhe=on")
	plain := makeArchive(t, dir, "plain.7z")
	tests := []struct {
		args  []string
		stdin string
		code  int
	}{
		// "-p SECRET" with a space: refused (exit 7), whatever its place.
		{args: []string{"x", "-p", secret, enc}, code: ExitUsage},
		{args: []string{"-p", secret, "x", enc}, code: ExitUsage},
		{args: []string{"x", enc, "-p", secret}, code: ExitUsage},
		{args: []string{"t", "-p", secret}, code: ExitUsage},
		{args: []string{"l", "-p", secret, plain}, code: ExitUsage},
		{args: []string{"a", "-p", secret, "new.7z", "src"}, code: ExitUsage},
		{args: []string{"a", "-hp", secret, "new.7z", "src"}, code: ExitUsage},
		{args: []string{"d", "-p", secret, enc, "src/a.txt"}, code: ExitUsage},
		// The forms that work.
		{args: []string{"t", "-p" + secret, enc}, code: ExitOK},
		{args: []string{"t", "--password", secret, enc}, code: ExitOK},
		{args: []string{"t", "--password=" + secret, enc}, code: ExitOK},
		{args: []string{"t", "--password-stdin", enc}, stdin: secret + "\n", code: ExitOK},
		// A lone -p before an existing archive is 7-Zip's "ask": it
		// cannot ask here (stdin is not a terminal).
		{args: []string{"t", "-p", enc}, code: ExitPassword},
		// Other mistakes around a password.
		{args: []string{"t", "-p" + secret + "x", enc}, code: ExitPassword},
		{args: []string{"t", "-p" + secret, "-aox", enc}, code: ExitUsage},
		{args: []string{"t", "-p" + secret, "missing.7z"}, code: ExitFatal},
		{args: []string{"t", "-p" + secret, "--password-stdin", enc}, stdin: secret, code: ExitUsage},
		{args: []string{"t", "--password-stdin=" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "--ask-password=" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "-P" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "-P", secret, enc}, code: ExitUsage},
		{args: []string{"frobnicate", "-p" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "-hp" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "--pasword=" + secret, enc}, code: ExitUsage},
		{args: []string{"t", "--password-file=" + secret, enc}, code: ExitFatal},
		{args: []string{"x", "-p" + secret, enc, "nothing-matches"}, code: ExitNoMatch},
		{args: []string{"t", "--password-stdin", enc}, stdin: secret + "x\n", code: ExitPassword},
		{args: []string{"a", "-p" + secret, "-mhe=maybe", "new.7z", "src"}, code: ExitUsage},
	}
	for _, tc := range tests {
		r := garc(t, dir, tc.stdin, tc.args...)
		if r.code != tc.code {
			t.Errorf("%q: exit %d, want %d\nstderr: %s", tc.args, r.code, tc.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%q printed the password:\nstdout: %s\nstderr: %s", tc.args, r.stdout, r.stderr)
		}
	}
	// The refusal of "-p SECRET" says what to write instead.
	r := garc(t, dir, "", "x", "-p", secret, enc)
	for _, want := range []string{"-pSECRET", "--password-stdin"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-p SECRET: message lacks %q: %s", want, r.stderr)
		}
	}
}

// TestUsageMessages checks that usage errors name what the user typed.
func TestUsageMessages(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"x", "-mx9", arc}, []string{"garc: -mx9 is a switch of a, not of x\n", "Run 'garc x --help' for usage."}},
		{[]string{"x", "-mhe=on", arc}, []string{"-mhe=on is a switch of a, not of x"}},
		{[]string{"l", "-y", "--overwrite=all", arc}, []string{"--overwrite is a switch of e and x, not of l"}},
		{[]string{"x", "-aox", arc}, []string{"-aox: unknown overwrite mode", "-aoa", "-aos", "-aou", "-aot"}},
		{[]string{"a", "-mqq", "n.7z", "src"}, []string{"-mqq: unknown method switch"}},
		{[]string{"x"}, []string{"garc: x: missing ARCHIVE (usage: garc x ARCHIVE", "Run 'garc x --help' for usage."}},
		{[]string{"l"}, []string{"garc: l: missing ARCHIVE"}},
		{[]string{"extrct", arc}, []string{`unknown command "extrct"; did you mean x (extract)?`, "Run 'garc --help' for usage."}},
		{[]string{"lst", arc}, []string{`did you mean l (list)`}},
		{[]string{"x", "--overwite=all", arc}, []string{"unknown switch --overwite; did you mean --overwrite?"}},
		{[]string{"x", "-hpX", arc}, []string{"-hp… is a switch of a, not of x"}},
		{[]string{"x", "-PX", arc}, []string{"unknown switch -P… (a password is given as -pSECRET"}},
		{[]string{"x", arc, "-o"}, []string{"-o needs a value"}},
		{[]string{"a", "--level=high", "n.7z", "src"}, []string{`--level=high: "high" expects a whole number`}},
		{[]string{"a", "-mx", "high", "n.7z", "src"}, nil},
		{[]string{"x", "-zz", arc}, []string{"unknown switch -zz", "Run 'garc x --help' for usage."}},
	}
	for _, tc := range tests {
		r := garc(t, dir, "", tc.args...)
		if tc.want == nil {
			continue
		}
		r.expect(t, ExitUsage, strings.Join(tc.args, " "))
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, w, r.stderr)
			}
		}
		for _, internal := range []string{"--level", "--encrypt-headers", "shorthand", "arg(s)"} {
			if strings.Contains(r.stderr, internal) && !strings.Contains(strings.Join(tc.args, " "), internal) {
				t.Errorf("%q: stderr names the internal %q:\n%s", tc.args, internal, r.stderr)
			}
		}
	}
}

// TestCompletionAndMan checks garc completion for every shell, the
// dynamic completion it relies on, and the generated man page.
func TestCompletionAndMan(t *testing.T) {
	dir := t.TempDir()
	for shell, want := range map[string]string{
		"bash":       "__start_garc",
		"zsh":        "#compdef garc",
		"fish":       "complete -c garc",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := garc(t, dir, "", "completion", shell)
		r.expect(t, ExitOK, "completion "+shell)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s lacks %q", shell, want)
		}
	}
	r := garc(t, dir, "", "__complete", "x", "--overw")
	r.expect(t, ExitOK, "__complete")
	if !strings.Contains(r.stdout, "--overwrite") {
		t.Errorf("completing --overw: %q", r.stdout)
	}
	r = garc(t, dir, "", "__complete", "")
	r.expect(t, ExitOK, "__complete ''")
	if !strings.Contains(r.stdout, "x\t") || !strings.Contains(r.stdout, "completion\t") || strings.Contains(r.stdout, "man\t") {
		t.Errorf("completing a command: %q", r.stdout)
	}

	r = garc(t, dir, "", "man")
	r.expect(t, ExitOK, "man")
	for _, want := range []string{".TH GARC 1 ", ".SH NAME\ngarc \\- ", ".SH SYNOPSIS", ".SS \"x \\[u2014] extract with full paths\"",
		".B \\-\\-overwrite string", ".SH OPTIONS", "\\-\\-password\\-file FILE", "wrong or missing password"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	if man := testenvOptionalTool("man"); man != "" {
		// man(1) renders it without warnings.
		os.WriteFile(filepath.Join(dir, "garc.1"), []byte(r.stdout), 0o644)
		cmd := exec.Command(man, "--warnings", "-l", filepath.Join(dir, "garc.1"))
		cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("man -l garc.1: %v\n%s", err, stderr.String())
		}
	}
}

// testenvOptionalTool returns the path of a tool that only adds checks
// when installed (no skip: the test's main assertions do not need it).
func testenvOptionalTool(name string) string {
	p, _ := exec.LookPath(name)
	return p
}

// TestVersion checks that garc --version names the version, commit and
// date, and that `make build` stamps them even without VCS information
// in the build (GOFLAGS=-buildvcs=false).
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	r := garc(t, dir, "", "--version")
	r.expect(t, ExitOK, "--version")
	if !strings.HasPrefix(r.stdout, "garc version ") {
		t.Errorf("--version: %q", r.stdout)
	}
	makeBin := testenv.Tool(t, "make")
	gitBin := testenv.Tool(t, "git")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command(gitBin, "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		testenv.Missing(t, "a git checkout (make build stamps the commit from it)")
	}
	bin := filepath.Join(dir, "garc")
	cmd := exec.Command(makeBin, "-C", root, "build", "BIN="+bin)
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^garc version \S+ \(commit ` + strings.TrimSpace(string(rev)) + `(-dirty)?, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$`)
	if !want.Match(out) {
		t.Errorf("make build with -buildvcs=false: --version prints %q, want %s", out, want)
	}
}

// TestSwitchesPeopleType checks 7-Zip's l -ba and -bb1 and unrar's lb,
// v, vt, lt, p, -x, -n, -ad, -c- and -ierr against the built binary.
func TestSwitchesPeopleType(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	names := "src\nsrc/a.txt\nsrc/b.png\nsrc/docs\nsrc/docs/c.txt\nsrc/docs/d.bin\nsrc/empty\nsrc/empty/.keep\n"

	for _, cmd := range []string{"lb", "vb"} {
		r := garc(t, dir, "", cmd, arc)
		r.expect(t, ExitOK, cmd)
		got := strings.SplitAfter(r.stdout, "\n")
		sort.Strings(got)
		if strings.Join(got, "") != names {
			t.Errorf("%s: %q, want %q in archive order", cmd, r.stdout, names)
		}
	}
	r := garc(t, dir, "", "lb", "-r", arc, "*.txt")
	if r.stdout != "src/a.txt\nsrc/docs/c.txt\n" {
		t.Errorf("lb -r *.txt: %q", r.stdout)
	}
	r = garc(t, dir, "", "lb", arc, "nothing", "a.txt")
	r.expect(t, ExitNoMatch, "lb without a match")
	if want := `no files matched the patterns: nothing matches "nothing", "a.txt" (matches 1 below the top level: patterns start at the archive root; -r or **/ matches at any depth)`; !strings.Contains(r.stderr, want) {
		t.Errorf("lb without a match: %q, want %q", r.stderr, want)
	}

	// l -ba: the table's rows, as 7zz l -ba prints them.
	r = garc(t, dir, "", "l", "-ba", arc)
	r.expect(t, ExitOK, "l -ba")
	table := garc(t, dir, "", "l", arc).stdout
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(rows) != 8 || strings.Contains(r.stdout, "Path = ") || strings.Contains(r.stdout, "-----") {
		t.Errorf("l -ba:\n%s", r.stdout)
	}
	for _, row := range rows {
		if !strings.Contains(table, row+"\n") {
			t.Errorf("l -ba row %q is not a row of l", row)
		}
	}
	if bin := testenvOptionalTool("7zz"); bin != "" {
		cmd := exec.Command(bin, "l", "-ba", arc)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		// Same names in the same place (column 53 on), as scripts cut them.
		for i, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if i < len(rows) && len(line) > 53 && len(rows[i]) > 53 && line[53:] != rows[i][53:] {
				t.Errorf("l -ba row %d: name column %q, 7zz %q", i, rows[i][53:], line[53:])
			}
		}
	}

	// v, vt, lt are listings; p prints files to stdout.
	garc(t, dir, "", "v", arc).expect(t, ExitOK, "v")
	for _, cmd := range []string{"vt", "lt"} {
		if r := garc(t, dir, "", cmd, arc); r.code != ExitOK || !strings.Contains(r.stdout, "Path = src/a.txt\n") {
			t.Errorf("%s: exit %d\n%s", cmd, r.code, r.stdout)
		}
	}
	if r := garc(t, dir, "", "p", arc, "src/a.txt"); r.code != ExitOK || r.stdout != sampleFiles["src/a.txt"] {
		t.Errorf("p: exit %d, %d bytes", r.code, len(r.stdout))
	}

	// -bb1 and --verbose list each file on stderr, even with -bd.
	for _, sw := range []string{"-bb1", "--verbose"} {
		r := garc(t, dir, "", "x", sw, "-bd", "-y", arc, "-o", "bb")
		r.expect(t, ExitOK, "x "+sw)
		if !strings.Contains(r.stderr, "- src/docs/c.txt\n") || !strings.Contains(r.stderr, "- src/a.txt\n") {
			t.Errorf("x %s: stderr %q", sw, r.stderr)
		}
	}
	r = garc(t, dir, "", "a", "-bb1", "new.7z", "src")
	r.expect(t, ExitOK, "a -bb1")
	if !strings.Contains(r.stderr, "+ src/docs/c.txt\n") {
		t.Errorf("a -bb1: stderr %q", r.stderr)
	}

	// unrar's -x, -n, -ad, -c-, -ierr.
	garc(t, dir, "", "x", "-n*.txt", "-x*c.txt", "-c-", "-ierr", "-r", "-y", arc, "nx/").expect(t, ExitOK, "-n -x")
	got := readTree(t, filepath.Join(dir, "nx"))
	if _, ok := got["src/a.txt"]; !ok || got["src/docs/c.txt"] != "" || got["src/b.png"] != "" {
		t.Errorf("-n*.txt -x*c.txt extracted %s", keys(got))
	}
	garc(t, dir, "", "x", "-ad", "-y", arc, "ad/").expect(t, ExitOK, "-ad")
	if _, err := os.Stat(filepath.Join(dir, "ad", "s", "src", "a.txt")); err != nil {
		t.Errorf("-ad: %v", err)
	}
	r = garc(t, dir, "", "x", "-ad2", arc)
	r.expect(t, ExitUsage, "-ad2")
	if !strings.Contains(r.stderr, "-ad2") {
		t.Errorf("-ad2: %q", r.stderr)
	}
	r = garc(t, dir, "", "x", "-ba", arc)
	r.expect(t, ExitUsage, "x -ba")
	if !strings.Contains(r.stderr, "-ba is a switch of lb") {
		t.Errorf("x -ba: %q", r.stderr)
	}
}
