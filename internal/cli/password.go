package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/garc-dev/garc/internal/archive"
)

// passwordSource supplies the password from, in order of preference,
// --password, --password-file, --password-stdin, or an interactive prompt
// on the terminal. The prompt is only shown when the archive asks for a
// password (archive.Options.Password is called lazily) and only when
// stdin is a terminal.
type passwordSource struct {
	ctx       context.Context
	stdin     io.Reader
	stdinBuf  *bufio.Reader // shared with overwrite questions
	stderr    io.Writer
	value     string
	have      bool
	forceAsk  bool // -p without a value: prompt even before it is needed (create)
	promptMu  sync.Mutex
	clearLine func() // hides the progress bar before prompting
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
			return fmt.Errorf("--password-file: %w", err)
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
		v, err := p.prompt(fmt.Sprintf("Enter password for %s: ", name))
		if err != nil {
			return "", err
		}
		p.value, p.have = v, true
		return v, nil
	}
}

// prompt reads a password from the terminal without echo. It fails with
// ErrPasswordRequired when stdin is not a terminal.
func (p *passwordSource) prompt(msg string) (string, error) {
	p.promptMu.Lock()
	defer p.promptMu.Unlock()
	fd, ok := stdinTerminal(p.stdin)
	if !ok {
		return "", fmt.Errorf("%w (stdin is not a terminal: use -p, --password-file or --password-stdin)", archive.ErrPasswordRequired)
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
		b, err := term.ReadPassword(fd)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		fmt.Fprintln(p.stderr)
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
