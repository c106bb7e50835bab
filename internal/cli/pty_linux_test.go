//go:build linux

package cli

// Tests that need a real terminal: the password prompt without echo,
// Ctrl-C at the prompt, and the progress bar. They open a pseudo-terminal
// pair with /dev/ptmx and run the built binary on it.

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/garc-dev/garc/internal/testenv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/prompt"
)

// openPTY returns the master and slave ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		testenv.Missing(t, "a pseudo-terminal (/dev/ptmx: "+err.Error()+")")
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open slave: %v", err)
	}
	return m, s
}

// ptyRun is garc running with a terminal as its stdin and stderr (and
// stdout unless captured separately).
type ptyRun struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer // everything the terminal received
	done   chan struct{}
	stdout bytes.Buffer // stdout when it is a pipe
}

// collect keeps what the terminal receives in r.out until its master
// side ends, then closes r.done.
func (r *ptyRun) collect() {
	defer close(r.done)
	buf := make([]byte, 4096)
	for {
		n, err := r.master.Read(buf)
		r.mu.Lock()
		r.out.Write(buf[:n])
		r.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func startPTY(t *testing.T, dir string, separateStdout bool, args ...string) *ptyRun {
	t.Helper()
	return startPTYWith(t, dir, separateStdout, 0, nil, args...)
}

// startPTYWith is startPTY on a terminal cols columns wide (0: the
// default) with env added to the environment.
func startPTYWith(t *testing.T, dir string, separateStdout bool, cols int, env []string, args ...string) *ptyRun {
	t.Helper()
	master, slave := openPTY(t)
	if cols > 0 {
		if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
			t.Fatal(err)
		}
	}
	r := &ptyRun{master: master, done: make(chan struct{})}
	r.cmd = exec.Command(garcBin, args...)
	r.cmd.Dir = dir
	r.cmd.Env = append(append(os.Environ(), "TZ=UTC", "TERM=xterm", "LANG=C.UTF-8", "LC_ALL="), env...)
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = slave, slave, slave
	if separateStdout {
		r.cmd.Stdout = &r.stdout
	}
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go r.collect()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		master.Close()
	})
	return r
}

// output returns what the terminal has received so far.
func (r *ptyRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitFor waits until the terminal has shown s. The deadline only stops a
// hung test; it is not a timing assertion.
func (r *ptyRun) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(r.output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %q; it shows:\n%q", s, r.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for the process and returns its exit code.
func (r *ptyRun) wait(t *testing.T) int {
	t.Helper()
	// The deadline only stops a hung run; it is not a timing assertion.
	stop := time.AfterFunc(60*time.Second, func() { r.cmd.Process.Kill() })
	err := r.cmd.Wait()
	if !stop.Stop() {
		t.Fatalf("garc did not finish within 60 s; the terminal shows:\n%q", r.output())
	}
	<-r.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func TestPasswordPrompt(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "hdr.7z", "-ptopsecret", "-mhe=on")

	r := startPTY(t, dir, false, "t", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte("topsecret\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("prompted password: exit %d\n%s", code, r.output())
	}
	if strings.Contains(r.output(), "topsecret") {
		t.Errorf("the password was echoed:\n%q", r.output())
	}
	if !strings.Contains(r.output(), "Everything is Ok") {
		t.Errorf("test did not run:\n%q", r.output())
	}

	r = startPTY(t, dir, false, "t", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte("wrong\r"))
	r.waitForCount(t, "Enter password for ", 2) // asked again (TestPromptKeys)
	r.master.Write([]byte{0x04})
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("wrong prompted password: exit %d, want %d\n%s", code, ExitPassword, r.output())
	}

	// A password given on the command line is not asked for again.
	r = startPTY(t, dir, false, "t", "-ptopsecret", arc)
	if code := r.wait(t); code != ExitOK || strings.Contains(r.output(), "Enter password") {
		t.Fatalf("-p on a terminal: exit %d\n%s", code, r.output())
	}

	// An unencrypted archive never prompts.
	plain := makeArchive(t, dir, "plain.7z")
	r = startPTY(t, dir, false, "t", plain)
	if code := r.wait(t); code != ExitOK || strings.Contains(r.output(), "Enter password") {
		t.Fatalf("plain archive on a terminal: exit %d\n%s", code, r.output())
	}
}

func TestInterruptAtPrompt(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "hdr.7z", "-ptopsecret", "-mhe=on")
	r := startPTY(t, dir, false, "l", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte{0x03}) // Ctrl-C: the terminal sends SIGINT
	if code := r.wait(t); code != ExitInterrupted {
		t.Fatalf("Ctrl-C at the prompt: exit %d, want %d\n%q", code, ExitInterrupted, r.output())
	}
}

func TestProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/data.txt": strings.Repeat("progress ", 100000)})
	arc := makeArchive(t, dir, "p.7z")
	plain := garc(t, dir, "", "t", arc)
	plain.expect(t, ExitOK, "t without a terminal")
	if strings.Contains(plain.stderr, "%") || strings.Contains(plain.stderr, "\r") {
		t.Errorf("progress drawn although stderr is not a terminal: %q", plain.stderr)
	}

	r := startPTY(t, dir, true, "t", arc)
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("t on a terminal: exit %d\n%s", code, r.output())
	}
	if !strings.Contains(r.output(), "%") {
		t.Errorf("no progress bar on the terminal: %q", r.output())
	}
	if r.stdout.String() != plain.stdout {
		t.Errorf("stdout differs with the progress bar:\n%q\n%q", r.stdout.String(), plain.stdout)
	}

	for _, off := range [][]string{{"-q"}, {"--progress=never"}, {"-bd"}} {
		r := startPTY(t, dir, true, append([]string{"t"}, append(off, arc)...)...)
		if code := r.wait(t); code != ExitOK {
			t.Fatalf("%v: exit %d", off, code)
		}
		if strings.Contains(r.output(), "%") {
			t.Errorf("%v: progress drawn: %q", off, r.output())
		}
	}

	forced := garc(t, dir, "", "t", "--progress=always", arc)
	forced.expect(t, ExitOK, "--progress=always")
	if !strings.Contains(forced.stderr, "%") || forced.stdout != plain.stdout {
		t.Errorf("--progress=always: stderr %q stdout %q", forced.stderr, forced.stdout)
	}
}

func TestOverwriteQuestion(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "s.7z")
	garc(t, dir, "", "x", arc, "-o", "out").expect(t, ExitOK, "first x")
	target := dir + "/out/src/a.txt"
	edit := func() { os.WriteFile(target, []byte("local edit"), 0o644) }
	content := func() string { b, _ := os.ReadFile(target); return string(b) }

	// "n" keeps the file.
	edit()
	r := startPTY(t, dir, false, "x", arc, "-o", "out", "src/a.txt")
	r.waitFor(t, "a.txt exists\r\n")
	r.waitFor(t, "[q]uit: ")
	r.master.Write([]byte("n\r"))
	if code := r.wait(t); code != ExitOK && code != ExitWarning {
		t.Fatalf(`"n": exit %d\n%s`, code, r.output())
	}
	if content() != "local edit" {
		t.Error(`"n" overwrote the file`)
	}

	// "A" at the first question replaces everything without asking again.
	edit()
	r = startPTY(t, dir, false, "x", arc, "-o", "out")
	r.waitFor(t, "[q]uit: ")
	r.master.Write([]byte("A\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf(`"A": exit %d\n%s`, code, r.output())
	}
	if content() != sampleFiles["src/a.txt"] {
		t.Error(`"A" did not overwrite`)
	}
	if n := strings.Count(r.output(), "Overwrite?"); n != 1 {
		t.Errorf(`"A" did not stop the questions (%d asked):\n%s`, n, r.output())
	}

	// "y" replaces it.
	r = startPTY(t, dir, false, "x", arc, "-o", "out", "src/a.txt")
	r.waitFor(t, "a.txt exists\r\n")
	r.waitFor(t, "[q]uit: ")
	r.master.Write([]byte("y\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf(`"y": exit %d\n%s`, code, r.output())
	}
	if content() != sampleFiles["src/a.txt"] {
		t.Error(`"y" did not overwrite`)
	}

	// "q" and Ctrl-C end the run with 255 and leave no temporary files.
	for _, key := range []string{"q\r", "\x03", "SIGTERM"} {
		edit()
		r = startPTY(t, dir, false, "x", arc, "-o", "out", "src/a.txt")
		r.waitFor(t, "a.txt exists\r\n")
		r.waitFor(t, "[q]uit: ")
		if key == "SIGTERM" {
			r.cmd.Process.Signal(syscall.SIGTERM)
		} else {
			r.master.Write([]byte(key))
		}
		if code := r.wait(t); code != ExitInterrupted {
			t.Fatalf("%q at the question: exit %d, want %d\n%s", key, code, ExitInterrupted, r.output())
		}
		if content() != "local edit" {
			t.Errorf("%q: file replaced", key)
		}
		var stray []string
		filepath.WalkDir(dir+"/out", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir+"/out", p)
				if _, ok := sampleFiles[filepath.ToSlash(rel)]; !ok {
					stray = append(stray, rel)
				}
			}
			return nil
		})
		if len(stray) > 0 {
			t.Errorf("%q: files left behind: %v", key, stray)
		}
	}
}

// waitForCount waits until the terminal has shown s n times.
func (r *ptyRun) waitForCount(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(r.output(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %q %d times; it shows:\n%q", s, n, r.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPromptKeys checks the keys at the reading prompt: Ctrl-D gives up
// (exit 11 at once, as 7zz does), Ctrl-C is an interruption, an empty
// password is refused, and a wrong one is asked for again, as unrar does.
func TestPromptKeys(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "hdr.7z", "-ptopsecret", "-mhe=on")

	r := startPTY(t, dir, false, "t", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte{0x04}) // Ctrl-D on an empty line: end of input
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("Ctrl-D at the prompt: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}

	r = startPTY(t, dir, false, "t", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte{0x03})
	if code := r.wait(t); code != ExitInterrupted {
		t.Fatalf("Ctrl-C at the prompt: exit %d, want %d\n%q", code, ExitInterrupted, r.output())
	}
	if out := r.output(); strings.Contains(out, "wrong password") || !strings.Contains(out, "interrupted") {
		t.Errorf("Ctrl-C at the prompt reported as %q", out)
	}

	// Empty, then wrong, then right.
	r = startPTY(t, dir, false, "t", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte("\r"))
	r.waitForCount(t, "Enter password for ", 2)
	r.master.Write([]byte("wrong\r"))
	r.waitForCount(t, "Enter password for ", 3)
	r.master.Write([]byte("topsecret\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("empty, wrong, right: exit %d\n%q", code, r.output())
	}
	for _, want := range []string{"empty password", "wrong password", "Everything is Ok"} {
		if !strings.Contains(r.output(), want) {
			t.Errorf("empty, wrong, right: the terminal lacks %q:\n%q", want, r.output())
		}
	}

	// Three wrong passwords: exit 11.
	r = startPTY(t, dir, false, "l", arc)
	for i := 1; i <= 3; i++ {
		r.waitForCount(t, "Enter password for ", i)
		r.master.Write([]byte("wrong\r"))
	}
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("three wrong passwords: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}
	if n := strings.Count(r.output(), "Enter password for "); n != 3 {
		t.Errorf("asked %d times, want 3:\n%q", n, r.output())
	}
}

// TestCreatePasswordPrompt checks garc a -p's two prompts: a mismatch or
// an empty password asks again, three failures exit 11, and no archive is
// ever written without the password.
func TestCreatePasswordPrompt(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, sampleFiles)

	// Enter twice (three times over): refused, no archive.
	r := startPTY(t, dir, false, "a", "-p", "empty.7z", "src")
	for i := 1; i <= 3; i++ {
		r.waitForCount(t, "Enter password for the new archive: ", i)
		r.master.Write([]byte("\r"))
	}
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("empty passwords: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}
	if _, err := os.Stat(filepath.Join(dir, "empty.7z")); err == nil {
		t.Fatal("an archive was created without a password")
	}

	// Three mismatches: exit 11, no archive.
	r = startPTY(t, dir, false, "a", "-p", "mismatch.7z", "src")
	for i := 1; i <= 3; i++ {
		r.waitForCount(t, "Enter password for the new archive: ", i)
		r.master.Write([]byte("one\r"))
		r.waitForCount(t, "Verify password: ", i)
		r.master.Write([]byte("two\r"))
	}
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("mismatches: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}
	if _, err := os.Stat(filepath.Join(dir, "mismatch.7z")); err == nil {
		t.Fatal("an archive was created after mismatched passwords")
	}
	if !strings.Contains(r.output(), "do not match") {
		t.Errorf("mismatch not explained:\n%q", r.output())
	}

	// A mismatch, then a match: the archive is encrypted with it.
	r = startPTY(t, dir, false, "a", "-p", "ok.7z", "src")
	r.waitFor(t, "Enter password for the new archive: ")
	r.master.Write([]byte("one\r"))
	r.waitFor(t, "Verify password: ")
	r.master.Write([]byte("two\r"))
	r.waitForCount(t, "Enter password for the new archive: ", 2)
	r.master.Write([]byte("good\r"))
	r.waitForCount(t, "Verify password: ", 2)
	r.master.Write([]byte("good\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("mismatch then match: exit %d\n%q", code, r.output())
	}
	garc(t, dir, "", "t", "ok.7z").expect(t, ExitPassword, "t ok.7z without the password")
	garc(t, dir, "", "t", "-pgood", "ok.7z").expect(t, ExitOK, "t ok.7z with the password")

	// Ctrl-D at the first prompt: exit 11 at once.
	r = startPTY(t, dir, false, "a", "-p", "eof.7z", "src")
	r.waitFor(t, "Enter password for the new archive: ")
	r.master.Write([]byte{0x04})
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("Ctrl-D: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}
}

// TestProgressFitsTerminal runs t and x with the progress display on
// terminals of several widths, with TERM=dumb and without a UTF-8 locale.
func TestProgressFitsTerminal(t *testing.T) {
	dir := t.TempDir()
	deep := "src/" + strings.Repeat("a-rather-long-directory-name/", 4) + "data.txt"
	writeTree(t, dir, map[string]string{deep: strings.Repeat("progress ", 200000)})
	arc := makeArchive(t, dir, "p.7z")
	for _, tc := range []struct {
		cols int
		env  []string
	}{
		{40, nil}, {64, nil}, {200, nil},
		{40, []string{"TERM=dumb"}},
		{64, []string{"LANG=C"}},
		{64, []string{"LC_ALL=POSIX", "LANG=en_US.UTF-8"}},
	} {
		for _, args := range [][]string{{"t", arc}, {"x", "-y", arc, "-o", "out"}} {
			r := startPTYWith(t, dir, false, tc.cols, tc.env, args...)
			if code := r.wait(t); code != ExitOK {
				t.Fatalf("%v %v: exit %d\n%q", tc, args, code, r.output())
			}
			out := r.output()
			what := fmt.Sprintf("%d columns %v %s", tc.cols, tc.env, args[0])
			if !strings.Contains(out, "%") {
				t.Errorf("%s: no progress drawn: %q", what, out)
			}
			for _, seg := range strings.FieldsFunc(out, func(r rune) bool { return r == '\r' || r == '\n' }) {
				seg = strings.TrimRight(strings.ReplaceAll(seg, "\x1b[K", ""), " ")
				if !strings.Contains(seg, "%") {
					continue // a message, not the display
				}
				if n := len([]rune(seg)); n >= tc.cols {
					t.Errorf("%s: a line of %d columns: %q", what, n, seg)
				}
			}
			dumb := len(tc.env) > 0 && tc.env[0] == "TERM=dumb"
			if dumb && strings.Contains(out, "\x1b") {
				t.Errorf("%s: escape sequences with TERM=dumb: %q", what, out)
			}
			ascii := len(tc.env) > 0 && strings.HasPrefix(tc.env[0], "L")
			if ascii && strings.IndexFunc(out, func(r rune) bool { return r >= 0x80 }) >= 0 {
				t.Errorf("%s: non-ASCII output in a non-UTF-8 locale: %q", what, out)
			}
			if !ascii && !strings.Contains(out, "░") {
				t.Errorf("%s: no UTF-8 bar in a UTF-8 locale: %q", what, out)
			}
			// The display is cleared before the summary.
			if args[0] == "t" {
				end := strings.Index(out, "Everything is Ok")
				last := strings.LastIndex(out[:end], "%")
				clearSeq := "\r\x1b[K"
				if dumb {
					clearSeq = "   \r"
				}
				if end < 0 || last < 0 || !strings.Contains(out[last:end], clearSeq) {
					t.Errorf("%s: the display is not cleared before the summary: %q", what, out)
				}
			}
		}
	}
}

// TestWrongPasswordWhileExtracting checks that a wrong password typed at
// the prompt for an archive whose names are not encrypted, found only
// while decoding, is asked for again after the run is rolled back
// (issue 12.11), and that three wrong ones end with exit 11 and nothing
// left behind.
func TestWrongPasswordWhileExtracting(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "data.7z", "-ptopsecret")

	r := startPTY(t, dir, false, "x", "-oout", arc)
	r.waitFor(t, "Enter password for ")
	r.master.Write([]byte("wrong\r"))
	r.waitForCount(t, "Enter password for ", 2)
	r.master.Write([]byte("topsecret\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("wrong, then right: exit %d\n%q", code, r.output())
	}
	if out := r.output(); !strings.Contains(out, "wrong password") || strings.Contains(out, "checksum") {
		t.Errorf("wrong, then right: the terminal shows %q", out)
	}
	got := readTree(t, filepath.Join(dir, "out"))
	for name, content := range sampleFiles {
		if got[name] != content {
			t.Errorf("%s not extracted after the retry", name)
		}
	}

	r = startPTY(t, dir, false, "x", "-oout2", arc)
	for i := 1; i <= prompt.Tries; i++ {
		r.waitForCount(t, "Enter password for ", i)
		r.master.Write([]byte("wrong\r"))
	}
	if code := r.wait(t); code != ExitPassword {
		t.Fatalf("three wrong passwords: exit %d, want %d\n%q", code, ExitPassword, r.output())
	}
	if _, err := os.Stat(filepath.Join(dir, "out2")); !os.IsNotExist(err) {
		t.Errorf("three wrong passwords left the destination: %v", err)
	}
}
