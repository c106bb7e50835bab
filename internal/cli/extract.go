package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/opener"
)

var openArchive = opener.Open

// extractFlags are the flags of x and e.
type extractFlags struct {
	output     string
	overwrite  string
	links      string
	keepBroken bool
	flat       bool
	symlinks   string
}

func (a *app) extractCommand(name string, fullPaths bool) *cobra.Command {
	var f extractFlags
	short := "extract with full paths"
	if !fullPaths {
		short = "extract without paths (all files into one directory)"
	}
	aliases := []string{"extract"}
	if !fullPaths {
		aliases = nil
	}
	cmd := &cobra.Command{
		Use:     name + " ARCHIVE [PATTERNS...] [-o DIR]",
		Aliases: aliases,
		Short:   short,
		Long: short + `.

Positional PATTERNS select entries like --include. Without -y or
--overwrite, existing files are asked about when stdin is a terminal and
otherwise skipped with a warning (exit 1).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !fullPaths {
				f.flat = true
			}
			return a.runExtract(args[0], args[1:], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", ".", "extract into `DIR` (created if missing)")
	fl.StringVar(&f.overwrite, "overwrite", "", "existing files: ask, all, skip, rename or never (default: ask on a terminal, else never)")
	fl.StringVar(&f.links, "links", "safe", "links: safe (refuse those leaving the destination), skip, unsafe")
	fl.BoolVar(&f.keepBroken, "keep-broken", false, "keep files whose checksum failed (unrar -kb)")
	fl.StringVar(&f.symlinks, "symlinks", "", "accepted for 7-Zip's -snl; links are always extracted as links")
	fl.MarkHidden("symlinks")
	fl.BoolVar(&f.flat, "flat", false, "drop stored paths, like the e command (unrar -ep)")
	if !fullPaths {
		fl.MarkHidden("flat") // e is always flat; accepted for unrar's -ep
	}
	return cmd
}

// selection builds the selector from positional patterns and flags.
func (a *app) selection(patterns []string) (*selector, error) {
	return newSelector(append(append([]string(nil), patterns...), a.g.includes...), a.g.excludes, a.g.recursive)
}

// wanted returns the selected entries and their total size.
func wanted(r archive.Reader, sel *selector) (n int, total int64) {
	for _, e := range r.Entries() {
		if sel.want(e) {
			n++
			if e.Size > 0 && e.Type == archive.TypeFile {
				total += e.Size
			}
		}
	}
	return n, total
}

// withLinkTargets returns the selection plus the entries that selected
// hard links and RAR file copies refer to (transitively): the extractor
// makes those from files it has already written, so they must come
// along. Without patterns everything is selected anyway.
func withLinkTargets(r archive.Reader, sel *selector) func(*archive.Entry) bool {
	if !sel.filtered() {
		return sel.want
	}
	entries := r.Entries()
	set := make(map[*archive.Entry]bool)
	for _, e := range entries {
		if sel.want(e) {
			set[e] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i, e := range entries {
			if !set[e] || (e.Type != archive.TypeHardlink && e.Type != archive.TypeCopy) {
				continue
			}
			// The target is the last entry of that name before the link.
			for j := i - 1; j >= 0; j-- {
				if entries[j].Name == e.LinkTarget {
					if !set[entries[j]] {
						set[entries[j]] = true
						changed = true
					}
					break
				}
			}
		}
	}
	return func(e *archive.Entry) bool { return set[e] }
}

func (a *app) overwriteMode(f *extractFlags) (overwriteMode, error) {
	v := f.overwrite
	if a.g.yes && v == "" {
		v = "all"
	}
	switch v {
	case "":
		if _, ok := stdinTerminal(a.stdin); ok && !a.g.passwordStdin {
			return overwriteAsk, nil
		}
		return overwriteNever, nil
	case "ask":
		return overwriteAsk, nil
	case "all":
		return overwriteAll, nil
	case "skip":
		return overwriteSkip, nil
	case "rename":
		return overwriteRename, nil
	case "never":
		return overwriteNever, nil
	}
	return 0, usagef("--overwrite must be ask, all, skip, rename or never, not %q", v)
}

func linkMode(s string) (linkPolicy, error) {
	switch s {
	case "safe":
		return linksSafe, nil
	case "skip":
		return linksSkip, nil
	case "unsafe":
		return linksUnsafe, nil
	}
	return 0, usagef("--links must be safe, skip or unsafe, not %q", s)
}

// ask asks on the terminal whether to overwrite path. Ctrl-C while it
// waits ends the run (exit 255).
func (a *app) ask(path string) (overwrite, all bool, err error) {
	a.prog.clear()
	type answer struct {
		line string
		err  error
	}
	for {
		fmt.Fprintf(a.stderr, "garc: %s exists. Overwrite? [y]es, [n]o, [A]lways, [N]ever, [q]uit: ", path)
		ch := make(chan answer, 1)
		go func() {
			line, err := a.stdinB.ReadString('\n')
			ch <- answer{line, err}
		}()
		var ans answer
		select {
		case ans = <-ch:
		case <-a.ctx.Done():
			fmt.Fprintln(a.stderr)
			return false, false, errInterrupted
		}
		if ans.err != nil && ans.line == "" {
			return false, false, fmt.Errorf("%w: no answer to the overwrite question", errSkipped)
		}
		switch strings.TrimSpace(ans.line) {
		case "y", "Y", "yes":
			return true, false, nil
		case "n", "no":
			return false, false, nil
		case "A", "a", "always":
			return true, true, nil
		case "N", "never", "s":
			return false, true, nil
		case "q", "Q", "quit":
			return false, false, errInterrupted
		}
	}
}

func (a *app) runExtract(name string, patterns []string, f *extractFlags) error {
	ow, err := a.overwriteMode(f)
	if err != nil {
		return err
	}
	lm, err := linkMode(f.links)
	if err != nil {
		return err
	}
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	r, err := a.openArchive(name)
	if err != nil {
		return err
	}
	defer r.Close()
	n, total := wanted(r, sel)
	if n == 0 && sel.filtered() {
		return fmt.Errorf("%s: %w", name, errNoMatch)
	}
	x, err := newExtractor(extractOptions{
		Dest:       f.output,
		Flat:       f.flat,
		Overwrite:  ow,
		Ask:        a.ask,
		Links:      lm,
		KeepBroken: f.keepBroken,
		Warn:       func(entry string, err error) { a.warn(name, entry, err) },
	})
	if err != nil {
		return err
	}
	a.prog = newProgress(a.g.progress, a.g.quiet, a.stderr, total)
	var stop error
	err = r.Extract(a.ctx, withLinkTargets(r, sel), func(e *archive.Entry, rd io.Reader) error {
		if a.ctx.Err() != nil {
			return a.ctx.Err()
		}
		werr := x.Write(e, a.prog.entry(e.Name, rd))
		switch {
		case werr == nil:
			return nil
		case errors.Is(werr, errInterrupted), errors.Is(werr, context.Canceled):
			stop = werr
			return werr
		case errors.Is(werr, errRefused), errors.Is(werr, errSkipped):
			// The extractor has reported it through Warn (exit 1), or
			// skipped it quietly under --overwrite=skip (exit 0).
			return nil
		case errors.Is(werr, archive.ErrPasswordRequired):
			// The password function already declined; every other
			// encrypted entry would fail the same way.
			stop = werr
			return werr
		}
		a.report(name, e.Name, werr)
		return nil
	})
	if a.ctx.Err() != nil || errors.Is(err, errInterrupted) || errors.Is(stop, errInterrupted) {
		x.Abort()
		a.prog.finish()
		return errInterrupted
	}
	if stop != nil {
		x.Abort()
		a.prog.finish()
		a.report(name, "", stop)
		return &reportedError{stop}
	}
	if err != nil {
		x.Abort()
		a.prog.finish()
		return err
	}
	ferr := x.Finish()
	a.prog.finish()
	return ferr
}

func (a *app) testCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "t ARCHIVE [PATTERNS...]",
		Aliases: []string{"test"},
		Short:   "test every entry: decode it and verify its checksum",
		Long: `Test decodes every selected entry and verifies its CRC32 or BLAKE2sp.
Each failing entry is reported on stderr and testing continues with the
next one; a checksum mismatch exits 3.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTest(args[0], args[1:])
		},
	}
}

func (a *app) runTest(name string, patterns []string) error {
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	r, err := a.openArchive(name)
	if err != nil {
		return err
	}
	defer r.Close()
	n, total := wanted(r, sel)
	if n == 0 && sel.filtered() {
		return fmt.Errorf("%s: %w", name, errNoMatch)
	}
	a.prog = newProgress(a.g.progress, a.g.quiet, a.stderr, total)
	buf := make([]byte, 256<<10)
	var files, failed int
	var bytes int64
	var stop error
	err = r.Extract(a.ctx, sel.want, func(e *archive.Entry, rd io.Reader) error {
		files++
		k, cerr := io.CopyBuffer(discard, a.prog.entry(e.Name, rd), buf)
		bytes += k
		if cerr == nil {
			return nil
		}
		if errors.Is(cerr, context.Canceled) || errors.Is(cerr, errInterrupted) {
			return cerr
		}
		failed++
		if errors.Is(cerr, archive.ErrPasswordRequired) {
			stop = cerr
			return cerr
		}
		a.report(name, e.Name, cerr)
		return nil
	})
	a.prog.finish()
	if a.ctx.Err() != nil {
		return errInterrupted
	}
	if stop != nil {
		a.report(name, "", stop)
		return &reportedError{stop}
	}
	if err != nil {
		return err
	}
	if !a.g.quiet {
		if failed == 0 {
			fmt.Fprintf(a.stdout, "%s: %d entries, %d bytes: everything is ok\n", name, files, bytes)
		} else {
			fmt.Fprintf(a.stdout, "%s: %d entries, %d failed\n", name, files, failed)
		}
	}
	return nil
}

// discard hides io.Discard's ReadFrom so that io.CopyBuffer reads with
// our large buffer instead of io.Discard's small pooled one.
var discard = struct{ io.Writer }{io.Discard}
