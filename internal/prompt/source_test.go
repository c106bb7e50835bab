package prompt

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

func TestSourceResolve(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte("from file\r\nsecond line\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	cases := []struct {
		name  string
		flags Flags
		stdin string
		want  string
		err   error
	}{
		{"flag", Flags{Password: "p", PasswordSet: true}, "", "p", nil},
		{"file", Flags{File: pwFile}, "", "from file", nil},
		{"stdin", Flags{Stdin: true}, "typed\nmore", "typed", nil},
		{"empty file", Flags{File: empty}, "", "", archive.ErrPasswordRequired},
		{"empty stdin", Flags{Stdin: true}, "\n", "", archive.ErrPasswordRequired},
		{"two sources", Flags{Password: "p", PasswordSet: true, Stdin: true}, "", "", ErrSeveralSources},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Source{Stdin: bufio.NewReader(strings.NewReader(c.stdin))}
			err := s.Resolve(c.flags)
			if !errors.Is(err, c.err) || (err != nil) != (c.err != nil) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if v, ok := s.Value(); c.err == nil && (!ok || v != c.want) {
				t.Fatalf("password %q %v, want %q", v, ok, c.want)
			}
			if c.err == nil {
				if v, err := s.ForArchive("a.7z")(); err != nil || v != c.want {
					t.Fatalf("ForArchive gives %q, %v", v, err)
				}
			}
		})
	}
	// A password that was not typed at the prompt is never asked again.
	s := &Source{}
	s.Resolve(Flags{Password: "x", PasswordSet: true})
	if s.Retryable(archive.ErrWrongPassword) {
		t.Fatal("a password from the command line is retryable")
	}
}
