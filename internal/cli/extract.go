package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/argv"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/progress"
	"github.com/garc-dev/garc/internal/prompt"
	"github.com/garc-dev/garc/internal/selection"
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
	stdout     bool
	strip      int    // --strip-components
	markOfWeb  string // --mark-of-web: on or off
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

ARCHIVE may be a wildcard ('*.rar', quoted so the shell leaves it alone)
when no file has that literal name: every matching archive is extracted
in name order, skipping later volumes of RAR sets and .002+ splits.
ARCHIVE '-' reads the archive from standard input: a tar (plain or
compressed) or a compressed file as it arrives, in one pass; 7z, ZIP and
RAR through a temporary copy in the destination, removed however the run
ends. The password prompt then reads the terminal; --password-stdin is
refused.
Positional PATTERNS select entries like --include. As with unrar, a last
positional argument ending in '/' (or '\') is the destination directory
when -o is not given. Without -y or --overwrite, existing files are asked
about when stdin is a terminal and otherwise skipped with a warning
(exit 1). With --stdout (-so) the selected files' contents are written,
one after the other, to standard output and nothing is created.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !fullPaths {
				f.flat = true
			}
			patterns := args[1:]
			outputSet := cmd.Flags().Changed("output")
			if f.stdout && outputSet {
				return usagef("--stdout (-so) writes to standard output; it cannot be combined with -o")
			}
			if err := checkStrip(&f); err != nil {
				return err
			}
			if n := len(patterns); n > 0 && !outputSet && !f.stdout && argv.TrailingDestination(patterns[n-1]) {
				f.output, patterns = patterns[n-1], patterns[:n-1]
			}
			return a.runExtractAll(args[0], patterns, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", ".", "extract into `DIR` (created if missing); '*' in it stands for the archive's name")
	fl.StringVar(&f.overwrite, "overwrite", "", "existing files: ask, all, skip, rename (the new file as NAME_1.EXT, -aou), rename-existing (the old one, -aot) or never (default: ask on a terminal, else never)")
	fl.StringVar(&f.links, "links", "safe", "links: safe (refuse those leaving the destination), skip, unsafe, or copy (write the target file's contents, under safe's rules)")
	fl.BoolVar(&f.keepBroken, "keep-broken", false, "keep files whose checksum failed (unrar -kb)")
	fl.StringVar(&f.symlinks, "symlinks", "", "accepted for 7-Zip's -snl; links are always extracted as links")
	fl.MarkHidden("symlinks")
	fl.BoolVar(&f.flat, "flat", false, "drop stored paths, like the e command (unrar -ep)")
	fl.BoolVar(&f.stdout, "stdout", false, "write the selected files' contents to standard output (7-Zip -so)")
	fl.StringVar(&f.markOfWeb, "mark-of-web", "on", "on Windows, give every extracted file the archive's Zone.Identifier stream (Mark of the Web) when it has one from the Internet zone (7-Zip -snz): on or off")
	if !fullPaths {
		fl.MarkHidden("flat") // e is always flat; accepted for unrar's -ep
	} else {
		fl.IntVar(&f.strip, "strip-components", 0, "remove `N` leading components from entry names, as GNU tar does: entries with N or fewer are skipped, hard link targets are stripped too, symbolic link targets are kept")
	}
	return cmd
}

// selection builds the selector from positional patterns and flags.
func (a *app) selection(patterns []string) (*selection.Selector, error) {
	return selection.New(append(append([]string(nil), patterns...), a.g.includes...), a.g.excludes, a.g.recursive)
}

// wantOf returns sel.Want, or without patterns a function that selects
// every entry without looking at its name (Want splits the name into its
// components, an allocation per entry).
func wantOf(sel *selection.Selector) func(*archive.Entry) bool {
	if !sel.Filtered() {
		return selectAll
	}
	return sel.Want
}

func selectAll(*archive.Entry) bool { return true }

// wanted returns the selected entries and their total size.
func wanted(r archive.Reader, sel *selection.Selector) (n int, total int64) {
	want := wantOf(sel)
	for _, e := range r.Entries() {
		if want(e) {
			n++
			if e.Size > 0 && e.Type == archive.TypeFile {
				total += e.Size
			}
		}
	}
	return n, total
}

// streaming reports whether r builds its entry list while Extract decodes
// (a compressed tar): asking for Entries first would decode it twice.
func streaming(r archive.Reader) bool {
	s, ok := r.(interface{ Streaming() bool })
	return ok && s.Streaming()
}

// scanError returns the error that ended the reading of r's entry list
// early (a compressed tar cut short), which Entries cannot return.
func scanError(r archive.Reader) error {
	if s, ok := r.(interface{ Err() error }); ok {
		return s.Err()
	}
	return nil
}

// picked is the selection of one archive as x, e, t and -so decode it.
type picked struct {
	want     func(*archive.Entry) bool
	total    int64 // bytes to decode, -1 when unknown
	streamed bool  // the entry list was not read first
	n        int   // entries want selected, when streamed
}

// pick checks the selection before decoding and returns what Extract is
// to select and the total size for the progress display. A streaming
// reader is not asked for its entries first, unless extracting with
// patterns (hard links bring their targets): its total is then unknown,
// and a selection that matches nothing is found by done, after Extract.
func pick(name string, r archive.Reader, sel *selection.Selector, extracting bool) (*picked, error) {
	if streaming(r) && !(extracting && sel.Filtered() && !onePass(r)) {
		p := &picked{total: -1, streamed: true}
		want := wantOf(sel)
		p.want = func(e *archive.Entry) bool {
			ok := want(e)
			if ok {
				p.n++
			}
			return ok
		}
		return p, nil
	}
	n, total := wanted(r, sel)
	if n == 0 && sel.Filtered() {
		return nil, sel.NoMatch(name, r.Entries(), extracting)
	}
	p := &picked{want: wantOf(sel), total: total}
	if extracting {
		p.want = withLinkTargets(r, sel)
	}
	return p, nil
}

// done returns err, or for a streamed archive in which the patterns
// matched nothing, the no-match error.
func (p *picked) done(name string, r archive.Reader, sel *selection.Selector, err error) error {
	if err == nil && p.streamed && p.n == 0 && sel.Filtered() {
		return sel.NoMatch(name, r.Entries(), false)
	}
	return err
}

// withLinkTargets returns the selection plus the entries that selected
// hard links and file copies are made from (archive.WithLinkTargets).
// Without patterns everything is selected anyway.
func withLinkTargets(r archive.Reader, sel *selection.Selector) func(*archive.Entry) bool {
	if !sel.Filtered() {
		return selectAll
	}
	return archive.WithLinkTargets(r.Entries(), sel.Want)
}

func (a *app) overwriteMode(f *extractFlags) (extract.OverwriteMode, error) {
	v := f.overwrite
	if a.g.yes && v == "" {
		v = "all"
	}
	switch v {
	case "":
		if _, ok := prompt.IsTerminal(a.stdin); ok && !a.g.passwordStdin {
			return extract.OverwriteAsk, nil
		}
		return extract.OverwriteNever, nil
	case "ask":
		// Nobody can answer when stdin is not a terminal: then ask
		// behaves as the non-interactive default.
		if _, ok := prompt.IsTerminal(a.stdin); !ok || a.g.passwordStdin {
			return extract.OverwriteNever, nil
		}
		return extract.OverwriteAsk, nil
	case "all":
		return extract.OverwriteAll, nil
	case "skip":
		return extract.OverwriteSkip, nil
	case "rename":
		return extract.OverwriteRename, nil
	case "rename-existing":
		return extract.OverwriteRenameExisting, nil
	case "never":
		return extract.OverwriteNever, nil
	}
	return 0, usagef("--overwrite must be ask, all, skip, rename, rename-existing or never, not %q", v)
}

// markOfWeb returns the Zone.Identifier stream the files extracted from
// the archive name get (extract.ArchiveZone): none with --mark-of-web=off
// or for an archive read from standard input, which has no stream.
func markOfWeb(name string, f *extractFlags) []byte {
	if f.markOfWeb == "off" || name == opener.StdinName {
		return nil
	}
	return extract.ArchiveZone(name)
}

func linkMode(s string) (extract.LinkPolicy, error) {
	switch s {
	case "safe":
		return extract.LinksSafe, nil
	case "skip":
		return extract.LinksSkip, nil
	case "unsafe":
		return extract.LinksUnsafe, nil
	case "copy":
		return extract.LinksCopy, nil
	}
	return 0, usagef("--links must be safe, skip, unsafe or copy, not %q", s)
}

// ask asks on the terminal what to do with the existing file at path
// that entry e would replace: it shows both files' sizes and times, as
// 7-Zip does, and offers to rename the new file. Ctrl-C while it waits
// ends the run (exit 255). At the end of input the file and every later
// one are skipped with a warning (exit 1).
func (a *app) ask(path string, e *archive.Entry) (extract.Answer, error) {
	noAnswer := fmt.Errorf("%w: file exists (no answer to the overwrite question)", extract.ErrSkipped)
	if a.stdinEnded {
		a.warn("", path, noAnswer)
		return extract.AnswerKeep, nil
	}
	a.prog.Clear()
	type answer struct {
		line string
		err  error
	}
	question := overwriteQuestion(path, e)
	for {
		io.WriteString(a.stderr, question)
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
			return extract.AnswerKeep, errInterrupted
		}
		if ans.err != nil && ans.line == "" {
			// End of input (Ctrl-D): skip with a warning, as when
			// nobody can be asked.
			fmt.Fprintln(a.stderr)
			a.stdinEnded = true
			a.warn("", path, noAnswer)
			return extract.AnswerKeep, nil
		}
		switch strings.TrimSpace(ans.line) {
		case "y", "Y", "yes":
			return extract.AnswerReplace, nil
		case "n", "no":
			return extract.AnswerKeep, nil
		case "A", "a", "always":
			return extract.AnswerReplaceAll, nil
		case "N", "never", "s", "S":
			return extract.AnswerKeepAll, nil
		case "r", "rename":
			return extract.AnswerRename, nil
		case "R", "u", "U": // 7-Zip's (u) auto rename all
			return extract.AnswerRenameAll, nil
		case "q", "Q", "quit":
			return extract.AnswerKeep, errInterrupted
		}
	}
}

// overwriteQuestion is the question ask prints about the existing file
// at path and the entry e:
//
//	garc: out/src/a.txt exists
//	  on disk:         10 bytes, modified 2026-12-06 13:00:00
//	  in the archive:  5 bytes, modified 2026-12-01 09:00:00 (src/a.txt)
//	Overwrite? [y]es, [n]o, [A]lways, [N]ever, [r]ename the new file, [R]ename all, [q]uit:
func overwriteQuestion(path string, e *archive.Entry) string {
	disk := "cannot be examined"
	if fi, err := os.Lstat(path); err == nil {
		disk = fileFacts(fi.Size(), fi.ModTime())
	}
	return fmt.Sprintf("garc: %s exists\n  on disk:         %s\n  in the archive:  %s (%s)\n"+
		"Overwrite? [y]es, [n]o, [A]lways, [N]ever, [r]ename the new file, [R]ename all, [q]uit: ",
		printable.String(path), disk, fileFacts(e.Size, e.ModTime), printable.String(e.Name))
}

// fileFacts describes a file's size (-1: unknown) and modification time
// (zero: not stored) for the overwrite question.
func fileFacts(size int64, mtime time.Time) string {
	s := "size unknown"
	if size >= 0 {
		s = plural64(size, "byte", "bytes")
		if size >= 1024 {
			s += " (" + progress.HumanBytes(size) + ")"
		}
	}
	if mtime.IsZero() {
		return s + ", no time stored"
	}
	return s + ", modified " + mtime.Local().Format("2006-01-02 15:04:05")
}

// runExtractAll checks the flags once and extracts every archive the
// argument names.
func (a *app) runExtractAll(arg string, patterns []string, f *extractFlags) error {
	ow, err := a.overwriteMode(f)
	if err != nil {
		return err
	}
	lm, err := linkMode(f.links)
	if err != nil {
		return err
	}
	if f.markOfWeb != "on" && f.markOfWeb != "off" {
		return usagef("--mark-of-web must be on or off, not %q", f.markOfWeb)
	}
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	if !f.stdout {
		a.spoolDir = cmp.Or(f.output, ".") // an archive from stdin is copied there if need be
	}
	_, err = a.forEachArchive(arg, func(name string) error {
		if f.stdout {
			return a.extractToStdout(name, sel)
		}
		return a.runExtract(name, sel, f, ow, lm)
	})
	return err
}

// runExtract extracts one archive. A wrong password typed at the prompt,
// found only while decoding (the data of an archive whose names are not
// encrypted), rolls back what was created and asks again (prompt.Tries
// in all), as unrar does.
func (a *app) runExtract(name string, sel *selection.Selector, f *extractFlags, ow extract.OverwriteMode, lm extract.LinkPolicy) error {
	for {
		err := a.extractArchive(name, sel, f, ow, lm)
		if a.stdinConsumed() || !a.pw.Retry(err) {
			return err
		}
	}
}

// extractArchive opens one archive and extracts it.
func (a *app) extractArchive(name string, sel *selection.Selector, f *extractFlags, ow extract.OverwriteMode, lm extract.LinkPolicy) error {
	r, err := a.openArchive(name)
	if err != nil {
		return err
	}
	defer r.Close()
	defer a.startDiagnostics(name)()
	p, err := pick(name, r, sel, true)
	if err != nil {
		return err
	}
	p.want = stripWant(f.strip, p.want)
	x, err := extract.New(extract.Options{
		Dest:       outputDir(f.output, name),
		Flat:       f.flat,
		Overwrite:  ow,
		Ask:        a.ask,
		Links:      lm,
		KeepBroken: f.keepBroken,
		Warn:       func(entry string, err error) { a.warn(name, entry, err) },

		StripComponents: f.strip,
		ZoneIdentifier:  markOfWeb(name, f),
	})
	if err != nil {
		return err
	}
	a.prog = progress.New(a.progressMode(false), a.g.quiet, a.stderr, p.total)
	prev := a.code
	a.code = ExitOK
	var sum extractSummary
	a.retryPassword = true
	run := a.newEntryRun(name)
	done := func(e *archive.Entry, werr error) error {
		sum.add(e, e.Size, werr)
		return run.done(e, werr)
	}
	_, err = a.extractEntries(run, r, p.want, func(e *archive.Entry, rd io.Reader) error {
		if e.Size >= 0 || e.Type != archive.TypeFile {
			return x.WriteQueued(e, rd, done)
		}
		// A stream without a size record (.xz, .gz …): count the
		// bytes as they pass (WriteQueued reads them before it
		// returns, so the count is complete when its done runs).
		cr := &countingReader{r: rd}
		return x.WriteQueued(e, cr, func(e *archive.Entry, werr error) error {
			sum.add(e, cr.n, werr)
			return run.done(e, werr)
		})
	}, x.Flush)
	if err == nil {
		a.revise(name, r, x)
	}
	if a.ctx.Err() == nil && !errors.Is(err, errInterrupted) {
		a.warnSkipped(name, r, sel)
	}
	err = p.done(name, r, sel, err)
	outcome := worse(a.code, exitCodeFor(err))
	a.code = worse(prev, a.code)
	switch {
	case outcome == ExitPassword:
		// A wrong or missing password: leave nothing of this run
		// behind, not even the directories and empty files that
		// needed no password.
		if rerr := x.Rollback(); rerr != nil {
			a.report(name, "", rerr)
		}
		return err
	case err != nil:
		x.Abort()
		return err
	}
	err = x.Finish()
	if !a.g.quiet {
		a.prog.Clear()
		// The way to overwrite is named only when nobody chose to keep
		// the files (no -y, -aos, --overwrite or answer).
		hint := f.overwrite == "" && !a.g.yes && ow == extract.OverwriteNever
		sum.print(a.messages(), worse(outcome, exitCodeFor(err)) == ExitOK, hint)
	}
	return err
}

// maxSkippedNames is how many names of skipped entries warnSkipped
// prints; the rest are counted.
const maxSkippedNames = 10

// warnSkipped warns once (exit 1) about the selected entries that r
// leaves out because garc never creates them: a tar's character and
// block devices and FIFOs (the reader's Skipped, complete after
// Extract). The warning names the first maxSkippedNames and counts the
// others.
func (a *app) warnSkipped(name string, r archive.Reader, sel *selection.Selector) {
	s, ok := r.(interface{ Skipped() []string })
	if !ok {
		return
	}
	var names []string
	n := 0
	for _, sk := range s.Skipped() {
		if !sel.Want(&archive.Entry{Name: sk, Type: archive.TypeFile}) {
			continue
		}
		if n++; n <= maxSkippedNames {
			names = append(names, sk)
		}
	}
	if n == 0 {
		return
	}
	msg := strings.Join(names, ", ")
	if n > len(names) {
		msg += fmt.Sprintf(" and %d more", n-len(names))
	}
	noun := "entry"
	if n > 1 {
		noun = "entries"
	}
	a.warn(name, "", fmt.Errorf("skipped %d device or FIFO %s (garc does not create them): %s", n, noun, msg))
}

// extractSummary counts what an extraction did, for the closing lines.
type extractSummary struct {
	files, folders, existing int
	size                     int64
}

// add counts one entry written (err nil) of size bytes, or kept.
func (s *extractSummary) add(e *archive.Entry, size int64, err error) {
	switch {
	case err == nil && e.IsDir():
		s.folders++
	case err == nil:
		s.files++
		s.size += max(size, 0)
	case errors.Is(err, extract.ErrExists):
		s.existing++
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// print writes the closing line of x and e: after a clean run
// "Everything is Ok" with the counts (as 7-Zip and unrar end theirs) and
// the existing files kept, or "Nothing extracted" when every file existed
// and was kept (-aos); after warnings, the existing files kept and, with
// hint, how to overwrite them.
func (s *extractSummary) print(w io.Writer, ok, hint bool) {
	kept := plural(s.existing, "existing file", "existing files")
	switch {
	case ok && s.existing > 0 && s.files == 0:
		fmt.Fprintf(w, "Nothing extracted: %s kept\n", kept)
	case ok:
		fmt.Fprintf(w, "Everything is Ok: %s, %s, %s", plural(s.files, "file", "files"),
			plural(s.folders, "folder", "folders"), plural64(s.size, "byte", "bytes"))
		if s.existing > 0 {
			fmt.Fprintf(w, "; %s kept", kept)
		}
		fmt.Fprintln(w)
	case s.existing > 0 && hint:
		them := "them"
		if s.existing == 1 {
			them = "it"
		}
		fmt.Fprintf(w, "%s kept: add -y to overwrite %s, or --overwrite=rename to keep both\n", kept, them)
	case s.existing > 0:
		fmt.Fprintf(w, "%s kept\n", kept)
	}
}

// stopError is an error of an entry visitor that ends the run (the
// output cannot be written).
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }
func (e *stopError) Unwrap() error { return e.err }

// isStopError reports whether err is or wraps a *stopError.
func isStopError(err error) bool {
	var s *stopError
	return errors.As(err, &s)
}

// entryRun is the state of one extractEntries call, which the outcome
// of each entry updates (done).
type entryRun struct {
	a     *app
	name  string
	retry bool // a wrong typed password ends the run, to be asked again
	// failed counts the entries that failed; stop is the error that
	// ends the run.
	failed int
	stop   error
}

// done takes the outcome verr of entry e. An entry that fails is reported
// and the run goes on (done returns nil), except that a missing password
// or a *stopError ends it (all other encrypted entries would fail the
// same way), and so does, when retry is set, a wrong password typed at
// the prompt: done then returns the error and extractEntries handles it.
// Refused and skipped entries count as done: the extractor has warned
// about them (exit 1) or skipped them quietly under --overwrite=skip.
func (s *entryRun) done(e *archive.Entry, verr error) error {
	switch {
	case verr == nil, errors.Is(verr, extract.ErrRefused), errors.Is(verr, extract.ErrSkipped):
		return nil
	case errors.Is(verr, errInterrupted), errors.Is(verr, context.Canceled):
		s.stop = errInterrupted
		return verr
	case errors.Is(verr, archive.ErrPasswordRequired), isStopError(verr), s.retry && s.a.pw.Retryable(verr):
		s.failed++
		if s.stop == nil {
			s.stop = verr
		}
		return verr
	}
	s.failed++
	s.a.report(s.name, e.Name, verr)
	return nil
}

// newEntryRun starts the outcomes of one archive's entries. It takes
// a.retryPassword: a wrong password typed at the prompt ends the run, to
// be asked again.
func (a *app) newEntryRun(name string) *entryRun {
	run := &entryRun{a: a, name: name, retry: a.retryPassword}
	a.retryPassword = false
	return run
}

// extractEntries decodes the entries want selects and hands each, through
// the progress bar, to visit (x.WriteQueued, a checksum test, a copy to
// stdout), which passes the entry's outcome to run.done, at once or
// later, and returns what done returned (see entryRun.done); flush, when
// not nil, delivers the outcomes still pending after the last entry. A
// wrong password typed at the prompt, when run.retry is set, is returned
// unreported for runExtract to ask again. It returns the number of failed
// entries and errInterrupted when the run was cancelled, a reportedError
// when it stopped, or the archive reader's own error.
func (a *app) extractEntries(run *entryRun, r archive.Reader, want func(*archive.Entry) bool,
	visit func(*archive.Entry, io.Reader) error, flush func() error) (failed int, err error) {
	err = r.Extract(a.ctx, want, func(e *archive.Entry, rd io.Reader) error {
		if a.ctx.Err() != nil {
			return a.ctx.Err()
		}
		return visit(e, a.prog.Entry(e.Name, rd))
	})
	if flush != nil && a.ctx.Err() == nil && run.stop == nil {
		// The outcomes of the entries still queued, which may stop the
		// run as the callback's would have. A run that stopped already
		// is aborted or rolled back, which drops them.
		if ferr := flush(); ferr != nil && run.stop == nil {
			run.stop = ferr // not from done (which sets stop itself)
		}
	}
	a.prog.Finish()
	stop := run.stop
	switch {
	case a.ctx.Err() != nil || errors.Is(err, errInterrupted) || errors.Is(stop, errInterrupted):
		return run.failed, errInterrupted
	case run.retry && a.pw.Retryable(stop):
		return run.failed, stop // runExtract asks again
	case stop != nil:
		a.report(run.name, "", stop)
		return run.failed, &reportedError{stop}
	case err != nil && a.repeats.lines[diagnostic("", "", err)]:
		// The reader's error is an entry's, reported with it (a
		// compressed tar cut short).
		return run.failed, &reportedError{err}
	}
	return run.failed, err
}

func (a *app) testCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "t ARCHIVE [PATTERNS...]",
		Aliases: []string{"test"},
		Short:   "test every entry: decode it and verify its checksum",
		Long: `Test decodes every selected entry and verifies its CRC32 or BLAKE2sp.
Each failing entry is reported on stderr and testing continues with the
next one; a checksum mismatch exits 3. ARCHIVE may be a wildcard, as for x.

Unless -q is given, a summary like 7-Zip's goes to stderr: "Testing
archive: NAME" and "Everything is Ok" or "Sub items Errors: N" per
archive, then (for several archives) the archive counts and the totals
Folders, Files, Size (bytes decoded) and Compressed (archive bytes).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTestAll(args[0], args[1:])
		},
	}
}

// testTotals accumulates the outcome of testing one or more archives.
type testTotals struct {
	archives, ok, withErrors, cannotOpen int
	folders, files                       int
	size, compressed                     int64
}

// runTestAll tests every archive the argument names and prints the
// summary.
func (a *app) runTestAll(arg string, patterns []string) error {
	sel, err := a.selection(patterns)
	if err != nil {
		return err
	}
	var tot testTotals
	n, err := a.forEachArchive(arg, func(name string) error {
		tot.archives++
		if !a.g.quiet {
			fmt.Fprintf(a.messages(), "Testing archive: %s\n", printable.String(name))
		}
		opened, failed, err := a.runTest(name, sel, &tot)
		switch {
		case !opened:
			tot.cannotOpen++
		case failed > 0 || err != nil:
			tot.withErrors++
			if failed > 0 && !a.g.quiet {
				fmt.Fprintf(a.messages(), "Sub items Errors: %d\n", failed)
			}
		default:
			tot.ok++
			if !a.g.quiet {
				fmt.Fprintln(a.messages(), "Everything is Ok")
			}
		}
		return err
	})
	if a.ctx.Err() != nil || errors.Is(err, errInterrupted) {
		return err
	}
	// Totals follow every run that tested something; a single archive
	// that could not be opened, or in which the patterns matched
	// nothing, has only its diagnostic.
	if !a.g.quiet && (n > 1 || n == 1 && tot.cannotOpen == 0 && !errors.Is(err, selection.ErrNoMatch)) {
		a.writeTestSummary(&tot, n > 1)
	}
	return err
}

// writeTestSummary prints the totals of a test run as 7-Zip does (on
// stderr, as every summary).
func (a *app) writeTestSummary(t *testTotals, several bool) {
	w := a.messages()
	fmt.Fprintln(w)
	if several {
		fmt.Fprintf(w, "Archives: %d\nOK archives: %d\n", t.archives, t.ok)
		if t.withErrors > 0 {
			fmt.Fprintf(w, "Archives with Errors: %d\n", t.withErrors)
		}
		if t.cannotOpen > 0 {
			fmt.Fprintf(w, "Can't open as archive: %d\n", t.cannotOpen)
		}
	}
	if t.folders > 0 {
		fmt.Fprintf(w, "Folders: %d\n", t.folders)
	}
	fmt.Fprintf(w, "Files: %d\nSize:       %d\nCompressed: %d\n", t.files, t.size, t.compressed)
}

// runTest tests one archive, adding to tot. opened says whether the
// archive could be opened; failed counts the entries that failed.
func (a *app) runTest(name string, sel *selection.Selector, tot *testTotals) (opened bool, failed int, err error) {
	r, err := a.openArchive(name)
	if err != nil {
		return false, 0, err
	}
	defer r.Close()
	defer a.startDiagnostics(name)()
	p, err := pick(name, r, sel, false)
	if err != nil {
		return true, 0, err
	}
	a.prog = progress.New(a.progressMode(false), a.g.quiet, a.stderr, p.total)
	buf := make([]byte, copyBufferSize(p.total))
	run := a.newEntryRun(name)
	failed, err = a.extractEntries(run, r, p.want, func(e *archive.Entry, rd io.Reader) error {
		if e.IsDir() {
			tot.folders++
		} else {
			tot.files++
		}
		k, err := copyContent(discard, rd, buf, countHoles{}) // holes counted, not produced
		tot.size += k
		return run.done(e, err)
	}, nil)
	tot.compressed += r.Info().PhysicalSize // known at the end for an archive read from a pipe
	return true, failed, p.done(name, r, sel, err)
}

// extractToStdout writes the contents of the selected files of one
// archive to standard output, in archive order (7-Zip's -so). Checksums
// are verified as the data passes: a mismatch is reported on stderr and
// exits 3, though the bytes have been written by then. Links give what
// 7-Zip writes for them (stdoutLinkData); directories, hard links and
// anti-items contribute nothing.
func (a *app) extractToStdout(name string, sel *selection.Selector) error {
	r, err := a.openArchive(name)
	if err != nil {
		return err
	}
	defer r.Close()
	defer a.startDiagnostics(name)()
	p, err := pick(name, r, sel, false) // -so: no destination to hint at
	if err != nil {
		return err
	}
	a.prog = progress.New(a.progressMode(true), a.g.quiet, a.stderr, p.total)
	out := &stdoutWriter{w: a.stdout}
	holes := stdoutHoles(out)
	buf := make([]byte, copyBufferSize(p.total))
	run := a.newEntryRun(name)
	format := r.Info().Format
	want, copies := p.want, (*copySources)(nil)
	if !p.streamed && format == archive.FormatRAR5 {
		if copies = newCopySources(r.Entries(), p.want); copies != nil {
			want = copies.want
		}
	}
	_, err = a.extractEntries(run, r, want, func(e *archive.Entry, rd io.Reader) error {
		if e.Anti || e.Type == archive.TypeDir || e.Type == archive.TypeHardlink {
			return nil
		}
		var err error
		w := io.Writer(out)
		if copies != nil {
			if !p.want(e) {
				w = discard // only the source of a selected copy
			}
			rd = copies.keep(e, rd)
		}
		switch e.Type {
		case archive.TypeSymlink:
			// The target, read and checked before the callback, is
			// not in rd, which still reports a failure.
			if _, err = io.CopyBuffer(discard, rd, buf); err == nil {
				_, err = io.WriteString(w, stdoutLinkData(format, e))
			}
		case archive.TypeCopy:
			if copies == nil && p.streamed && onePass(r) {
				// Read as it arrives: the content it repeats is gone.
				err = fmt.Errorf("a copy of %s, which the pipe brought before it: with -so, read the archive from a file: %w",
					e.LinkTarget, archive.ErrUnsupported)
				break
			}
			if copies == nil {
				return nil
			}
			var data []byte
			if data, err = copies.source(e); err == nil {
				_, err = w.Write(data)
			}
		case archive.TypeFile:
			// A sparse file's holes: zeros for a pipe, holes in a
			// regular file (stdoutHoles).
			sink := holes
			if w != io.Writer(out) {
				sink = countHoles{}
			}
			_, err = copyContent(w, rd, buf, sink)
		default:
			_, err = io.CopyBuffer(w, rd, buf)
		}
		if w == discard && err != nil {
			return nil // reported by the copy that needs it
		}
		if out.err != nil {
			return run.done(e, &stopError{stdoutErr(out.err)})
		}
		return run.done(e, err)
	}, nil)
	return p.done(name, r, sel, err)
}

// copySources keeps, for -so, the contents of the entries that selected
// RAR5 file copies repeat: 7-Zip writes a copy's content as its own,
// where extraction copies the file it made. At most maxCopySources bytes
// are kept in all; a copy of a file beyond them fails as unsupported, as
// 7-Zip refuses copies it cannot buffer.
type copySources struct {
	want    func(*archive.Entry) bool // the selection plus the copies' sources
	needed  map[string]bool           // names a selected copy repeats
	content map[string]copySource     // by name, the last entry so named
	kept    int64
}

// copySource is the content of a copy's source, or why it is missing.
type copySource struct {
	data []byte
	err  error
}

var maxCopySources int64 = 256 << 20 // a variable for the tests

// newCopySources returns the sources of the copies want selects among
// entries, or nil when it selects none.
func newCopySources(entries []*archive.Entry, want func(*archive.Entry) bool) *copySources {
	all := archive.WithLinkTargets(entries, want)
	needed := map[string]bool{}
	for _, e := range entries {
		if e.Type == archive.TypeCopy && all(e) {
			needed[e.LinkTarget] = true
		}
	}
	if len(needed) == 0 {
		return nil
	}
	return &copySources{want: all, needed: needed, content: map[string]copySource{}}
}

// keep returns rd, copying what is read from it aside when a copy repeats
// e; an entry of the same name that no copy repeats forgets the earlier
// content.
func (c *copySources) keep(e *archive.Entry, rd io.Reader) io.Reader {
	if !c.needed[e.Name] {
		return rd
	}
	c.content[e.Name] = copySource{err: fmt.Errorf("the file a copy repeats was not decoded: %w", archive.ErrFormat)}
	if e.Type == archive.TypeCopy {
		return rd // source stores its content
	}
	return &keptReader{c: c, name: e.Name, r: rd}
}

// source returns the content the copy e repeats, and keeps it for the
// copies that repeat e in turn.
func (c *copySources) source(e *archive.Entry) ([]byte, error) {
	src, ok := c.content[e.LinkTarget]
	if !ok {
		src.err = fmt.Errorf("the file it copies, %s, is not in the archive before it: %w", e.LinkTarget, archive.ErrFormat)
	}
	if c.needed[e.Name] {
		c.content[e.Name] = src
	}
	return src.data, src.err
}

// keptReader copies what it reads into its copySources.
type keptReader struct {
	c    *copySources
	name string
	r    io.Reader
	data []byte
	over bool
}

func (k *keptReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if !k.over && k.c.kept+int64(n) > maxCopySources {
		k.over, k.data = true, nil
	}
	if !k.over {
		k.data = append(k.data, p[:n]...)
		k.c.kept += int64(n)
	}
	switch {
	case err == io.EOF && k.over:
		k.c.content[k.name] = copySource{err: &archive.UnsupportedError{What: fmt.Sprintf("-so of a file copy beyond %d MiB of copied files", maxCopySources>>20)}}
	case err == io.EOF:
		k.c.content[k.name] = copySource{data: k.data}
	case err != nil:
		k.c.content[k.name] = copySource{err: err}
	}
	return n, err
}

// stdoutLinkData is what -so writes for the symbolic link e, as 7-Zip
// does: the target, which ZIP, 7z and RAR 1.5–4.x store as the entry's
// data and 7-Zip's tar reader gives as it; nothing for a RAR5 link, whose
// target is a header record beside empty data.
func stdoutLinkData(format archive.Format, e *archive.Entry) string {
	if format == archive.FormatRAR5 {
		return ""
	}
	return e.LinkTarget
}

// copyBufferSize is the size of the buffer t and -so copy entries
// through: 256 KiB, or for a selection of fewer bytes (a tiny archive,
// where clearing and faulting in the buffer would cost more than the
// decoding), its size rounded up to 4 KiB.
func copyBufferSize(total int64) int {
	const largest, smallest = 256 << 10, 4 << 10
	if total < 0 || total >= largest {
		return largest
	}
	return int(max(total+smallest-1, smallest) &^ (smallest - 1))
}

// stdoutWriter remembers the first write error on standard output, to
// tell it apart from a decoding error, and hides the destination's
// ReadFrom so that copies go through the large buffer.
type stdoutWriter struct {
	w   io.Writer
	err error
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// discard hides io.Discard's ReadFrom so that io.CopyBuffer reads with
// our large buffer instead of io.Discard's small pooled one.
// It is an io.Writer variable so that passing it converts nothing (a
// conversion of the struct would allocate per entry).
var discard io.Writer = struct{ io.Writer }{io.Discard}
