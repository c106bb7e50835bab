package cli

import (
	"errors"
	"fmt"
	"io/fs"
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
