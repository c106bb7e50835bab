package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/garc-dev/garc/internal/argv"
)

// testRoot returns the command tree of a run.
func testRoot() *cobra.Command {
	a := &app{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	return a.rootCommand()
}

// TestValueFlagsInStep keeps internal/argv's tables in step with the commands:
// valueFlags lists exactly the long flags that take a value (otherwise
// "--output DIR" would leave DIR as a positional argument, or "--yes x"
// swallow the command), and commandWords every command name and alias.
func TestValueFlagsInStep(t *testing.T) {
	root := testRoot()
	takesValue := map[string]bool{}
	all := append([]*cobra.Command{root}, root.Commands()...)
	for _, c := range all {
		visit := func(f *pflag.Flag) {
			if f.NoOptDefVal == "" {
				takesValue[f.Name] = true
			} else if takesValue[f.Name] {
				t.Errorf("flag --%s takes a value in one command and not in another", f.Name)
			}
		}
		c.Flags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
	}
	delete(takesValue, argv.UnsupportedFlag) // only ever written by argv.Normalize with '='
	valueFlags := argv.ValueFlags()
	commandWords, commandSpellings := argv.CommandWords()
	for name := range takesValue {
		if !valueFlags[name] {
			t.Errorf("--%s takes a value but is missing from valueFlags", name)
		}
	}
	for name := range valueFlags {
		if !takesValue[name] {
			t.Errorf("valueFlags lists --%s, which no command defines as taking a value", name)
		}
	}
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		for _, n := range append([]string{c.Name()}, c.Aliases...) {
			if !commandWords[n] {
				t.Errorf("command %q is missing from commandWords", n)
			}
		}
	}
	for word, sp := range commandSpellings {
		if c, _, err := root.Find(sp); err != nil || c == root {
			t.Errorf("commandSpellings[%q] = %q names no command", word, sp)
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
