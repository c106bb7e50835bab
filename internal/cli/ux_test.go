package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"
)

// testRoot returns the command tree of a run.
func testRoot() *cobra.Command {
	a := &app{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	return a.rootCommand()
}

// TestCommandsOf checks what argv.Normalize is told of the commands:
// exactly the long flags that take a value (otherwise "--output DIR"
// would leave DIR as a positional argument, or "--yes x" swallow the
// command), and every command name and alias.
func TestCommandsOf(t *testing.T) {
	c := commandsOf(testRoot())
	for _, name := range []string{"output", "password", "password-file", "threads", "level", "method-param", "include", "format", "stdin-name"} {
		if !c.ValueFlags[name] {
			t.Errorf("--%s takes a value but is not among ValueFlags", name)
		}
	}
	for _, name := range []string{"yes", "quiet", "recursive", "stdout", "flat", "encrypt-headers", "rows"} {
		if c.ValueFlags[name] {
			t.Errorf("--%s takes no value but is among ValueFlags", name)
		}
	}
	for _, w := range []string{"x", "extract", "e", "l", "list", "t", "test", "a", "add", "d", "delete", "lb", "help", "completion"} {
		if !c.Words[w] {
			t.Errorf("command %q is not among Words", w)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"x", "", 1}, {"extrct", "extract", 1}, {"lst", "list", 1}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
