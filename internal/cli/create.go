package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/progress"
	"github.com/garc-dev/garc/internal/selection"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/zip"
	"github.com/spf13/cobra"
)

// SymlinkMode says how `garc a` treats symbolic links among its inputs.
type SymlinkMode int

// Symlink modes.
const (
	SymlinksFollow SymlinkMode = iota // archive what the link points to (default)
	SymlinksStore                     // store the link itself (7-Zip -snl)
)

// CreateOptions is everything `garc a` was asked to do: the inputs and
// how to collect them here, the archive's format settings in Write.
type CreateOptions struct {
	// Archive is the path of the archive to create or update.
	Archive string
	// Inputs are the files and directories to add, as given; directories
	// are added with their contents. Recursive makes wildcard inputs match
	// in subdirectories too (7-Zip -r).
	Inputs    []string
	Recursive bool
	// Includes are inputs too, as 7-Zip's -i! (a recursion prefix "**/"
	// or "./" sets their own); Excludes drop files and directories by
	// stored name with 7-Zip's -x! rules (see internal/selection; list
	// files already expanded).
	Includes, Excludes []string
	// StoreMTime, StoreCTime and StoreATime choose the times stored for
	// new entries (7-Zip -mtm, -mtc, -mta; by default only the
	// modification time, as 7-Zip does).
	StoreMTime, StoreCTime, StoreATime bool
	// VolumeSize splits the output into NAME.7z.001, .002 … of this many
	// bytes; 0 writes one file.
	VolumeSize int64
	// Symlinks says whether to follow or store symbolic links.
	Symlinks SymlinkMode
	// Stdin reads one file's content from Input and stores it as
	// StdinName (7-Zip -si).
	Stdin     bool
	StdinName string
	Input     io.Reader
	// Quiet suppresses informational output.
	Quiet bool
	// Out and Err receive informational output and warnings.
	Out, Err io.Writer
	// Progress, when set, is called before the first file is read with
	// a function returning the inputs' total size (-1 when unknown:
	// standard input), which it calls only when a progress bar shows it
	// (a tar written as the inputs are walked counts them in a walk of
	// its own), and returns the function that receives the bytes read so
	// far, or nil.
	Progress func(total func() int64) func(done int64, name string)
	// Write is the archive's method, level, solid blocks, encryption and
	// threads; its Progress is called with bytes read so far.
	Write sevenzip.WriteOptions
	// Zip is the method, level, encryption and threads of a ZIP archive.
	Zip zip.WriteOptions
	// Level (-1: the default) and Threads compress a tar or a single
	// stream.
	Level, Threads int
	// Stdout writes a tar or single stream to Out instead of Archive
	// (7-Zip -so).
	Stdout bool
	// Reproducible sorts the entries by name, clamps their times and
	// normalises owners and modes (--reproducible, SOURCE_DATE_EPOCH).
	Reproducible reproducibleOptions
}

// createFlags are the flags of `garc a`.
type createFlags struct {
	level          int
	method         string
	methodParams   []string
	filters        []string
	mixedEncrypt   bool
	dict           string
	solid          string
	headerCompress bool
	encryptHeaders bool
	volumeSize     string
	symlinks       string
	stdin          bool
	stdinName      string
	storeMTime     bool
	storeCTime     bool
	storeATime     bool
	stdout         bool
	encryption     string
	reproducible   bool
	keepModes      bool
}

func (a *app) createCommand() *cobra.Command {
	var f createFlags
	cmd := &cobra.Command{
		Use:     "a ARCHIVE [FILES...]",
		Aliases: []string{"add"},
		Short:   "create a 7z, ZIP or tar archive or a compressed file, or add files to a 7z or ZIP archive",
		Long: `Create an archive from files and directories (7-Zip switches in
parentheses): --level (-mx9), --method (-m0=LZMA2), --filter (-m0=BCJ,
-mf=off), --dict (-md=64m), --solid (-ms=on|off|SIZE|NUMf|e),
--header-compression (-mhc), --encrypt-headers (-mhe=on), --password (-p),
--threads (-mmt4), --volume-size (-v100m), --symlinks=store (-snl),
--stdin (-si, -siNAME), -r, @LISTFILE, --include (-i!P, -ir!P: more
inputs, as in 7-Zip) and --exclude (-x!P, -xr!P, -xr-!P: 7-Zip's recursion
rules: -x!*.log drops top-level .log files only, -xr!*.log every one).

The format follows --type (-t7z, -tzip, -ttar, -ttar.gz …, -tgzip, -txz …)
or else ARCHIVE's name: .zip writes ZIP (--method Deflate (default), Store,
BZip2, LZMA, ZSTD or XZ, 7-Zip's -mm=; with a password WinZip AES-256, or
ZipCrypto with --encryption=ZipCrypto, 7-Zip's -mem=ZipCrypto);
.tar, .tar.gz (.tgz), .tar.bz2, .tar.xz, .tar.zst and .tar.lzma write a
tar as a stream (to standard output with --stdout, -so), with pax headers
where ustar cannot hold a name, size, time or id, links as links and
sparse files sparse; .gz, .bz2, .xz, .zst and .lzma compress one file; any
other name writes 7z: an extension of a format garc does not write (.rar,
.cab …) is refused (exit 7) unless the file is a 7z archive already, and
a name without extension gets the format's extension appended, as 7-Zip
does. Only 7z and ZIP archives are updated; tar archives and compressed
files are written whole. --reproducible (or the SOURCE_DATE_EPOCH
variable) writes the same bytes for the same files: entries in byte order
of their names, times clamped to SOURCE_DATE_EPOCH (or 0), no owners,
access or change times, modes 0644/0755 unless --keep-modes. RAR
archives, split archives (.001, .002 …, also named by
their stem: set.7z when only set.7z.001 … exist) and self-extractors
cannot be changed (exit 2), and --volume-size does not write over the
parts of an existing split set. Adding to an archive whose entries are
encrypted needs their password; adding without one (new entries
unencrypted) or with another one is refused unless
--allow-mixed-encryption is given.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := a.outputFormat(args[0])
			if err != nil {
				return err
			}
			opts, err := a.createOptions(cmd, args, &f, format)
			if err != nil {
				return err
			}
			defer startHeapLimiter()()
			opts.Progress = func(total func() int64) func(int64, string) {
				mode, t := a.progressMode(opts.Stdout), int64(-1)
				if progress.ShowsBar(mode, a.g.quiet, a.stderr) {
					t = total()
				}
				if a.prog = progress.New(mode, a.g.quiet, a.stderr, t); a.prog != nil {
					return a.prog.Set
				}
				return nil
			}
			switch format.kind {
			case outZip:
				err = createZip(a.ctx, opts, a.stdout)
			case outTar:
				err = createTar(a.ctx, opts, format, a.stdout)
			case outStream:
				err = createStream(a.ctx, opts, format, a.stdout)
			default:
				err = create(a.ctx, opts)
			}
			a.prog.Finish()
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.level, "level", -1, "compression level 0 (store) to 9 (ultra)")
	fl.Lookup("level").DefValue = "5; 6 for .gz, .tar.gz, .xz and .tar.xz, as gzip and xz" // -1, not given: 5 (or the method's own), stream.DefaultLevel
	fl.StringVar(&f.method, "method", "", "compression method: LZMA2, LZMA, PPMd, BZip2, Deflate, Copy, with 7-Zip's parameters (LZMA2:d=64m:fb=64, PPMd:o=8:mem=256m)")
	stringArrayVar(fl, &f.methodParams, "method-param", "a parameter of the method, e.g. fb=64 or mem=256m (repeatable; 7-Zip -mfb=64)")
	stringArrayVar(fl, &f.filters, "filter", "filter before the method: BCJ, BCJ2, ARM64, Delta:4 …, or off")
	fl.StringVar(&f.dict, "dict", "", "dictionary size, e.g. 64m")
	fl.StringVar(&f.solid, "solid", "on", "solid blocks: on, off, a size (4g), a file count (100f), e (per extension)")
	fl.BoolVar(&f.headerCompress, "header-compression", true, "compress the archive header")
	fl.BoolVar(&f.encryptHeaders, "encrypt-headers", false, "encrypt the header (file names) too; needs a password")
	fl.StringVar(&f.volumeSize, "volume-size", "", "split into volumes of this size (e.g. 100m)")
	fl.StringVar(&f.symlinks, "symlinks", "follow", "symbolic links: follow, or store as links (-snl)")
	fl.BoolVar(&f.stdin, "stdin", false, "read the content of one file from standard input (-si)")
	fl.StringVar(&f.stdinName, "stdin-name", "", "name to store standard input under (-siNAME)")
	fl.BoolVar(&f.storeMTime, "store-mtime", true, "store modification times (-mtm)")
	fl.BoolVar(&f.storeCTime, "store-ctime", false, "store the files' change times as creation times (-mtc=on)")
	fl.BoolVar(&f.storeATime, "store-atime", false, "store access times (-mta=on)")
	fl.BoolVar(&f.mixedEncrypt, "allow-mixed-encryption", false, "add to an archive with encrypted entries without their password (new entries unencrypted) or with another one")
	fl.StringVar(&f.encryption, "encryption", "", "ZIP encryption with a password: AES256 (the default) or ZipCrypto (-mem=)")
	fl.BoolVar(&f.stdout, "stdout", false, "write a tar or compressed file to standard output (-so)")
	fl.BoolVar(&f.reproducible, "reproducible", false, "the same bytes for the same files: entries sorted by name, times clamped to $SOURCE_DATE_EPOCH (or 0), no owners, modes 0644/0755 (set by SOURCE_DATE_EPOCH too)")
	fl.BoolVar(&f.keepModes, "keep-modes", false, "with --reproducible: keep the permission bits")
	return cmd
}

// parseDictSize parses --dict (-md): a size, where a plain number up to
// 40 means that power of two, as in 7-Zip ("-md=24" is 16 MiB).
func parseDictSize(s string) (int64, error) {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 && n <= 40 {
		return 1 << n, nil
	}
	return parseSize(s)
}

// parseSolid parses the --solid value.
func parseSolid(s string) (sevenzip.SolidOptions, error) {
	var m sevenzip.SolidOptions
	for _, part := range strings.Split(strings.ToLower(s), ",") {
		switch {
		case part == "on" || part == "true" || part == "":
		case part == "off" || part == "false":
			m.Off = true
		case part == "e":
			m.ByExtension = true
		case strings.HasSuffix(part, "f"):
			n, err := strconv.Atoi(strings.TrimSuffix(part, "f"))
			if err != nil || n <= 0 {
				return m, usagef("--solid: invalid file count %q", part)
			}
			m.FilesPerBlock = n
		default:
			n, err := parseSize(part)
			if err != nil || n <= 0 {
				return m, usagef("--solid: invalid value %q", part)
			}
			m.BlockSize = n
		}
	}
	return m, nil
}

func (a *app) createOptions(cmd *cobra.Command, args []string, f *createFlags, format outFormat) (CreateOptions, error) {
	o := CreateOptions{
		Inputs: args[1:], Recursive: a.g.recursive,
		StoreMTime: f.storeMTime, StoreCTime: f.storeCTime, StoreATime: f.storeATime,
		Stdin: f.stdin || f.stdinName != "", StdinName: f.stdinName, Quiet: a.g.quiet,
		Out: a.messages(), Err: a.messages(),
		Write: sevenzip.WriteOptions{Level: f.level, Method: f.method, Filter: strings.Join(f.filters, "+"),
			NoHeaderCompression: !f.headerCompress, EncryptHeaders: f.encryptHeaders,
			Threads: a.g.threads, MixedEncryption: f.mixedEncrypt,
			MaxDict: a.memory.Limit(), Memory: a.memory},
	}
	var err error
	if o.Reproducible, err = reproducibleFrom(f.reproducible, f.keepModes); err != nil {
		return o, err
	}
	if o.Reproducible.on {
		o.StoreCTime, o.StoreATime = false, false
	}
	o.Stdout = f.stdout
	if format.kind != out7z {
		return a.otherOptions(o, args, f, format)
	}
	if o.Stdout {
		return o, usagef("--stdout (-so) writes ZIP and tar archives and compressed files, not 7z archives")
	}
	o.Archive = archiveName(args[0])
	if err := checkForeignName(o.Archive); err != nil {
		return o, err
	}
	o.Write.Name = o.Archive
	w := &o.Write
	switch {
	case w.Level < -1 || w.Level > 9:
		return o, usagef("%s: the level must be 0 to 9", typedSwitch(a.args, "--level"))
	case w.Level == 0:
		w.Method = "Copy" // 7-Zip's -mx0
	}
	if len(f.methodParams) > 0 {
		if w.Method == "" {
			w.Method = "LZMA2"
		}
		for _, p := range f.methodParams {
			w.Method += ":" + p
		}
	}
	if w.DictSize, err = parseDictSize(f.dict); err != nil {
		return o, usagef("--dict: %v", err)
	}
	if o.VolumeSize, err = parseSize(f.volumeSize); err != nil {
		return o, usagef("--volume-size: %v", err)
	}
	if w.Solid, err = parseSolid(f.solid); err != nil {
		return o, err
	}
	// A bad method parameter is a command-line error, found before any
	// input is read.
	if err := sevenzip.CheckOptions(w); errors.Is(err, sevenzip.ErrMethodParam) {
		return o, usagef("%v", err)
	}
	if err := a.createInputs(&o, f); err != nil {
		return o, err
	}
	// The password: given, or typed twice at the prompt of -p alone
	// (prompt.Source.Resolve asked before anything was read).
	if v, ok := a.pw.Value(); ok {
		w.Password = v
	}
	if w.EncryptHeaders && w.Password == "" {
		return o, usagef("--encrypt-headers (-mhe) needs a password")
	}
	return o, nil
}

// createInputs fills the inputs of `a`: the files, list files, include
// and exclude patterns, symbolic links and standard input.
func (a *app) createInputs(o *CreateOptions, f *createFlags) error {
	var err error
	switch f.symlinks {
	case "follow":
		o.Symlinks = SymlinksFollow
	case "store":
		o.Symlinks = SymlinksStore
	default:
		return usagef("--symlinks must be follow or store")
	}
	if o.Includes, err = selection.ExpandListFiles(a.g.includes); err != nil {
		return err
	}
	if o.Excludes, err = selection.ExpandListFiles(a.g.excludes); err != nil {
		return err
	}
	var inputs []string
	for _, in := range o.Inputs {
		if strings.HasPrefix(in, "@") && len(in) > 1 {
			list, err := selection.ExpandListFiles([]string{in})
			if err != nil {
				return err
			}
			inputs = append(inputs, list...)
		} else {
			inputs = append(inputs, in)
		}
	}
	o.Inputs = inputs
	if o.Stdin {
		if a.g.passwordStdin {
			return usagef("--stdin and --password-stdin both need standard input")
		}
		o.Input = a.stdinB
		if len(o.Inputs) > 0 {
			return usagef("--stdin takes no input files")
		}
	} else if len(o.Inputs) == 0 && len(o.Includes) == 0 {
		return usagef("a: no files to add")
	}
	return nil
}

func (a *app) deleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "d ARCHIVE PATTERNS...",
		Aliases: []string{"delete"},
		Short:   "delete entries from a 7z, ZIP or tar archive",
		Long: `Delete the entries matching PATTERNS from a 7z, ZIP or tar archive; untouched
solid blocks, ZIP entries and tar members are copied as they are (a
compressed tar is compressed again with its method). A name without
extension gets .7z appended, as 7-Zip does. RAR archives are read-only,
and split archives (.001, .002 …, also named by their stem) and
self-extractors cannot be changed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pats, err := selection.ExpandListFiles(append(args[1:], a.g.includes...))
			if err != nil {
				return err
			}
			if len(pats) == 0 {
				return usagef("d: no entries named")
			}
			defer startHeapLimiter()()
			exc, err := selection.ExpandListFiles(a.g.excludes)
			if err != nil {
				return err
			}
			name := archiveName(args[0])
			sel, err := selection.New(pats, exc, a.g.recursive)
			if err != nil {
				return err
			}
			if f, ferr := a.outputFormat(name); ferr == nil && f.kind == outTar {
				err := a.deleteTar(name, f, sel)
				if errors.Is(err, selection.ErrNoMatch) {
					if r, oerr := a.openArchive(name); oerr == nil {
						defer r.Close()
						return sel.NoMatch(name, r.Entries(), false)
					}
				}
				return err
			}
			if isZipFile(name) {
				err := a.deleteZip(name, sel)
				if errors.Is(err, selection.ErrNoMatch) {
					if r, oerr := a.openArchive(name); oerr == nil {
						defer r.Close()
						return sel.NoMatch(name, r.Entries(), false)
					}
				}
				return err
			}
			pw, _ := a.pw.Value()
			wo := sevenzip.WriteOptions{Name: name, Password: pw, Threads: a.g.threads,
				MaxDict: a.memory.Limit(), Memory: a.memory}
			start := time.Now()
			st, err := update(a.ctx, name, 0, &sevenzip.Changes{Delete: sel.Want}, &wo)
			if errors.Is(err, selection.ErrNoMatch) {
				// Name the patterns that matched nothing.
				if r, oerr := a.openArchive(name); oerr == nil {
					defer r.Close()
					return sel.NoMatch(name, r.Entries(), false)
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			if err != nil {
				return err
			}
			if !a.g.quiet {
				summary(a.messages(), st, time.Since(start))
			}
			return nil
		},
	}
}
