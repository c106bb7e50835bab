package cli

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/argv"
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

// TestCommandsForHelpVersion checks that --help and --version alone do
// not make commandsFor build the whole tree (they take no value), and
// that the arguments normalize as with the whole tree's flags.
func TestCommandsForHelpVersion(t *testing.T) {
	a := &app{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	whole := commandsOf(testRoot())
	for _, tc := range []struct {
		args []string
		tree bool // the whole tree's value flags are needed
	}{
		{[]string{"--version"}, false},
		{[]string{"--help"}, false},
		{[]string{"x", "--help", "a.7z"}, false},
		{[]string{"--version", "--password", "s", "t", "a.7z"}, true},
		{[]string{"x", "--output", "d", "a.7z", "--help"}, true},
	} {
		c := a.commandsFor(tc.args)
		if got := c.ValueFlags != nil; got != tc.tree {
			t.Errorf("%q: whole tree built %v, want %v", tc.args, got, tc.tree)
		}
		if got, want := argv.Normalize(tc.args, c), argv.Normalize(tc.args, whole); !slices.Equal(got, want) {
			t.Errorf("%q: normalized to %q, with the whole tree %q", tc.args, got, want)
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
