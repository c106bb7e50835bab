//go:build linux

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestStdinRARHalfWritten pipes a 4 MB solid RAR5 into x - and stops
// writing halfway: garc has already extracted the whole files of the
// first half, and neither the destination nor TMPDIR holds anything but
// them and the entry being written (no temporary copy of the archive,
// named or not: garc holds no deleted file open). Once the rest arrives, the tree is the one x makes of the file.
func TestStdinRARHalfWritten(t *testing.T) {
	root := testenv.CorpusRoot(t)
	arc := filepath.Join(root, "files/sharpcompress/Archives__Rar.issue1050.rar")
	data, err := os.ReadFile(arc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	garc(t, dir, "", "x", arc, "-o", "ref").expect(t, ExitOK, "x file")
	want := readTree(t, filepath.Join(dir, "ref"))
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)

	cmd, w, stderr := startPiped(t, dir, []string{"TMPDIR=" + tmp}, "x", "-", "-o", "out")
	// The first 2,000,000 bytes hold the whole of Braid/766728.tr11dtp
	// (4,034,596 bytes unpacked, its data ending at 1,013,162) and part
	// of the next entry's data.
	const whole, size = "out/Braid/766728.tr11dtp", 4034596
	if _, err := w.Write(data[:2000000]); err != nil {
		t.Fatal(err)
	}
	// The deadline only stops a hung test; it is not a timing assertion.
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if copying(fds) {
			t.Fatal("garc copies the RAR into a temporary file")
		}
		if st, err := os.Stat(filepath.Join(dir, whole)); err == nil && st.Size() == size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("garc extracted nothing from the half of the archive written\n%s", stderr.String())
		}
	}
	// The file is complete: its checksum is checked at its end, before
	// garc reads on. Nothing but entries of the archive in the
	// destination, nothing in TMPDIR.
	filepath.WalkDir(filepath.Join(dir, "out"), func(p string, d os.DirEntry, err error) error {
		if err != nil || p == filepath.Join(dir, "out") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(dir, "out"), p)
		if st, _ := d.Info(); st != nil && filepath.Dir(rel) == "Braid" && strings.HasPrefix(d.Name(), ".garc-") && st.Size() < 4867620 {
			return nil // Braid/766832.tr11dtp being written, as x of the file writes it
		}
		if _, ok := want[filepath.ToSlash(rel)]; !ok && !d.IsDir() {
			t.Errorf("half written: %s in the destination is not an entry", rel)
		}
		return nil
	})
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("half written: TMPDIR holds %v", ents)
	}
	if copying(fds) {
		t.Error("half written: garc holds a temporary copy open")
	}
	if _, err := w.Write(data[2000000:]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("x -: %v\n%s", err, stderr.String())
	}
	if got := readTree(t, filepath.Join(dir, "out")); !reflect.DeepEqual(got, want) {
		t.Errorf("x -: %v, want %v", keys(got), keys(want))
	}
}

// TestStdinRARPasswordFromTerminal pipes a RAR with encrypted headers
// (-hp) into garc, whose controlling terminal is a pseudo-terminal: the
// password is asked for and read there, never from the piped data, before
// the first entry's header can be read.
func TestStdinRARPasswordFromTerminal(t *testing.T) {
	root := testenv.CorpusRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "files/rarfile/files__rar5-hpsw.rar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	garc(t, dir, "", "x", filepath.Join(root, "files/rarfile/files__rar5-hpsw.rar"), "-ppassword", "-o", "ref").expect(t, ExitOK, "x file")
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(garcBin, "x", "-", "-o", "out")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC", "TERM=dumb")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	r := &ptyRun{cmd: cmd, master: master, done: make(chan struct{})}
	go r.collect()
	t.Cleanup(func() { cmd.Process.Kill() })
	go func() {
		io.Copy(stdin, bytes.NewReader(data))
		stdin.Close()
	}()
	r.waitFor(t, "Enter password for -")
	master.Write([]byte("password\r"))
	if code := r.wait(t); code != ExitOK {
		var ee *exec.ExitError
		errors.As(cmd.Wait(), &ee)
		t.Fatalf("exit %d\n%s", code, r.output())
	}
	want := readTree(t, filepath.Join(dir, "ref"))
	if got := readTree(t, filepath.Join(dir, "out")); !reflect.DeepEqual(got, want) || len(got) == 0 {
		t.Errorf("extracted %v, want %v", keys(got), keys(want))
	}
}
