package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/garc-dev/garc/internal/extract"
)

// TestUserText: diagnostics name the file a system error is about, in the
// user's terms, without Go's operation; a missing file is "no such file"
// (issue 23, point 19).
func TestUserText(t *testing.T) {
	missing := &fs.PathError{Op: "stat", Path: "nonexist.7z", Err: syscall.ENOENT}
	full := &fs.PathError{Op: "write", Path: "/out/big.bin", Err: syscall.ENOSPC}
	for _, c := range []struct {
		err  error
		want string
	}{
		{missing, "nonexist.7z: no such file"},
		{&fs.PathError{Op: "open", Path: "pw.txt", Err: syscall.ENOENT}, "pw.txt: no such file"},
		{fmt.Errorf("--password-file %w", &fs.PathError{Op: "open", Path: "/nonexistent", Err: syscall.ENOENT}),
			"--password-file /nonexistent: no such file"},
		{fmt.Errorf("big.bin: %w: %w", extract.ErrCreate, full),
			"big.bin: cannot create output: /out/big.bin: no space left on device"},
		{&fs.PathError{Op: "mkdir", Path: "d/e", Err: syscall.ENOENT}, "d/e: no such file or directory"},
		{&fs.PathError{Op: "open", Path: "f", Err: syscall.EACCES}, "f: permission denied"},
		{errors.Join(missing, full), "nonexist.7z: no such file\n/out/big.bin: no space left on device"},
		{errors.New("plain"), "plain"},
		{stdoutErr(&fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}),
			"cannot write to standard output: no space left on device"},
	} {
		if got := userText(c.err); got != c.want {
			t.Errorf("userText(%q) = %q, want %q", c.err, got, c.want)
		}
	}
	if code := exitCodeFor(stdoutErr(syscall.ENOSPC)); code != ExitCreate {
		t.Errorf("a failed write to standard output: exit %d, want %d", code, ExitCreate)
	}
}

// TestRepeats: a line printed is not printed again; an entry's error
// with the cause of an earlier entry's line is counted, per cause; a
// warning is not grouped.
func TestRepeats(t *testing.T) {
	var r repeats
	r.add("a.7z: f1: checksum mismatch", "f1", true)
	r.add("a.7z: x: refused: link target leaves the destination", "x", false)
	r.add("a.7z: g1: unsupported method", "g1", true)
	for _, c := range []struct {
		line, entry string
		counted     bool
	}{
		{"a.7z: f2: checksum mismatch", "f2", true},
		{"a.7z: f3: checksum mismatch", "f3", true},
		{"a.7z: g2: unsupported method", "g2", true},
		{"a.7z: h: corrupt data at offset 9", "h", false},
		{"a.7z: y: refused: link target leaves the destination", "y", false},
	} {
		if got := r.counted(c.line, c.entry); got != c.counted {
			t.Errorf("counted(%q) = %v, want %v", c.line, got, c.counted)
		}
	}
	if !r.lines["a.7z: f1: checksum mismatch"] || r.lines["a.7z: f2: checksum mismatch"] {
		t.Error("lines holds what was not printed, or not what was")
	}
	want := []string{
		"a.7z: and 2 more files with the same error as f1",
		"a.7z: and 1 more file with the same error as g1",
	}
	if got := r.summary("a.7z"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary %q, want %q", got, want)
	}
}
