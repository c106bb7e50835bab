package prompt

import (
	"context"
	"fmt"
	"io"
	"sync"

	"golang.org/x/term"

	"github.com/garc-dev/garc/internal/archive"
)

// Tries is how many times a prompt asks before giving up: for an empty
// password, a mismatched confirmation or, as the caller decides, a wrong
// password.
const Tries = 3

// Terminal asks for passwords on the terminal stdin is, writing its
// prompts to Out.
type Terminal struct {
	Ctx   context.Context // cancels a prompt (Ctrl-C, SIGTERM)
	In    io.Reader       // standard input
	Out   io.Writer       // standard error
	Clear func()          // when set, hides the progress display first
	mu    sync.Mutex
}

// IsTerminal returns the file descriptor of r when it is a terminal.
func IsTerminal(r io.Reader) (int, bool) {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// Password asks for a password until one is typed: an empty one is refused
// and asked for again, up to Tries times. End of input (Ctrl-D; Ctrl-Z
// and Enter on a Windows console)
// gives up at once.
func (p *Terminal) Password(msg string) (string, error) {
	for range Tries {
		v, err := p.readLine(msg)
		if err != nil || v != "" {
			return v, err
		}
		fmt.Fprintln(p.Out, "garc: empty password refused ("+endKey+" gives up)")
	}
	return "", fmt.Errorf("no password typed in %d tries: %w", Tries, archive.ErrPasswordRequired)
}

// NewPassword asks twice for the password of a new archive, as 7-Zip does:
// an empty password or a confirmation that does not match is asked for
// again, up to Tries times, so that no archive is ever written
// unencrypted or with a mistyped password.
func (p *Terminal) NewPassword() (string, error) {
	for range Tries {
		p1, err := p.readLine("Enter password for the new archive: ")
		if err != nil {
			return "", err
		}
		if p1 == "" {
			fmt.Fprintln(p.Out, "garc: empty password refused ("+endKey+" gives up)")
			continue
		}
		p2, err := p.readLine("Verify password: ")
		if err != nil {
			return "", err
		}
		if p1 == p2 {
			return p1, nil
		}
		fmt.Fprintln(p.Out, "garc: the passwords do not match; type them again")
	}
	return "", fmt.Errorf("no password confirmed in %d tries: %w", Tries, archive.ErrPasswordRequired)
}

// readLine reads one line from the terminal without echo. It fails with
// ErrPasswordRequired when stdin is not a terminal or at end of input
// (Ctrl-D), and with the context's error on Ctrl-C or SIGTERM.
func (p *Terminal) readLine(msg string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fd, ok := IsTerminal(p.In)
	if !ok {
		return "", fmt.Errorf("%w (stdin is not a terminal: use -pSECRET, --password-file or --password-stdin)", archive.ErrPasswordRequired)
	}
	if p.Clear != nil {
		p.Clear()
	}
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	type result struct {
		b   []byte
		err error
	}
	// The prompt is shown once echo is off, so that a password typed as
	// soon as it appears is never echoed.
	done := make(chan result, 1)
	go func() {
		b, err := readNoEcho(fd, func() { fmt.Fprint(p.Out, msg) })
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		fmt.Fprintln(p.Out)
		if r.err == io.EOF {
			return "", fmt.Errorf("no password typed (end of input): %w", archive.ErrPasswordRequired)
		}
		if r.err != nil {
			return "", r.err
		}
		return string(r.b), nil
	case <-p.Ctx.Done():
		term.Restore(fd, state)
		fmt.Fprintln(p.Out)
		return "", p.Ctx.Err()
	}
}
