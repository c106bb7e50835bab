package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// errStdout is the failure to write extracted data to standard output
// (x -so into a full disk or /dev/full): exit 9, as for an output file.
var errStdout = errors.New("cannot write to standard output")

// userText is err's message in the user's terms: a file error of the
// operating system names the file and the cause without Go's operation,
// and a file that is missing is "no such file" ("stat x.7z: no such file
// or directory" reads "x.7z: no such file", "write /out/f: no space left
// on device" reads "/out/f: no space left on device").
func userText(err error) string {
	msg := err.Error()
	for _, pe := range pathErrors(err, nil) {
		msg = strings.Replace(msg, pe.Error(), pe.Path+": "+osCause(pe), 1)
	}
	return msg
}

// pathErrors appends the *fs.PathError values in err's tree to dst.
func pathErrors(err error, dst []*fs.PathError) []*fs.PathError {
	switch e := err.(type) {
	case nil:
		return dst
	case *fs.PathError:
		return append(dst, e)
	case interface{ Unwrap() []error }:
		for _, w := range e.Unwrap() {
			dst = pathErrors(w, dst)
		}
		return dst
	}
	return pathErrors(errors.Unwrap(err), dst)
}

// osCause is what went wrong in pe: "no such file" for a file that was
// to be opened and is missing, else the system's wording.
func osCause(pe *fs.PathError) string {
	switch pe.Op {
	case "open", "stat", "lstat":
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return "no such file"
		}
	}
	return pe.Err.Error()
}

// stdoutErr is the error of a failed write to standard output: errStdout
// with the system's cause (its name for standard output, "/dev/stdout",
// is not what the user redirected it to).
func stdoutErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%w: %w", errStdout, err)
}
