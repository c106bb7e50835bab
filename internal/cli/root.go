package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/archivefile"
	"github.com/garc-dev/garc/internal/argv"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/progress"
	"github.com/garc-dev/garc/internal/prompt"
)

// globalFlags are the flags every reading command shares.
type globalFlags struct {
	password      string
	passwordSet   bool
	passwordFile  string
	passwordStdin bool
	askPassword   bool
	quiet         bool
	yes           bool
	progress      string
	maxDict       string
	threads       int
	includes      []string
	excludes      []string
	recursive     bool
	archiveType   string
	unsupported   []string // refused 7-Zip switches (argv.UnsupportedFlag)
}

// app is one run of the command line.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdinB *bufio.Reader
	stdout io.Writer
	stderr io.Writer
	g      globalFlags
	pw     *prompt.Source
	prog   *progress.Display
	code   int // the exit code accumulated by the command
	// volumes are the files the last opened archive was read from, so
	// that a wildcard archive argument skips them (forEachArchive).
	volumes []string
	ran     bool // the command line was parsed and a command started
	// completing is set in a run that answers a shell's completion
	// request (cobra's hidden __complete command).
	completing bool
	// args is the command line as typed, before argv.Normalize, so that
	// messages name a switch as the user wrote it (typedSwitch).
	args []string
	// shown and hidden count the diagnostics about entries of the
	// current archive printed and held back (see maxEntryDiagnostics);
	// repeats holds its lines back from repeating.
	shown, hidden int
	repeats       repeats
	// stdinEnded is set when an overwrite question met the end of input.
	stdinEnded bool
	// retryPassword makes the next extractEntries return a wrong
	// password typed at the prompt instead of reporting it.
	retryPassword bool
	// memory is the decoder and header memory budget (--max-dict) that
	// all archives of the run share.
	memory *archive.MemoryBudget
	// procs is Main's one-P phase (processors.go), released when the
	// command runs on several threads; nil outside Main.
	procs *processorLimit
	// stdinStream is the archive read from standard input ("-"), once
	// opened; tty is the terminal its password prompts read; spoolDir
	// is where x and e copy one that cannot be read as it arrives
	// (stdin.go).
	stdinStream *opener.Stream
	tty         *os.File
	spoolDir    string
}

// maxEntryDiagnostics is how many diagnostics about single entries are
// printed per archive; the rest are counted and summed up in one line, so
// that an archive of millions of bad entries cannot flood the terminal.
const maxEntryDiagnostics = 10

// Main runs garc with the arguments after the program name and returns
// the exit code for the process to exit with (a run that needed only one
// processor leaves GOMAXPROCS at 1, see processors.go). SIGINT, SIGTERM
// and SIGHUP cancel the run (but --version and --help, see
// interruptible): it removes its temporary files, leaves an archive being
// updated as it was, prints "garc: interrupted" and exits 255.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var procs *processorLimit
	if ProcessorsLowered {
		procs = limitedProcessors(true, onePDuration)
	} else {
		procs = limitProcessors(onePDuration)
	}
	defer procs.stop()
	if !interruptible(args) {
		return runLimited(context.Background(), procs, args, stdin, stdout, stderr)
	}
	// The signals stay caught to the process's exit, which follows
	// Main: stopping them would hand each of the three over to the
	// runtime's signal thread once more for nothing.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		stop() // a second signal kills the process the default way
		// The run normally unwinds at once (temporary files removed,
		// exit 255). If it is stuck in a system call that cancellation
		// cannot reach (a FIFO or a hung network file system), exit
		// anyway after a grace period, removing the temporary archive
		// files first.
		select {
		case <-done:
		case <-time.After(interruptGrace):
			removeTemporaries()
			fmt.Fprintln(stderr, "garc: "+errInterrupted.Error())
			os.Exit(ExitInterrupted)
		}
	}()
	code := runLimited(ctx, procs, args, stdin, stdout, stderr)
	close(done)
	return code
}

// interruptible reports whether a run of args catches SIGINT, SIGTERM
// and SIGHUP: every run but garc --version and garc --help (-h, help)
// alone, which print a text and have nothing to cancel or remove. Catching
// signals costs a Go process a thread of its own, and a handover to it
// for each signal, about a tenth of the CPU time of garc --version.
func interruptible(args []string) bool {
	if len(args) != 1 {
		return true
	}
	switch args[0] {
	case "--version", "--help", "-h", "help":
		return false
	}
	return true
}

// removeTemporaries removes the temporary files of the archive being
// written (a, d) and of the files being extracted (x, e), for a process
// that exits without unwinding.
func removeTemporaries() {
	archivefile.RemoveTemporaries()
	extract.RemoveTemporaries()
	opener.RemoveTemporaries()
}

// interruptGrace is how long an interrupted run may take to unwind before
// Main exits without it: short enough that every command ends within a
// second of the signal.
const interruptGrace = 700 * time.Millisecond

// runLimited runs garc in the context ctx and in Main's one-P phase procs
// (nil: none), which it releases when the command runs on several
// threads.
func runLimited(ctx context.Context, procs *processorLimit, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdin: stdin, stdinB: bufio.NewReader(stdin), stdout: stdout, stderr: stderr, procs: procs}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // setMemoryLimit's, for in-process runs
	a.args = args
	defer a.closeStdin()
	a.completing = len(args) > 0 && strings.HasPrefix(args[0], "__complete")
	a.pw = &prompt.Source{Stdin: a.stdinB, Term: &prompt.Terminal{Ctx: ctx, In: stdin, Out: stderr, Clear: func() { a.prog.Clear() }}}
	nargs := argv.Normalize(args, a.commandsFor(args))
	only := commandToBuild(nargs)
	root := a.newRoot(only)
	tree := func() *cobra.Command { return root }
	if only != nil {
		tree = sync.OnceValue(func() *cobra.Command { return a.referenceTree() })
	}
	root.SetFlagErrorFunc(flagErrorFunc(args, tree)) // usage.go: errors name the switches as typed
	operandsRequired(root)                           // usage.go: "x: missing ARCHIVE"
	root.SetArgs(nargs)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if ctx.Err() != nil || worse(a.code, exitCodeFor(err)) == ExitInterrupted {
		// One wording, whatever was cut short.
		a.prog.Clear()
		fmt.Fprintln(stderr, "garc: "+errInterrupted.Error())
		return ExitInterrupted
	}
	if err != nil {
		code := exitCodeFor(err)
		if !a.ran {
			// Errors cobra produces itself before a command runs
			// (unknown flag or command, wrong argument count) are
			// usage errors.
			code = ExitUsage
		}
		if !errors.Is(err, errReported) {
			fmt.Fprintf(stderr, "garc: %s\n", printable.String(diagnostic("", "", err)))
			if code == ExitUsage {
				fmt.Fprintln(stderr, helpHint(root, nargs))
			}
		}
		return worse(a.code, code)
	}
	return a.code
}

// commandSpec is one of garc's commands: its name and aliases, as the
// command declares them, and how to build it.
type commandSpec struct {
	words []string
	build func(*app) *cobra.Command
	// whole marks a command that reads the whole tree (the man page).
	whole bool
}

// commandSpecs are garc's commands, in the order the tree holds them. A
// run builds only the one it executes (cobra's flag sets, help and
// completion commands cost about a tenth of a tiny archive's test, issue
// 13); one of another word (help, completion, man, none or an unknown
// one) builds them all. TestCommandSpecs checks the words.
var commandSpecs = []commandSpec{
	{words: []string{"man"}, build: func(*app) *cobra.Command { return manCommand() }, whole: true},
	{words: []string{"lb"}, build: (*app).bareListCommand}, // listbare.go: unrar's lb, 7-Zip's l -ba
	{words: []string{"x", "extract"}, build: func(a *app) *cobra.Command { return a.extractCommand("x", true) }},
	{words: []string{"e"}, build: func(a *app) *cobra.Command { return a.extractCommand("e", false) }},
	{words: []string{"l", "list"}, build: (*app).listCommand},
	{words: []string{"t", "test"}, build: (*app).testCommand},
	{words: []string{"a", "add"}, build: (*app).createCommand},
	{words: []string{"d", "delete"}, build: (*app).deleteCommand},
}

// versionSpec stands for the root alone, for a run of "garc --version":
// cobra prints the version before any command would run.
var versionSpec = commandSpec{words: []string{"--version"}}

// commandToBuild returns the command that normalized arguments run when
// it can be built alone (&versionSpec: none), or nil.
func commandToBuild(nargs []string) *commandSpec {
	if len(nargs) == 0 {
		return nil
	}
	if len(nargs) == 1 && nargs[0] == "--version" {
		return &versionSpec
	}
	for i := range commandSpecs {
		c := &commandSpecs[i]
		if !c.whole && slices.Contains(c.words, nargs[0]) {
			return c
		}
	}
	return nil
}

// commandsFor describes the commands for argv.Normalize of args: the
// command words, and the long flags that take a value only when args has
// a long flag without '=' (whose value may be the next argument), since
// they come from the flag sets of the whole tree. cobra's --help and
// --version take none: they do not need the tree.
func (a *app) commandsFor(args []string) argv.Commands {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if strings.HasPrefix(arg, "--") && !strings.Contains(arg, "=") && arg != "--help" && arg != "--version" {
			return commandsOf(a.referenceTree())
		}
	}
	c := argv.Commands{Words: map[string]bool{"help": true, "completion": true}}
	for _, spec := range commandSpecs {
		for _, w := range spec.words {
			c.Words[w] = true
		}
	}
	return c
}

// referenceTree returns the whole command tree of another app, for the
// questions about every command (which flags take values, which
// commands have a flag) of a run that built only its own: building the
// flags again on a would reset them to their defaults.
func (a *app) referenceTree() *cobra.Command {
	return (&app{ctx: a.ctx, stdin: a.stdin, stdout: io.Discard, stderr: io.Discard}).rootCommand()
}

// commandsOf describes root's commands for argv.Normalize: the long
// flags that take a value and every command name and alias, with the help
// and completion commands cobra adds when it runs.
func commandsOf(root *cobra.Command) argv.Commands {
	c := argv.Commands{ValueFlags: map[string]bool{}, Words: map[string]bool{"help": true, "completion": true}}
	visit := func(f *pflag.Flag) {
		if f.NoOptDefVal == "" {
			c.ValueFlags[f.Name] = true
		}
	}
	root.PersistentFlags().VisitAll(visit)
	for _, sub := range root.Commands() {
		sub.Flags().VisitAll(visit)
		for _, w := range append([]string{sub.Name()}, sub.Aliases...) {
			c.Words[w] = true
		}
	}
	return c
}

// errReported marks an error whose diagnostic has already been printed.
var errReported = errors.New("reported")

// reported wraps err so that run does not print it again.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() []error {
	return []error{e.err, errReported}
}

// rootCommand returns garc's whole command tree.
func (a *app) rootCommand() *cobra.Command { return a.newRoot(nil) }

// newRoot returns the root command with its persistent flags and the
// command only, or all commands when only is nil.
func (a *app) newRoot(only *commandSpec) *cobra.Command {
	root := &cobra.Command{
		Use:   "garc COMMAND ARCHIVE [PATTERNS...] [flags]",
		Short: "extract, list and test 7z, RAR, ZIP and tar archives; create 7z archives",
		Long: `garc reads 7z and RAR archives (RAR 1.4 to RAR 7, self-extracting archives,
volume sets and raw .001 splits), ZIP archives (split sets too), tar archives
(plain, .tar.gz, .tar.bz2, .tar.xz, .tar.zst, .tar.lzma) and single .gz, .bz2,
.xz, .zst and .lzma files, all detected by content; it writes 7z archives.

unrar's commands are accepted too: v (= l), vt and lt (= l -slt), vb (= lb)
and p (= x -so).

7-Zip and unrar switches are accepted too: -oDIR, -pSECRET, -y, -r, -aoa,
-aos, -aou, -o+, -o-, -kb, -slt, -so, -mx9, -m0=lzma2, -mhe=on, -mmt4,
-x!PAT, -xr!PAT ... Patterns follow 7-Zip: from the archive root unless -r
or a **/ prefix (-xr!) lets them match at any depth.
ARCHIVE may be a quoted wildcard ('*.rar'); x and e take unrar's trailing
destination (garc x archive.rar out/). ARCHIVE '-' is standard input
(curl -L URL | garc x -), and x --strip-components N drops N leading
components of the names, as tar does.

Standard output carries only what was asked to be seen: listings (l, lb)
and file contents (-so, p). Summaries, messages, prompts and the progress
display go to standard error, for every command; with -so or p there is
no progress display unless --progress=on (7-Zip -bsp2) asks for it.

` + exitCodeTable,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			cmd.SetOut(a.stderr)
			cmd.Help()
			return usagef("no command given")
		},
		Args: cobra.ArbitraryArgs,
	}
	if only == &versionSpec {
		// garc --version: the root prints it.
		root.CompletionOptions.DisableDefaultCmd = true
		root.Version = version()
	} else if only != nil {
		// The run executes only; cobra's completion command (with its
		// four subcommands) is not needed.
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(only.build(a))
	} else {
		// cobra's "garc completion bash|zsh|fish|powershell" stays
		// enabled; man.go's hidden "garc man" prints the man page.
		// Only the root runs --version.
		root.Version = version()
		for _, spec := range commandSpecs {
			root.AddCommand(spec.build(a))
		}
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.g.password, "password", "", "password for encrypted archives (7-Zip: -pSECRET)")
	pf.StringVar(&a.g.passwordFile, "password-file", "", "read the password from the first line of `FILE`")
	pf.BoolVar(&a.g.passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	pf.BoolVar(&a.g.askPassword, "ask-password", false, "prompt for the password on the terminal (7-Zip: -p)")
	pf.BoolVarP(&a.g.quiet, "quiet", "q", false, "print only errors")
	pf.BoolVarP(&a.g.yes, "yes", "y", false, "assume yes on all queries (overwrite all)")
	pf.StringVar(&a.g.progress, "progress", "auto", "progress bar on stderr: auto (when stderr is a terminal and stdout carries no data: not with -so or p), on (when stderr is a terminal, with -so too; 7-Zip -bsp2), always, never; list prints each file instead (7-Zip -bb1, --verbose)")
	pf.StringVar(&a.g.maxDict, "max-dict", "", "largest dictionary or model memory to allocate, e.g. 512m, 4g (default 4g)")
	pf.IntVar(&a.g.threads, "threads", 0, "threads, 0 for every CPU (reading: independent blocks decoded in parallel and streams decoded ahead of the files, 1 decodes sequentially; creating: blocks and the match finder; the archive does not depend on it)")
	stringArrayVar(pf, &a.g.includes, "include", "only entries matching `PATTERN` (repeatable; @FILE reads a list; for a: more inputs, 7-Zip -i!)")
	stringArrayVar(pf, &a.g.excludes, "exclude", "skip entries matching `PATTERN`, from the root unless -r or a **/ prefix (7-Zip -x!, -xr!; repeatable; @FILE reads a list)")
	pf.BoolVarP(&a.g.recursive, "recursive", "r", false, "let patterns match at any depth (7-Zip -r)")
	pf.StringVar(&a.g.archiveType, "type", "", "type of the archive a writes: 7z, zip, tar, tar.gz, tar.bz2, tar.xz, tar.zst, tar.lzma, gzip, bzip2, xz, zstd, lzma (reading detects the type)")
	pf.MarkHidden("ask-password")
	stringArrayVar(pf, &a.g.unsupported, argv.UnsupportedFlag, "a 7-Zip switch garc refuses")
	pf.MarkHidden(argv.UnsupportedFlag)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		a.ran = true
		a.g.passwordSet = cmd.Flags().Changed("password")
		if len(a.g.unsupported) > 0 {
			sw := a.g.unsupported[0]
			return usagef("switch %s is not supported: %s", sw, argv.Refusal(sw))
		}
		switch a.g.progress {
		case "auto", "on", "always", "never", "list":
		default:
			return usagef("--progress must be auto, on, always, never or list, not %q", a.g.progress)
		}
		if a.g.threads < 0 {
			return usagef("--threads must not be negative")
		}
		writes := cmd.Name() == "a" || cmd.Name() == "d"
		switch {
		case writes && a.g.threads == 1:
			a.procs.keepOneP() // one thread asked for: one P throughout
		case writes || a.g.threads > 1:
			a.procs.release() // several threads: every CPU from the start
		}
		md, err := parseSize(a.g.maxDict)
		if err != nil {
			return usagef("--max-dict: %v", err)
		}
		a.memory = archive.NewMemoryBudget(md)
		setMemoryLimit(a.memory.Limit())
		if !writes {
			if err := a.stdinArchive(args); err != nil {
				return err
			}
		}
		err = a.pw.Resolve(prompt.Flags{Password: a.g.password, PasswordSet: a.g.passwordSet, File: a.g.passwordFile,
			Stdin: a.g.passwordStdin, Ask: a.g.askPassword, NewArchive: cmd.Name() == "a"}) // a -p asks twice, at once
		if errors.Is(err, prompt.ErrSeveralSources) {
			return usagef("%v", err)
		}
		return err
	}
	if only == nil {
		setUpCompletion(root, a.completing) // completion.go
	}
	return root
}

// options returns the archive.Options for one archive.
func (a *app) options(name string) *archive.Options {
	md, _ := parseSize(a.g.maxDict)
	return &archive.Options{
		Name:     name,
		Password: a.pw.ForArchive(name),
		MaxDict:  md,
		Memory:   a.memory,
		Threads:  readThreads(a.g.threads),
	}
}

// readThreads is the number of threads that read an archive: --threads,
// or with 0 every CPU, as 7-Zip decodes LZMA2 blocks on every core by
// default. One decodes sequentially.
func readThreads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// memoryHeadroom is what the process may use beyond --max-dict (the
// README's bound on peak memory).
const memoryHeadroom = 256 << 20

// memorySlack is the part of memoryHeadroom kept for what the runtime's
// limit does not see or lets through: the program's own pages, memory
// freed but not yet returned, and the overshoot of a collection.
const memorySlack = 64 << 20

// setMemoryLimit makes the garbage collector keep the heap within the
// decoder limit plus memoryHeadroom (less memorySlack): without it Go lets the heap grow to
// twice the live heap before collecting, which for an archive of
// millions of entries is far beyond the bound. The limit is soft: a live
// heap above it is not refused, only collected more often.
func setMemoryLimit(maxDict int64) {
	debug.SetMemoryLimit(maxDict + memoryHeadroom - memorySlack)
}

// parseSize parses a size such as 4096, 64k, 512m, 4g, 8GiB or 1t (binary
// multiples). The empty string is 0.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, nil
	}
	t = strings.TrimSuffix(t, "ib")
	t = strings.TrimSuffix(t, "b")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("invalid size %q (use a number with an optional k, m, g or t suffix)", s)
	}
	if v > (1<<62)/mult {
		return 0, fmt.Errorf("size %q too large", s)
	}
	return v * mult, nil
}

// report prints a diagnostic "garc: ARCHIVE: ENTRY: cause" on stderr,
// leaving out the parts the cause already names, and folds its exit code
// into the run's.
func (a *app) report(archiveName, entry string, err error) {
	a.code = worse(a.code, exitCodeFor(err))
	if a.code == ExitInterrupted {
		return // run says "interrupted" once
	}
	a.diagnose(archiveName, entry, err, true)
}

// warn prints a warning and records exit code 1.
func (a *app) warn(archiveName, entry string, err error) {
	if !errors.Is(err, extract.ErrNotice) {
		a.code = worse(a.code, ExitWarning)
	}
	a.diagnose(archiveName, entry, err, false)
}

// diagnose prints a diagnostic, unless the archive's diagnostics have
// had the same line (repeats); an error (group) with the cause of an
// earlier entry's, or any diagnostic after maxEntryDiagnostics about
// entries, is counted instead.
func (a *app) diagnose(archiveName, entry string, err error, group bool) {
	line := diagnostic(archiveName, entry, err)
	if a.repeats.lines[line] {
		return
	}
	if entry != "" {
		if group && a.repeats.counted(line, entry) {
			return
		}
		if a.shown >= maxEntryDiagnostics {
			a.hidden++
			return
		}
		a.shown++
	}
	a.repeats.add(line, entry, group)
	a.prog.Clear()
	fmt.Fprintf(a.stderr, "garc: %s\n", printable.String(line))
}

// startDiagnostics starts counting entry diagnostics for an archive; the
// function it returns prints how many entries shared each cause shown
// (repeats) and how many diagnostics were held back.
func (a *app) startDiagnostics(archiveName string) func() {
	a.shown, a.hidden, a.repeats = 0, 0, repeats{}
	return func() {
		if a.ctx.Err() == nil {
			for _, line := range a.repeats.summary(archiveName) {
				a.prog.Clear()
				fmt.Fprintf(a.stderr, "garc: %s\n", printable.String(line))
			}
		}
		if a.hidden > 0 && a.ctx.Err() == nil {
			a.prog.Clear()
			fmt.Fprintf(a.stderr, "garc: %s: %d more warnings and errors not shown\n", printable.String(archiveName), a.hidden)
		}
		a.shown, a.hidden, a.repeats = 0, 0, repeats{}
	}
}

// diagnostic prefixes err with the archive and entry names unless its
// message starts with them already.
func diagnostic(archiveName, entry string, err error) string {
	msg := userText(err)
	// Layers that each name the archive ("out.7z: out.7z: disk full")
	// say it once.
	if parts := strings.Split(msg, ": "); len(parts) > 2 {
		kept := parts[:1]
		for _, p := range parts[1:] {
			if p != kept[len(kept)-1] {
				kept = append(kept, p)
			}
		}
		msg = strings.Join(kept, ": ")
	}
	if archiveName != "" && strings.HasPrefix(msg, archiveName+": ") {
		return msg
	}
	if entry != "" && !strings.HasPrefix(msg, entry+": ") {
		msg = entry + ": " + msg
	}
	if archiveName != "" {
		msg = archiveName + ": " + msg
	}
	return msg
}

// openArchive opens the archive named on the command line.
func (a *app) openArchive(name string) (archive.Reader, error) {
	open := openArchive
	if name == opener.StdinName {
		open = func(_ string, o *archive.Options) (archive.Reader, error) { return a.openStdin(o) }
	}
	r, err := open(name, a.options(name))
	for err != nil && a.pw.Retry(err) { // a wrong typed password is asked again
		r, err = open(name, a.options(name))
	}
	if err == nil {
		a.volumes = r.Info().Volumes
		if v := a.volumes; len(v) > 1 && !a.g.quiet && filepath.Clean(v[0]) != filepath.Clean(name) && opener.IsLaterVolume(name) {
			a.prog.Clear()
			fmt.Fprintf(a.stderr, "garc: %s: a later volume: the set is read from its first volume, %s\n", printable.String(name), printable.String(v[0]))
		}
		a.warnPartsAfterEnd(name, r)
		for _, w := range opener.OpenWarnings(r) {
			a.warn(name, "", w)
		}
	}
	return r, err
}
