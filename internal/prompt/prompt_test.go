package prompt

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestNotATerminal checks that nothing is asked when stdin is not a
// terminal: the password is missing (exit 11 in garc) and the message
// says how to give one. The terminal cases are tested through the binary
// on a pseudo-terminal (internal/cli, pty_linux_test.go).
func TestNotATerminal(t *testing.T) {
	var out bytes.Buffer
	p := &Terminal{Ctx: context.Background(), In: strings.NewReader("secret\n"), Out: &out}
	for _, ask := range []func() (string, error){
		func() (string, error) { return p.Password("Enter password: ") },
		p.NewPassword,
	} {
		v, err := ask()
		if v != "" || !errors.Is(err, archive.ErrPasswordRequired) || !strings.Contains(err.Error(), "--password-file") {
			t.Errorf("got %q, %v", v, err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("prompted on a non-terminal: %q", out.String())
	}
	if _, ok := IsTerminal(strings.NewReader("")); ok {
		t.Error("a strings.Reader is a terminal")
	}
}
