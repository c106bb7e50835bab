package cli

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
	"github.com/garc-dev/garc/internal/prompt"
)

// passwordSource supplies the password from, in order of preference,
// --password, --password-file, --password-stdin, or an interactive prompt
// on the terminal. The prompt is only shown when the archive asks for a
// password (archive.Options.Password is called lazily) and only when
// stdin is a terminal.
type passwordSource struct {
	term     *prompt.Terminal
	stdinBuf *bufio.Reader // shared with overwrite questions
	value    string
	have     bool
	forceAsk bool // -p without a value: prompt even before it is needed (create)
	// newArchive is set for a, whose -p alone asks for the new
	// archive's password twice before anything is read or written.
	newArchive bool
	prompted   bool // value was typed at the prompt (a wrong one may be asked again)
	wrongTries int  // wrong passwords typed so far
}

// firstLine returns the first line of r without its line ending.
func firstLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		// As a wrong password: exit 11.
		return "", fmt.Errorf("the password is empty: %w", archive.ErrPasswordRequired)
	}
	return line, nil
}

// resolve reads the password from the flag, file or stdin as configured.
func (p *passwordSource) resolve(g *globalFlags) error {
	n := 0
	if g.passwordSet {
		n++
	}
	if g.passwordFile != "" {
		n++
	}
	if g.passwordStdin {
		n++
	}
	if n > 1 {
		return usagef("use only one of --password, --password-file and --password-stdin")
	}
	switch {
	case g.passwordSet:
		p.value, p.have = g.password, true
	case g.passwordFile != "":
		f, err := os.Open(g.passwordFile)
		if err != nil {
			// The name is not repeated: it may be a password given
			// to the wrong switch.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("--password-file: cannot open the file: %w", err)
		}
		defer f.Close()
		v, err := firstLine(bufio.NewReader(f))
		if err != nil {
			return fmt.Errorf("--password-file %s: %w", g.passwordFile, err)
		}
		p.value, p.have = v, true
	case g.passwordStdin:
		v, err := firstLine(p.stdinBuf)
		if err != nil {
			return fmt.Errorf("--password-stdin: %w", err)
		}
		p.value, p.have = v, true
	}
	p.forceAsk = g.askPassword
	if p.forceAsk && p.newArchive && !p.have {
		v, err := p.term.NewPassword()
		if err != nil {
			return err
		}
		p.value, p.have = v, true
	}
	return nil
}

// forArchive returns the archive.PasswordFunc for one archive.
func (p *passwordSource) forArchive(name string) archive.PasswordFunc {
	return func() (string, error) {
		if p.have {
			return p.value, nil
		}
		v, err := p.term.Password(fmt.Sprintf("Enter password for %s: ", printable.String(name)))
		if err != nil {
			return "", err
		}
		p.value, p.have, p.prompted = v, true, true
		return v, nil
	}
}

// retryable reports whether err is a wrong password typed at the prompt
// that may be asked for again (as unrar does).
func (p *passwordSource) retryable(err error) bool {
	return p.prompted && errors.Is(err, archive.ErrWrongPassword) && p.wrongTries+1 < prompt.Tries
}

// retry reports whether err, from opening an archive or extracting it,
// is retryable; if so it forgets the password so that the next open
// prompts.
func (p *passwordSource) retry(err error) bool {
	if !p.retryable(err) {
		return false
	}
	p.wrongTries++
	p.value, p.have, p.prompted = "", false, false
	if p.term.Clear != nil {
		p.term.Clear()
	}
	fmt.Fprintln(p.term.Out, "garc: wrong password")
	return true
}
