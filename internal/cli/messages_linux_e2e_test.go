//go:build linux

package cli

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesNameWhatTheUserKnows (issue 23, point 19): a full disk
// names the file being extracted, not ".garc-5188413f.tmp"; a missing
// archive or password file is "NAME: no such file", not Go's "stat
// NAME: …" or a password file without its name; x -so into /dev/full
// cannot write its output: exit 9, not 2.
func TestMessagesNameWhatTheUserKnows(t *testing.T) {
	dir := t.TempDir()
	random := make([]byte, 256<<10)
	rand.Read(random)
	writeTree(t, dir, map[string]string{"big.bin": string(random)})
	sevenZip(t, dir, "a", "-bd", "-mx0", "a.7z", "big.bin")

	devFull, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer devFull.Close()
	cmd := exec.Command(garcBin, "x", "-so", "a.7z")
	var stderr strings.Builder
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, devFull, &stderr
	err = cmd.Run()
	if ee, _ := err.(*exec.ExitError); ee == nil || ee.ExitCode() != ExitCreate {
		t.Errorf("x -so > /dev/full: %v, want exit %d", err, ExitCreate)
	}
	if got := stderr.String(); got != "garc: a.7z: cannot write to standard output: no space left on device\n" {
		t.Errorf("x -so > /dev/full: stderr %q", got)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"x", "nonexist.7z"}, ExitFatal, "garc: nonexist.7z: no such file\n"},
		{[]string{"l", "nonexist.7z"}, ExitFatal, "garc: nonexist.7z: no such file\n"},
		{[]string{"t", "nonexist.7z"}, ExitFatal, "Testing archive: nonexist.7z\ngarc: nonexist.7z: no such file\n"},
		{[]string{"t", "--password-file", "/nonexistent", "a.7z"}, ExitFatal, "garc: --password-file /nonexistent: no such file\n"},
	} {
		r := garc(t, dir, "", append(c.args, "-bd")...)
		r.expect(t, c.code, strings.Join(c.args, " "))
		if r.stderr != c.want {
			t.Errorf("%q: stderr %q, want %q", c.args, r.stderr, c.want)
		}
	}

	mnt := smallFS(t, dir)
	r := garc(t, dir, "", "x", "a.7z", "-o", filepath.Join(mnt, "out"), "-y", "-bd")
	r.expect(t, ExitCreate, "x into a full disk")
	want := "garc: a.7z: big.bin: cannot create output: " + filepath.Join(mnt, "out", "big.bin") + ": no space left on device\n"
	if !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, ".garc-") {
		t.Errorf("x into a full disk: stderr %q, want it to start with %q", r.stderr, want)
	}
	if tmps := temporaries(mnt); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
