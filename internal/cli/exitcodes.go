package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/archivefile"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/selection"
)

// Exit codes of the garc command. This is the only place they are
// defined; doc.go and `garc --help` document them.
const (
	ExitOK          = 0   // success
	ExitWarning     = 1   // warnings: skipped entries, refused paths or links
	ExitFatal       = 2   // fatal: corrupt input, not an archive, unsupported feature, I/O error
	ExitChecksum    = 3   // an entry's checksum did not match
	ExitUsage       = 7   // bad command line
	ExitLimit       = 8   // a memory or size limit was exceeded (--max-dict)
	ExitCreate      = 9   // an output file, directory, archive or standard output could not be written (disk full)
	ExitNoMatch     = 10  // no entry matched the patterns
	ExitPassword    = 11  // wrong or missing password
	ExitInterrupted = 255 // interrupted by SIGINT, SIGTERM or SIGHUP
)

// exitCodeTable is printed by `garc --help` and mirrored in doc.go.
const exitCodeTable = `Exit codes:
  0    success
  1    warning: entries skipped, paths or links refused
  2    fatal error: corrupt input, not an archive, unsupported feature, I/O error
  3    checksum mismatch
  7    command-line usage error
  8    memory or size limit exceeded (raise it with --max-dict)
  9    cannot write an output file, directory, archive or standard output (disk full)
  10   no files matched the patterns
  11   wrong or missing password
  255  interrupted (Ctrl-C, SIGTERM, SIGHUP)
When several problems occur the most severe wins, in the order
255, 7, 11, 8, 9, 2, 3, 10, 1.`

// severity orders exit codes for combining the outcomes of many entries.
func severity(code int) int {
	switch code {
	case ExitInterrupted:
		return 9
	case ExitUsage:
		return 8
	case ExitPassword:
		return 7
	case ExitLimit:
		return 6
	case ExitCreate:
		return 5
	case ExitFatal:
		return 4
	case ExitChecksum:
		return 3
	case ExitNoMatch:
		return 2
	case ExitWarning:
		return 1
	}
	return 0
}

// worse returns whichever of two exit codes is more severe.
func worse(a, b int) int {
	if severity(b) > severity(a) {
		return b
	}
	return a
}

// errInterrupted is the outcome of a cancelled run (exit 255).
var errInterrupted = errors.New("interrupted")

// usageError is a command-line mistake (exit 7).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCodeFor maps an error to its exit code. Password errors come first,
// so that a wrong password that also surfaces as a checksum mismatch is
// reported as a password problem.
func exitCodeFor(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue), errors.Is(err, selection.ErrListFile):
		return ExitUsage
	case errors.Is(err, archive.ErrWrongPassword), errors.Is(err, archive.ErrPasswordRequired):
		return ExitPassword
	case errors.Is(err, archive.ErrLimit):
		return ExitLimit
	case errors.Is(err, extract.ErrCreate), errors.Is(err, archivefile.ErrWrite), errors.Is(err, errStdout):
		return ExitCreate
	case errors.Is(err, extract.ErrRefused), errors.Is(err, extract.ErrSkipped):
		return ExitWarning
	case errors.Is(err, archive.ErrChecksum):
		return ExitChecksum
	case errors.Is(err, selection.ErrNoMatch):
		return ExitNoMatch
	}
	return ExitFatal
}
