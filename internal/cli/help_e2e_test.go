package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestHelpWording checks the help and usage messages a newcomer meets:
// commands listed once, the completion help of its own, defaults shown
// once, switches named as typed, and commands suggested for near misses.
func TestHelpWording(t *testing.T) {
	dir := t.TempDir()
	r := garc(t, dir, "", "--help")
	r.expect(t, ExitOK, "--help")
	if n := strings.Count(r.stdout, "extract with full paths"); n != 1 {
		t.Errorf("--help names x %d times, want once:\n%s", n, r.stdout)
	}
	r = garc(t, dir, "", "completion", "--help")
	r.expect(t, ExitOK, "completion --help")
	if strings.Contains(r.stdout, "--password") || strings.Contains(r.stdout, "Global Flags") {
		t.Errorf("completion --help shows garc's global flags:\n%s", r.stdout)
	}
	r = garc(t, dir, "", "completion", "bash", "--help")
	r.expect(t, ExitOK, "completion bash --help")
	if !strings.Contains(r.stdout, "source <(garc completion bash)") || !strings.Contains(r.stdout, "bashrc") {
		t.Errorf("completion bash --help does not say how to install:\n%s", r.stdout)
	}
	r = garc(t, dir, "", "a", "--help")
	r.expect(t, ExitOK, "a --help")
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "--level int") && (strings.Count(line, "default") != 1 || !strings.Contains(line, "(default 5; 6 for .gz, .tar.gz, .xz and .tar.xz, as gzip and xz)")) {
			t.Errorf("a --help: level line %q, want one (default 5; 6 for .gz, .tar.gz, .xz and .tar.xz, as gzip and xz)", line)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "-mx12", "x.7z", "f"}, "garc: -mx12: the level must be 0 to 9"},
		{[]string{"version"}, "did you mean --version?"},
		{[]string{"X"}, `unknown command "X"; did you mean x?`},
		{[]string{"X", "a.7z", "-o", "d"}, `unknown command "X"; did you mean x?`},
		{[]string{"T", "a.7z"}, `did you mean t?`},
	} {
		r := garc(t, dir, "", c.args...)
		r.expect(t, ExitUsage, strings.Join(c.args, " "))
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("garc %q: stderr %q lacks %q", c.args, r.stderr, c.want)
		}
	}
}

// TestCompletion checks the completion of flag values, descriptions
// without pflag's backquotes, and the bash script in a bash without the
// bash-completion package.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "x", "--overwrite", ""}, []string{"all", "skip", "rename", "rename-existing"}},
		{[]string{"__complete", "l", "--format", ""}, []string{"table", "slt", "json"}},
		{[]string{"__complete", "x", "--links", ""}, []string{"safe", "skip", "unsafe"}},
		{[]string{"__complete", "a", "--method", ""}, []string{"LZMA2", "PPMd", "BZip2"}},
		{[]string{"__complete", "a", "--level", ""}, []string{"0", "5", "9"}},
	} {
		r := garc(t, dir, "", c.args...)
		r.expect(t, ExitOK, strings.Join(c.args, " "))
		lines := strings.Split(r.stdout, "\n")
		for _, w := range c.want {
			found := false
			for _, l := range lines {
				if l == w || strings.HasPrefix(l, w+"\t") {
					found = true
				}
			}
			if !found {
				t.Errorf("garc %q: %q not offered:\n%s", c.args, w, r.stdout)
			}
		}
	}
	r := garc(t, dir, "", "__complete", "x", "--pass")
	r.expect(t, ExitOK, "__complete x --pass")
	if strings.Contains(r.stdout, "`") || !strings.Contains(r.stdout, "--password-file") {
		t.Errorf("flag completions: %q", r.stdout)
	}

	bash := testenv.Tool(t, "bash")
	bin := t.TempDir()
	if err := os.Symlink(garcBin, filepath.Join(bin, "garc")); err != nil {
		t.Fatal(err)
	}
	// A plain bash: no rc files, so no bash-completion package.
	script := `source <(garc completion bash) 2>/dev/null || exit 3
declare -F _init_completion >/dev/null && exit 4
COMP_WORDS=(garc x --overwrite re); COMP_CWORD=3; COMP_LINE="garc x --overwrite re"; COMP_POINT=${#COMP_LINE}
__start_garc garc re --overwrite 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash completion: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != "rename rename-existing" {
		t.Errorf("bash completion of --overwrite re: %q, want rename rename-existing", out)
	}
}

// TestManPage checks the man page's sections and that groff renders it
// without a warning.
func TestManPage(t *testing.T) {
	dir := t.TempDir()
	r := garc(t, dir, "", "man")
	r.expect(t, ExitOK, "man")
	for _, sec := range []string{`.SH "EXIT STATUS"`, `.SH "ENVIRONMENT"`, `.SH "EXAMPLES"`, ".SH OPTIONS"} {
		if !strings.Contains(r.stdout, sec) {
			t.Errorf("man page lacks %s", sec)
		}
	}
	if strings.Contains(r.stdout, "Exit codes:") {
		t.Errorf("man page repeats the exit codes in its description")
	}
	groff := testenv.Tool(t, "groff")
	page := filepath.Join(dir, "garc.1")
	if err := os.WriteFile(page, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(groff, "-ww", "-man", "-Tutf8", page)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("groff -ww: %v\n%s", err, stderr.String())
	}
}
