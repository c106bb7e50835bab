package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
)

// passwordSource supplies the password from, in order of preference,
// --password, --password-file, --password-stdin, or an interactive prompt
// on the terminal. The prompt is only shown when the archive asks for a
// password (archive.Options.Password is called lazily) and only when
// stdin is a terminal.
type passwordSource struct {
	ctx      context.Context
	stdin    io.Reader
	stdinBuf *bufio.Reader // shared with overwrite questions
	stderr   io.Writer
	value    string
	have     bool
	forceAsk bool // -p without a value: prompt even before it is needed (create)
	// newArchive is set for a, whose -p alone asks for the new
	// archive's password twice before anything is read or written.
	newArchive bool
	prompted   bool // value was typed at the prompt (a wrong one may be asked again)
	wrongTries int  // wrong passwords typed so far
	promptMu   sync.Mutex
	clearLine  func() // hides the progress bar before prompting
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
		v, err := p.promptNew()
		if err != nil {
			return err
		}
		p.value, p.have = v, true
	}
	return nil
}

// stdinTerminal returns the file descriptor of stdin when it is a
// terminal.
func stdinTerminal(r io.Reader) (int, bool) {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// forArchive returns the archive.PasswordFunc for one archive.
func (p *passwordSource) forArchive(name string) archive.PasswordFunc {
	return func() (string, error) {
		if p.have {
			return p.value, nil
		}
		v, err := p.prompt(fmt.Sprintf("Enter password for %s: ", printable.String(name)))
		if err != nil {
			return "", err
		}
		p.value, p.have, p.prompted = v, true, true
		return v, nil
	}
}

// passwordTries is how many times a prompt asks before giving up (exit
// 11): for an empty password, a mismatched confirmation or, when reading,
// a wrong password.
const passwordTries = 3

// prompt asks for a password until one is typed: an empty one is refused
// and asked for again, up to passwordTries times. End of input (Ctrl-D)
// gives up at once.
func (p *passwordSource) prompt(msg string) (string, error) {
	for range passwordTries {
		v, err := p.readLine(msg)
		if err != nil || v != "" {
			return v, err
		}
		fmt.Fprintln(p.stderr, "garc: empty password refused (Ctrl-D gives up)")
	}
	return "", fmt.Errorf("no password typed in %d tries: %w", passwordTries, archive.ErrPasswordRequired)
}

// promptNew asks twice for the password of a new archive, as 7-Zip does:
// an empty password or a confirmation that does not match is asked for
// again, up to passwordTries times, so that no archive is ever written
// unencrypted or with a mistyped password.
func (p *passwordSource) promptNew() (string, error) {
	for range passwordTries {
		p1, err := p.readLine("Enter password for the new archive: ")
		if err != nil {
			return "", err
		}
		if p1 == "" {
			fmt.Fprintln(p.stderr, "garc: empty password refused (Ctrl-D gives up)")
			continue
		}
		p2, err := p.readLine("Verify password: ")
		if err != nil {
			return "", err
		}
		if p1 == p2 {
			return p1, nil
		}
		fmt.Fprintln(p.stderr, "garc: the passwords do not match; type them again")
	}
	return "", fmt.Errorf("no password confirmed in %d tries: %w", passwordTries, archive.ErrPasswordRequired)
}

// retryable reports whether err is a wrong password typed at the prompt
// that may be asked for again (as unrar does).
func (p *passwordSource) retryable(err error) bool {
	return p.prompted && errors.Is(err, archive.ErrWrongPassword) && p.wrongTries+1 < passwordTries
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
	if p.clearLine != nil {
		p.clearLine()
	}
	fmt.Fprintln(p.stderr, "garc: wrong password")
	return true
}

// readLine reads one line from the terminal without echo. It fails with
// ErrPasswordRequired when stdin is not a terminal or at end of input
// (Ctrl-D), and with errInterrupted on Ctrl-C or SIGTERM.
func (p *passwordSource) readLine(msg string) (string, error) {
	p.promptMu.Lock()
	defer p.promptMu.Unlock()
	fd, ok := stdinTerminal(p.stdin)
	if !ok {
		return "", fmt.Errorf("%w (stdin is not a terminal: use -pSECRET, --password-file or --password-stdin)", archive.ErrPasswordRequired)
	}
	if p.clearLine != nil {
		p.clearLine()
	}
	fmt.Fprint(p.stderr, msg)
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readNoEcho(fd)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		fmt.Fprintln(p.stderr)
		if r.err == io.EOF {
			return "", fmt.Errorf("no password typed (end of input): %w", archive.ErrPasswordRequired)
		}
		if r.err != nil {
			return "", r.err
		}
		return string(r.b), nil
	case <-p.ctx.Done():
		term.Restore(fd, state)
		fmt.Fprintln(p.stderr)
		return "", errInterrupted
	}
}
