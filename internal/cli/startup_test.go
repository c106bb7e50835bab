package cli

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandSpecs checks that commandSpecs names every command of the
// tree with the name and aliases the command declares, in tree order.
func TestCommandSpecs(t *testing.T) {
	var subs []*cobra.Command // sorted by name, without cobra's completion command
	for _, c := range testRoot().Commands() {
		if c.Name() != "completion" {
			subs = append(subs, c)
		}
	}
	if len(subs) != len(commandSpecs) {
		t.Fatalf("tree has %d commands, commandSpecs %d", len(subs), len(commandSpecs))
	}
	for _, spec := range commandSpecs {
		c := spec.build(&app{})
		words := append([]string{c.Name()}, c.Aliases...)
		if !slices.Equal(words, spec.words) {
			t.Errorf("command %s: spec words %q, command declares %q", c.Name(), spec.words, words)
		}
		if got := commandToBuild([]string{c.Name(), "arc"}); spec.whole != (got == nil) {
			t.Errorf("command %s: built alone %v, want %v", c.Name(), got != nil, !spec.whole)
		}
	}
	for _, nargs := range [][]string{nil, {"--help"}, {"help", "x"}, {"completion", "bash"}, {"man"}, {"extrct"}, {"--version", "x"}} {
		if commandToBuild(nargs) != nil {
			t.Errorf("%q builds one command, want the whole tree", nargs)
		}
	}
}

// TestVersionBuildsRootOnly checks that "garc --version" builds the root
// alone and prints what the whole tree prints.
func TestVersionBuildsRootOnly(t *testing.T) {
	spec := commandToBuild([]string{"--version"})
	if spec != &versionSpec {
		t.Fatalf("--version builds %v, want the root alone", spec)
	}
	if root := (&app{}).newRoot(spec); len(root.Commands()) != 0 || root.Version == "" {
		t.Errorf("--version root: %d commands, version %q; want none and the version", len(root.Commands()), root.Version)
	}
	var out, whole strings.Builder
	if code := run(context.Background(), []string{"--version"}, strings.NewReader(""), &out, io.Discard); code != 0 {
		t.Fatalf("garc --version: exit %d", code)
	}
	root := testRoot()
	root.SetArgs([]string{"--version"})
	root.SetOut(&whole)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if out.String() != whole.String() || !strings.HasPrefix(out.String(), "garc version ") {
		t.Errorf("garc --version printed %q, the whole tree %q", out.String(), whole.String())
	}
}

// TestRunBuildsItsCommand checks that a run builds only the command it
// executes: testing a small archive allocated 538 times when every
// command, its flags and cobra's completion commands were built.
func TestRunBuildsItsCommand(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "sample.7z")
	allocs := testing.AllocsPerRun(20, func() {
		if code := run(context.Background(), []string{"t", "-q", sample}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
	t.Logf("%.0f allocations", allocs)
	if allocs > 400 {
		t.Errorf("garc t of a small archive allocates %.0f times, want at most 400", allocs)
	}
}

// run is Main with an explicit context and no one-P phase.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runLimited(ctx, nil, args, stdin, stdout, stderr)
}

// TestInterruptible checks which command lines catch SIGINT, SIGTERM and
// SIGHUP: all but --version and --help alone, which have nothing to
// cancel (catching signals costs a thread and a handover per signal).
func TestInterruptible(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--version"}, false},
		{[]string{"--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"help"}, false},
		{nil, true},
		{[]string{"t", "a.7z"}, true},
		{[]string{"x", "--help"}, true},
		{[]string{"--version", "x"}, true},
		{[]string{"a.7z"}, true},
		{[]string{"x"}, true},
	} {
		if got := interruptible(tc.args); got != tc.want {
			t.Errorf("interruptible(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
