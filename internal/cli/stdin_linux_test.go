//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdinPasswordFromTerminal pipes an encrypted 7z into garc, whose
// controlling terminal is a pseudo-terminal: the password is asked for
// and read there (/dev/tty), never from the piped data.
func TestStdinPasswordFromTerminal(t *testing.T) {
	dir := t.TempDir()
	arc := makeArchive(t, dir, "hdr.7z", "-ptopsecret", "-mhe=on")
	data, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(garcBin, "x", "-", "-o", "out")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC", "TERM=dumb")
	cmd.Stdin = bytes.NewReader(data) // a pipe
	cmd.Stdout, cmd.Stderr = slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ptyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go r.collect()
	t.Cleanup(func() { cmd.Process.Kill() })
	r.waitFor(t, "Enter password for -")
	master.Write([]byte("topsecret\r"))
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, r.output())
	}
	if got := readTree(t, filepath.Join(dir, "out")); got["src/a.txt"] != sampleFiles["src/a.txt"] {
		t.Errorf("extracted %s", keys(got))
	}
}

// TestStdinInterruptWhileCopying interrupts garc while it copies a 7z
// from a pipe that has not ended (the writer stalls): it exits 255 and
// leaves nothing in the destination, the copy having had no name there
// from the start.
func TestStdinInterruptWhileCopying(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 256<<10)
	rand.Read(noise)
	writeTree(t, dir, map[string]string{"src/noise.bin": string(noise)})
	arc := makeArchive(t, dir, "a.7z")
	data, _ := os.ReadFile(arc)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	cmd, w, stderr := startPiped(t, dir, nil, "x", "-", "-o", "out")
	w.Write(data[:len(data)/2]) // the rest never comes
	// Wait until the copy exists (as an open file without a name).
	// The deadline only stops a hung test; it is not a timing assertion.
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if copying(fds) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("garc never made its copy of the archive")
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 0 {
		t.Errorf("the copy has a name in the destination: %v", ents)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	w.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, ExitInterrupted, stderr.String())
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 0 {
		t.Errorf("left %v in the destination", ents)
	}
}

// startPiped starts garc in dir with args, env added to its environment
// and a pipe as its standard input, which the test writes in parts; the
// process is killed when the test ends, if still running.
func startPiped(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(garcBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, w, stderr
}

// copying reports whether the process whose descriptors are listed in
// fds has a deleted garc temporary file open.
func copying(fds string) bool {
	ents, _ := os.ReadDir(fds)
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(fds, e.Name()))
		if err == nil && strings.Contains(target, "/.garc-") && strings.HasSuffix(target, "(deleted)") {
			return true
		}
	}
	return false
}

// TestStdinTerminal: '-' with a terminal as standard input is a usage
// error, as tar refuses to read an archive from a terminal; nothing waits
// for input.
func TestStdinTerminal(t *testing.T) {
	r := startPTY(t, t.TempDir(), false, "x", "-")
	if code := r.wait(t); code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, r.output())
	}
	if !strings.Contains(r.output(), "standard input is a terminal") {
		t.Errorf("the refusal does not say why:\n%s", r.output())
	}
}
