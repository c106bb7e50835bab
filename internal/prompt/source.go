package prompt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
)

// ErrSeveralSources reports a command line naming more than one password
// source; the command line calls it a usage error.
var ErrSeveralSources = errors.New("use only one of --password, --password-file and --password-stdin")

// Flags says where the command line asks the password to come from.
type Flags struct {
	Password    string // --password / -pSECRET
	PasswordSet bool   // Password was given (it may be empty)
	File        string // --password-file
	Stdin       bool   // --password-stdin
	Ask         bool   // -p alone: prompt on the terminal
	// NewArchive is set for `garc a`, whose -p alone asks for the new
	// archive's password twice before anything is read or written.
	NewArchive bool
}

// Source supplies the password from, in order of preference, --password,
// --password-file, --password-stdin, or an interactive prompt on the
// terminal. The prompt is shown only when an archive asks for a password
// (archive.Options.Password is called lazily) and only when stdin is a
// terminal; a wrong password typed there may be asked for again.
type Source struct {
	Term  *Terminal
	Stdin *bufio.Reader // shared with the overwrite questions

	value      string
	have       bool
	prompted   bool // value was typed at the prompt
	wrongTries int  // wrong passwords typed so far
}

// Value returns the password when one is known.
func (s *Source) Value() (string, bool) { return s.value, s.have }

// firstLine returns the first line of r without its line ending; an empty
// one is refused as a wrong password would be (exit 11).
func firstLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("the password is empty: %w", archive.ErrPasswordRequired)
	}
	return line, nil
}

// Resolve reads the password from the flag, file or stdin that f names,
// and for a new archive with -p alone asks for it on the terminal.
func (s *Source) Resolve(f Flags) error {
	n := 0
	for _, set := range []bool{f.PasswordSet, f.File != "", f.Stdin} {
		if set {
			n++
		}
	}
	if n > 1 {
		return ErrSeveralSources
	}
	switch {
	case f.PasswordSet:
		s.value, s.have = f.Password, true
	case f.File != "":
		file, err := os.Open(f.File)
		if err != nil {
			var pe *fs.PathError
			if !strings.ContainsAny(f.File, `/\`) && errors.As(err, &pe) {
				// A bare word may be the password typed in the file
				// name's place: the message does not repeat it.
				return fmt.Errorf("--password-file (a name without a directory, not repeated: it may be a password): %w", pe.Err)
			}
			// "--password-file open NAME: no such file or directory",
			// which garc shows as "--password-file NAME: no such file".
			return fmt.Errorf("--password-file %w", err)
		}
		defer file.Close()
		v, err := firstLine(bufio.NewReader(file))
		if err != nil {
			return fmt.Errorf("--password-file %s: %w", f.File, err)
		}
		s.value, s.have = v, true
	case f.Stdin:
		v, err := firstLine(s.Stdin)
		if err != nil {
			return fmt.Errorf("--password-stdin: %w", err)
		}
		s.value, s.have = v, true
	}
	if f.Ask && f.NewArchive && !s.have {
		v, err := s.Term.NewPassword()
		if err != nil {
			return err
		}
		s.value, s.have = v, true
	}
	return nil
}

// ForArchive returns the archive.PasswordFunc for one archive: the known
// password, or one typed at the prompt.
func (s *Source) ForArchive(name string) archive.PasswordFunc {
	return func() (string, error) {
		if s.have {
			return s.value, nil
		}
		v, err := s.Term.Password(fmt.Sprintf("Enter password for %s: ", printable.String(name)))
		if err != nil {
			return "", err
		}
		s.value, s.have, s.prompted = v, true, true
		return v, nil
	}
}

// Retryable reports whether err is a wrong password typed at the prompt
// that may be asked for again (as unrar does).
func (s *Source) Retryable(err error) bool {
	return s.prompted && errors.Is(err, archive.ErrWrongPassword) && s.wrongTries+1 < Tries
}

// Retry reports whether err, from opening an archive or extracting it, is
// retryable; if so it forgets the password so that the next open prompts.
func (s *Source) Retry(err error) bool {
	if !s.Retryable(err) {
		return false
	}
	s.wrongTries++
	s.value, s.have, s.prompted = "", false, false
	if s.Term.Clear != nil {
		s.Term.Clear()
	}
	fmt.Fprintln(s.Term.Out, "garc: wrong password")
	return true
}
