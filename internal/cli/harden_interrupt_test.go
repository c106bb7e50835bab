//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/tempname"
)

// writeMixedData writes size bytes of deterministic data that compresses
// like real files do: runs of words from a small vocabulary (text) mixed
// with runs of random bytes (already compressed data).
func writeMixedData(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog archive entry header folder block stream " +
		"func return error nil if else for range package import struct interface byte string int64 uint32")
	noise := make([]byte, 4096)
	for n := 0; n < size; {
		if rng.IntN(8) == 0 {
			for i := range noise {
				noise[i] = byte(rng.Uint32())
			}
			k, _ := w.Write(noise)
			n += k
			continue
		}
		for i := 0; i < 512; i++ {
			k, _ := w.WriteString(words[rng.IntN(len(words))])
			sep := byte(' ')
			if rng.IntN(12) == 0 {
				sep = '\n'
			}
			w.WriteByte(sep)
			n += k + 1
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// temporaries lists the .garc-*.tmp files under dir.
func temporaries(dir string) []string {
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && tempname.Is(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// interruptRun starts garc with args in dir, waits until a temporary
// file exists under watch (or a second has passed) and a further settle
// time, sends sig, and returns the exit code, stderr and the time from
// the signal to the end of the process. The process gets 10 s to end.
func interruptRun(t *testing.T, dir, watch string, sig syscall.Signal, settle time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(garcBin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); len(temporaries(watch)) == 0 && time.Since(start) < time.Second; {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(settle)
	sent := time.Now()
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("garc %q still running 10 s after %v", args, sig)
	}
	latency := time.Since(sent)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), latency
}

// TestInterruptCreate interrupts `garc a -mx5` updating an archive with
// 100 MB of data, with each of SIGINT, SIGTERM and SIGHUP about a second
// in: garc exits 255 saying "interrupted", leaves no temporary file and
// the previous archive byte-identical.
func TestInterruptCreate(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"f.txt": "small"})
	garc(t, dir, "", "a", "out.7z", "f.txt").expect(t, ExitOK, "garc a")
	before, err := os.ReadFile(filepath.Join(dir, "out.7z"))
	if err != nil {
		t.Fatal(err)
	}
	writeMixedData(t, filepath.Join(dir, "big.bin"), 100<<20)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		code, stderr, latency := interruptRun(t, dir, dir, sig, time.Second, "a", "-mx5", "out.7z", "big.bin")
		t.Logf("garc a -mx5, %v: exit %d %v after the signal", sig, code, latency.Round(time.Millisecond))
		if code != ExitInterrupted || stderr != "garc: interrupted\n" {
			t.Errorf("%v: exit %d, stderr %q; want %d and one \"interrupted\"", sig, code, stderr, ExitInterrupted)
		}
		if tmp := temporaries(dir); len(tmp) > 0 {
			t.Errorf("%v: temporary files left: %q", sig, tmp)
			for _, p := range tmp {
				os.Remove(p)
			}
		}
		if after, err := os.ReadFile(filepath.Join(dir, "out.7z")); err != nil || !bytes.Equal(before, after) {
			t.Errorf("%v: the previous archive changed (%v)", sig, err)
		}
	}
}

// TestInterruptExtract interrupts `garc x` of a large entry with SIGHUP
// (and SIGINT, SIGTERM): exit 255, "interrupted", no temporary file left
// in the destination.
func TestInterruptExtract(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	dir := t.TempDir()
	writeMixedData(t, filepath.Join(dir, "big.bin"), 100<<20)
	sevenZip(t, dir, "a", "-bd", "-mx1", "big.7z", "big.bin")
	os.Remove(filepath.Join(dir, "big.bin"))
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "out-"+sig.String())
		os.Mkdir(out, 0o755)
		code, stderr, latency := interruptRun(t, dir, out, sig, 0, "x", "big.7z", "-o", out)
		t.Logf("garc x, %v: exit %d %v after the signal", sig, code, latency.Round(time.Millisecond))
		if code == ExitOK {
			t.Logf("%v: garc finished before the signal", sig)
			continue
		}
		if code != ExitInterrupted || stderr != "garc: interrupted\n" {
			t.Errorf("%v: exit %d, stderr %q; want %d and one \"interrupted\"", sig, code, stderr, ExitInterrupted)
		}
		if tmp := temporaries(out); len(tmp) > 0 {
			t.Errorf("%v: temporary files left: %q", sig, tmp)
		}
	}
}
