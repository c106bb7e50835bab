package cli

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/prompt"
)

// stdinArchive prepares a run whose archive is standard input ("-",
// args[0] of a reading command): --password-stdin, which would read the
// password from the archive's bytes, is a usage error, and password
// prompts read the terminal (/dev/tty) instead of stdin.
func (a *app) stdinArchive(args []string) error {
	if len(args) == 0 || args[0] != opener.StdinName {
		return nil
	}
	if a.g.passwordStdin {
		return usagef("--password-stdin cannot be used with the archive on standard input (-): use --password-file FILE, or -p to be asked on the terminal")
	}
	if tty, err := os.Open(ttyName); err == nil {
		if _, ok := prompt.IsTerminal(tty); ok {
			a.pw.Term.In = tty
			a.tty = tty
		} else {
			tty.Close()
		}
	}
	return nil
}

// ttyName is the controlling terminal, which password prompts read when
// the archive is standard input.
const ttyName = "/dev/tty"

// openStdin opens the archive that arrives on standard input. A format
// that cannot be read as it arrives is copied to a temporary file in the
// destination's file system (a.spoolDir, else the system's temporary
// directory), removed when the run ends (opener.Stream).
func (a *app) openStdin(opts *archive.Options) (archive.Reader, error) {
	if a.stdinStream == nil {
		if _, ok := prompt.IsTerminal(a.stdin); ok {
			return nil, usagef("-: standard input is a terminal, not an archive (pipe one in: cat a.tar.zst | garc x -)")
		}
		a.stdinStream = opener.NewStream(a.stdinB, opener.StdinName, existingDir(a.spoolDir))
	}
	return a.stdinStream.Open(opts)
}

// stdinConsumed reports whether the archive on standard input was read as
// it arrived (a tar, ZIP or RAR): it cannot be read again, so a wrong
// password typed at the prompt ends the run instead of being asked again.
func (a *app) stdinConsumed() bool {
	return a.stdinStream != nil && a.stdinStream.Consumed()
}

// closeStdin removes the temporary copy of an archive read from standard
// input and closes the terminal opened for its prompts.
func (a *app) closeStdin() {
	if a.stdinStream != nil {
		a.stdinStream.Close()
	}
	if a.tty != nil {
		a.tty.Close()
	}
}

// existingDir returns dir or, when it does not exist yet (x creates it),
// its nearest ancestor that does; "" stays "" (the system's temporary
// directory). The copy of an archive read from a pipe goes there.
func existingDir(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// onePass reports whether r can be read only once (an archive read from
// standard input as it arrives): its entry list must not be read before
// Extract, which builds it, even when patterns select the entries.
func onePass(r archive.Reader) bool {
	o, ok := r.(interface{ OnePass() bool })
	return ok && o.OnePass()
}

// revise applies to the files extracted from r what the archive said
// about them only after they were written (a ZIP read from a pipe: modes
// and symbolic links from its central directory, see
// extract.Extractor.Revise). Refused and skipped links were reported by
// the extractor's Warn.
func (a *app) revise(name string, r archive.Reader, x *extract.Extractor) {
	rv, ok := r.(interface{ Revisions() []*archive.Entry })
	if !ok {
		return
	}
	for _, e := range rv.Revisions() {
		err := x.Revise(e)
		if err != nil && !errors.Is(err, extract.ErrRefused) && !errors.Is(err, extract.ErrSkipped) {
			a.report(name, e.Name, err)
		}
	}
}
