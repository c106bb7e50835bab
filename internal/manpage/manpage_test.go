package manpage

import (
	"strings"
	"testing"
)

func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{
		"--output DIR": `\-\-output DIR`,
		`a\b`:          `a\eb`,
		".hidden":      `\&.hidden`,
		"'quoted'":     `\&'quoted'`,
		"a — b é":      `a \[u2014] b \[u00E9]`,
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := roffQuote(`say "hi"`); !strings.HasPrefix(got, `"`) || strings.Count(got, `"`) != 2 {
		t.Errorf("roffQuote: %s", got)
	}
}
