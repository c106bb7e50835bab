package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/archivefile"
	"github.com/garc-dev/garc/internal/collect"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/selection"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// outKind is the container `garc a` writes.
type outKind int

const (
	out7z     outKind = iota
	outZip            // ZIP
	outTar            // tar, compressed by outFormat.comp when set
	outStream         // one file compressed by outFormat.comp
)

// outFormat is the format of the archive `garc a` writes.
type outFormat struct {
	kind outKind
	comp stream.Kind // tar's compression or the single stream's; 0 none
}

// ext returns the extension a name without one gets.
func (f outFormat) ext() string {
	switch f.kind {
	case outZip:
		return ".zip"
	case outTar:
		if f.comp != 0 {
			return ".tar." + f.comp.Suffix()
		}
		return ".tar"
	case outStream:
		return "." + f.comp.Suffix()
	}
	return ".7z"
}

// typeFormat parses --type (-t) for a: 7z, zip, tar, tar.gz (tgz), tar.bz2,
// tar.xz, tar.zst, tar.lzma, and the single streams gzip (gz), bzip2
// (bz2), xz, zstd (zst) and lzma.
func typeFormat(t string) (outFormat, bool) {
	t = strings.ToLower(t)
	if t == "7z" {
		return outFormat{kind: out7z}, true
	}
	if t == "zip" {
		return outFormat{kind: outZip}, true
	}
	if t == "tar" {
		return outFormat{kind: outTar}, true
	}
	if rest, ok := strings.CutPrefix(t, "tar."); ok {
		if k, ok := streamKind(rest); ok {
			return outFormat{kind: outTar, comp: k}, true
		}
		return outFormat{}, false
	}
	if k, ok := streamKind(t); ok {
		return outFormat{kind: outStream, comp: k}, true
	}
	switch t {
	case "tgz":
		return outFormat{kind: outTar, comp: stream.Gzip}, true
	case "tbz2", "tbz":
		return outFormat{kind: outTar, comp: stream.Bzip2}, true
	case "txz":
		return outFormat{kind: outTar, comp: stream.XZ}, true
	case "tzst":
		return outFormat{kind: outTar, comp: stream.Zstd}, true
	case "tlz":
		return outFormat{kind: outTar, comp: stream.LZMA}, true
	}
	return outFormat{}, false
}

// streamKind parses a single-stream format's name or suffix.
func streamKind(s string) (stream.Kind, bool) {
	switch s {
	case "gz", "gzip":
		return stream.Gzip, true
	case "bz2", "bzip2":
		return stream.Bzip2, true
	case "xz":
		return stream.XZ, true
	case "zst", "zstd":
		return stream.Zstd, true
	case "lzma":
		return stream.LZMA, true
	}
	return 0, false
}

// nameFormat returns the format an archive's name asks for: .zip, .tar,
// .tar.gz, .tgz … and the single-stream extensions; 7z for any other.
func nameFormat(name string) outFormat {
	base := strings.ToLower(filepath.Base(name))
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return outFormat{kind: out7z}
	}
	ext, stem := base[i+1:], base[:i]
	if ext == "zip" {
		return outFormat{kind: outZip}
	}
	if ext == "tar" {
		return outFormat{kind: outTar}
	}
	if f, ok := typeFormat(ext); ok && f.kind == outTar {
		return f // tgz, tbz2, txz, tzst, tlz
	}
	if k, ok := streamKind(ext); ok {
		if strings.HasSuffix(stem, ".tar") {
			return outFormat{kind: outTar, comp: k}
		}
		return outFormat{kind: outStream, comp: k}
	}
	return outFormat{kind: out7z}
}

// outputFormat decides the format of `garc a`: --type when given, else
// the archive's name.
func (a *app) outputFormat(name string) (outFormat, error) {
	if a.g.archiveType != "" {
		f, ok := typeFormat(a.g.archiveType)
		if !ok {
			return f, usagef("garc cannot write archives of type %q (-t%s): 7z, zip, tar, tar.gz, tar.bz2, tar.xz, tar.zst, tar.lzma, gzip, bzip2, xz, zstd or lzma", a.g.archiveType, a.g.archiveType)
		}
		return f, nil
	}
	f := nameFormat(name)
	if f.kind != out7z {
		// A 7z archive under another format's name is updated as 7z,
		// as before garc wrote other formats.
		if fh, err := os.Open(name); err == nil {
			defer fh.Close()
			if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
				if d, ok, _ := opener.Detect(fh, fi.Size()); ok && d.Format == archive.Format7z && d.Offset == 0 {
					return outFormat{kind: out7z}, nil
				}
			}
		}
	}
	return f, nil
}

// reproducibleOptions are --reproducible's settings.
type reproducibleOptions struct {
	on bool
	// epoch clamps the times (SOURCE_DATE_EPOCH, or the Unix epoch).
	epoch time.Time
	// keepModes keeps the permission bits as they are.
	keepModes bool
}

// reproducibleFrom reads --reproducible, --keep-modes and the
// SOURCE_DATE_EPOCH environment variable, which turns it on.
func reproducibleFrom(flag, keepModes bool) (reproducibleOptions, error) {
	r := reproducibleOptions{on: flag, epoch: time.Unix(0, 0), keepModes: keepModes}
	if v, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok && v != "" {
		var sec int64
		if _, err := fmt.Sscan(v, &sec); err != nil || fmt.Sprint(sec) != strings.TrimSpace(v) || sec < 0 {
			return r, usagef("SOURCE_DATE_EPOCH must be a number of seconds, not %q", v)
		}
		r.on, r.epoch = true, time.Unix(sec, 0)
	}
	return r, nil
}

// apply makes a collected item reproducible (collect's ByteOrder puts
// the items in byte order of their names): its modification time
// clamped to the epoch, no access or change time, and unless keepModes
// permission bits 0644 or 0755 (0755 for directories and files with an
// execute bit).
func (r *reproducibleOptions) apply(it *collect.Item) {
	if !r.on {
		return
	}
	if it.ModTime.After(r.epoch) || it.ModTime.IsZero() {
		it.ModTime = r.epoch
	}
	it.AccessTime, it.ChangeTime = time.Time{}, time.Time{}
	if !r.keepModes {
		it.Attributes = normalModeAttributes(it.Attributes)
	}
}

// normalModeAttributes replaces the unix permission bits in 7-Zip
// attributes by 0755 (directories, files with an execute bit, symbolic
// links 0777) or 0644, and sets the read-only bit to match.
func normalModeAttributes(attr uint32) uint32 {
	mode := attr >> 16
	perm := uint32(0o644)
	switch {
	case mode&0o170000 == 0o120000:
		perm = 0o777
	case mode&0o170000 == 0o040000 || mode&0o111 != 0:
		perm = 0o755
	}
	return attr&^(0xFFFF0000|archive.AttrReadOnly) | (mode&0o170000|perm)<<16
}

// unixMode returns the st_mode of collected attributes.
func unixMode(attr uint32) uint32 { return attr >> 16 }

// collectOptions returns the collect options of o: its inputs and
// include patterns, exclusions and links, in byte order of the names
// with --reproducible, skipped inputs reported on o.Err and counted in
// warnings.
func collectOptions(o *CreateOptions, warnings *int) (collect.Options, error) {
	errOut := errWriter(o.Err)
	sel, err := selection.New(nil, o.Excludes, o.Recursive)
	if err != nil {
		return collect.Options{}, err
	}
	stdinName := o.StdinName
	if o.Stdin && stdinName == "" {
		base := filepath.Base(o.Archive)
		stdinName = strings.TrimSuffix(base, filepath.Ext(base))
	}
	opts := collect.Options{
		Inputs: o.Inputs, Recursive: o.Recursive, Exclude: sel.Excludes(), StoreSymlinks: o.Symlinks == SymlinksStore,
		Stdin: o.Stdin, StdinName: stdinName, Input: o.Input, ByteOrder: o.Reproducible.on,
		Warn: func(p string, err error) {
			*warnings++
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Path == p {
				err = pe.Err // "lstat p: cause" says p once
			}
			fmt.Fprintf(errOut, "garc: %s\n", printable.String(diagnostic(o.Archive, p, err)))
		},
	}
	inputGroups(&opts, o.Includes)
	return opts, nil
}

// collectFor collects the inputs of o as create does, reporting skipped
// inputs on o.Err; it returns the items and the number of warnings.
func collectFor(o *CreateOptions) ([]collect.Item, int, error) {
	warnings := 0
	opts, err := collectOptions(o, &warnings)
	if err != nil {
		return nil, 0, err
	}
	items, err := collect.Collect(opts)
	if err != nil {
		return nil, 0, err
	}
	if !o.Stdout {
		items = withoutArchive(items, o.Archive)
	}
	for i := range items {
		o.Reproducible.apply(&items[i])
	}
	return items, warnings, nil
}

// finishCreate prints the summary of a (on stderr, also when the archive
// goes to stdout) and turns skipped inputs into the warning exit code.
func finishCreate(o *CreateOptions, st *sevenzip.WriteStats, start time.Time, warnings int) error {
	if !o.Quiet && o.Out != nil {
		summary(o.Out, st, time.Since(start))
	}
	if warnings > 0 {
		return fmt.Errorf("%s: %d of the inputs not added (%w)", o.Archive, warnings, extract.ErrSkipped)
	}
	return nil
}

// noInputs is the error of a run that collected nothing.
func noInputs(o *CreateOptions, warnings int) error {
	if warnings > 0 {
		return fmt.Errorf("%s: nothing to add: %w", o.Archive, selection.ErrNoMatch)
	}
	return usagef("%s: nothing to add", o.Archive)
}

// createZip implements `garc a` of a ZIP archive: written to stdout with
// -so (entries with data descriptors), a new one as the inputs are
// walked, keeping no list of them (only the central directory grows with
// the entries), or an update of an existing one (see updateZipItems).
func createZip(ctx context.Context, o CreateOptions, stdout io.Writer) error {
	if !o.Stdout {
		if _, err := os.Stat(o.Archive); err == nil {
			return updateZipItems(ctx, &o)
		}
	}
	warnings := 0
	opts, err := collectOptions(&o, &warnings)
	if err != nil {
		return err
	}
	zo := o.Zip
	if o.Progress != nil {
		zo.Progress = o.Progress(func() int64 { return walkSize(opts) })
	}
	ch := &zip.Changes{AddFrom: func(add func(*zip.WriteItem) error) error {
		walked, err := collect.Walk(opts, func(it *collect.Item) error {
			o.Reproducible.apply(it)
			wi := zipItem(it, &o)
			return add(&wi)
		})
		if err == nil && walked.Items == 0 {
			err = errNothingAdded
		}
		return err
	}}
	start := time.Now()
	var st *zip.WriteStats
	if o.Stdout {
		zo.Name, zo.Streamed = o.Archive, true
		st, err = zip.Update(ctx, &pipeTarget{bw: bufio.NewWriterSize(stdout, 256<<10)}, nil, ch, &zo)
		if err != nil {
			err = namePath(o.Archive, err)
		}
	} else {
		st, err = updateZip(ctx, o.Archive, ch, &zo, func(out *archivefile.File) {
			// The temporary file being written may lie among the inputs.
			if ofi, err := out.Stat(); err == nil {
				opts.Skip = func(fi fs.FileInfo) bool { return os.SameFile(fi, ofi) }
			}
		})
	}
	if errors.Is(err, errNothingAdded) {
		return noInputs(&o, warnings)
	}
	if err != nil {
		return err
	}
	return finishCreate(&o, zipStats(st), start, warnings)
}

// updateZipItems adds the collected inputs to the existing ZIP archive
// o.Archive: they are listed first, for the entries they replace.
func updateZipItems(ctx context.Context, o *CreateOptions) error {
	items, warnings, err := collectFor(o)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		if _, serr := os.Stat(o.Archive); serr != nil {
			return noInputs(o, warnings)
		}
	}
	zo := o.Zip
	if o.Progress != nil {
		zo.Progress = o.Progress(func() int64 { return inputSize(items) })
	}
	add := make([]zip.WriteItem, len(items))
	for i := range items {
		add[i] = zipItem(&items[i], o)
	}
	start := time.Now()
	st, err := updateZip(ctx, o.Archive, &zip.Changes{Add: add}, &zo, nil)
	if err != nil {
		return err
	}
	return finishCreate(o, zipStats(st), start, warnings)
}

// zipItem converts a collected item for the ZIP writer.
func zipItem(it *collect.Item, o *CreateOptions) zip.WriteItem {
	w := zip.WriteItem{Name: it.Name, Type: it.Type, LinkTarget: it.LinkTarget, Size: it.Size,
		Mode: unixMode(it.Attributes), Open: it.Open}
	if o.StoreMTime {
		w.ModTime = it.ModTime
	}
	if o.StoreATime {
		w.AccessTime = it.AccessTime
	}
	return w
}

// pipeTarget is standard output as the target of a ZIP archive written
// with data descriptors (zip.WriteOptions.Streamed), which never writes
// back into it.
type pipeTarget struct{ bw *bufio.Writer }

func (p *pipeTarget) Write(b []byte) (int, error) { return p.bw.Write(b) }

func (p *pipeTarget) WriteAt([]byte, int64) (int, error) {
	return 0, errors.New("internal error: a ZIP archive written to a pipe was written back into")
}

func (p *pipeTarget) Commit() error { return p.bw.Flush() }

// Abort flushes what was written: the bytes are gone down the pipe
// already, and the reader sees the archive end where it failed.
func (p *pipeTarget) Abort() error { return p.bw.Flush() }

// zipStats converts a ZIP update's statistics for summary.
func zipStats(st *zip.WriteStats) *sevenzip.WriteStats {
	return &sevenzip.WriteStats{Files: st.Files, Dirs: st.Dirs, Added: st.Added, Kept: st.Kept, Skipped: st.Skipped,
		Deleted: st.Deleted, BytesIn: st.BytesIn, BytesOut: st.BytesOut, UnpackedSize: st.UnpackedSize}
}

// isZipFile reports whether the file at path starts like a ZIP archive
// (a local header, or the end record of an empty one).
func isZipFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	return string(b[:]) == "PK\x03\x04" || string(b[:]) == "PK\x05\x06"
}

// updateZip writes the ZIP archive at path through a temporary file
// renamed into place on success, with the existing one (if any) as its
// base; created, when set, is called with the temporary file before
// anything is written.
func updateZip(ctx context.Context, path string, ch *zip.Changes, zo *zip.WriteOptions, created func(*archivefile.File)) (*zip.WriteStats, error) {
	if err := checkSplitSet(path, 0); err != nil {
		return nil, err
	}
	var base *zip.Existing
	f, err := os.Open(path)
	switch {
	case err == nil:
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", path)
		}
		if fi.Size() > 0 && !isZipFile(path) {
			return nil, fmt.Errorf("%s: not a ZIP archive (garc changes only ZIP archives under a .zip name): %w", path, archive.ErrNotArchive)
		}
		if fi.Size() > 0 {
			base = &zip.Existing{R: f, Size: fi.Size()}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case ch.Delete != nil:
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	out, err := archivefile.Create(path, 0)
	if err != nil {
		if !errors.Is(err, archivefile.ErrWrite) {
			err = fmt.Errorf("%w: %w", err, extract.ErrCreate)
		}
		return nil, err
	}
	if created != nil {
		created(out)
	}
	zo.Name = path
	st, err := zip.Update(ctx, out, base, ch, zo)
	switch {
	case errors.Is(err, zip.ErrNoMatch):
		return nil, selection.ErrNoMatch
	case errors.Is(err, zip.ErrMethod):
		return nil, usagef("%v", err)
	case err != nil:
		return nil, namePath(path, err)
	}
	return st, nil
}

// deleteZip implements `garc d` of a ZIP archive.
func (a *app) deleteZip(name string, sel *selection.Selector) error {
	start := time.Now()
	pw, _ := a.pw.Value()
	zo := zip.WriteOptions{Password: pw, Threads: a.g.threads, MaxDict: a.memory.Limit(), Memory: a.memory}
	st, err := updateZip(a.ctx, name, &zip.Changes{Delete: sel.Want}, &zo, nil)
	if err != nil {
		return err
	}
	if !a.g.quiet {
		summary(a.messages(), zipStats(st), time.Since(start))
	}
	return nil
}

// streamOutput is where a tar or a single stream goes: standard output
// (-so) or a temporary file renamed into place.
type streamOutput struct {
	file *archivefile.File
	bw   *bufio.Writer
	n    int64
}

func (s *streamOutput) Write(p []byte) (int, error) {
	n, err := s.bw.Write(p)
	s.n += int64(n)
	return n, err
}

// openStreamOutput starts writing a tar or single stream: to stdout, or
// to a new file at o.Archive, which must not exist (compressed files are
// written whole, not updated; createTar updates an existing tar).
func openStreamOutput(o *CreateOptions, stdout io.Writer) (*streamOutput, error) {
	if o.Stdout {
		return &streamOutput{bw: bufio.NewWriterSize(stdout, 256<<10)}, nil
	}
	if _, err := os.Lstat(o.Archive); err == nil {
		return nil, fmt.Errorf("%s exists: garc writes compressed files whole and does not update them (remove it first): %w", o.Archive, archive.ErrUnsupported)
	}
	return createStreamOutput(o.Archive)
}

// createStreamOutput starts writing a tar or single stream to a temporary
// file renamed to path by finish.
func createStreamOutput(path string) (*streamOutput, error) {
	f, err := archivefile.Create(path, 0)
	if err != nil {
		if !errors.Is(err, archivefile.ErrWrite) {
			err = fmt.Errorf("%w: %w", err, extract.ErrCreate)
		}
		return nil, err
	}
	return &streamOutput{file: f, bw: bufio.NewWriterSize(f, 256<<10)}, nil
}

// finish flushes the output and, for a file, commits it (abort: removes
// it).
func (s *streamOutput) finish(err error) error {
	if err == nil {
		err = s.bw.Flush()
	}
	if s.file == nil {
		return err
	}
	if err != nil {
		s.file.Abort()
		return err
	}
	return s.file.Commit()
}

// compressor wraps out in the compression of f (none for a plain tar).
func compressor(out io.Writer, f outFormat, o *CreateOptions, name string, size int64, mtime time.Time) (io.WriteCloser, error) {
	if f.comp == 0 {
		return nopCloser{out}, nil
	}
	so := stream.WriterOptions{Level: o.Level, Threads: o.Threads, Size: size, MaxMemory: o.Write.MaxDict,
		Notice: func(s string) { fmt.Fprintf(errWriter(o.Err), "garc: %s\n", s) }}
	if f.kind == outStream {
		so.Name = name
		if o.StoreMTime {
			so.ModTime = mtime
		}
	}
	return stream.NewWriter(out, f.comp, so)
}

// nopCloser is a WriteCloser whose Close does nothing.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// progressReader reports the bytes read through it.
type progressReader struct {
	r    io.Reader
	ctx  context.Context
	done *int64
	name string
	fn   func(int64, string)
}

func (p *progressReader) Read(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := p.r.Read(b)
	*p.done += int64(n)
	if p.fn != nil && n > 0 {
		p.fn(*p.done, p.name)
	}
	return n, err
}

// createStream implements `garc a` of a single compressed file: one input
// file (or standard input), as 7-Zip compresses one.
func createStream(ctx context.Context, o CreateOptions, f outFormat, stdout io.Writer) error {
	items, warnings, err := collectFor(&o)
	if err != nil {
		return err
	}
	var files []collect.Item
	for _, it := range items {
		if it.Type == archive.TypeFile {
			files = append(files, it)
		}
	}
	switch {
	case len(files) == 0:
		return noInputs(&o, warnings)
	case len(files) > 1 || len(items) > 1:
		return usagef("%s: a %s file holds one file, not %d entries (write a .tar%s to hold several)", o.Archive, f.comp, len(items), f.ext())
	}
	it := files[0]
	out, err := openStreamOutput(&o, stdout)
	if err != nil {
		return err
	}
	var prog func(int64, string)
	if o.Progress != nil {
		prog = o.Progress(func() int64 { return it.Size })
	}
	start := time.Now()
	var done int64
	err = func() error {
		rc, err := it.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		w, err := compressor(out, f, &o, filepath.Base(it.Name), it.Size, it.ModTime)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, &progressReader{r: rc, ctx: ctx, done: &done, name: it.Name, fn: prog}); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	}()
	if err = out.finish(err); err != nil {
		return namePath(o.Archive, err)
	}
	st := &sevenzip.WriteStats{Files: 1, Added: 1, BytesIn: done, BytesOut: out.n, UnpackedSize: done}
	return finishCreate(&o, st, start, warnings)
}

// createTar implements `garc a` of a tar archive, plain or compressed,
// written as a stream in constant memory: the inputs are walked as the
// entries are written (collect.Walk), and no list of them is kept. An
// existing archive (not with -so) is updated: see updateTar.
func createTar(ctx context.Context, o CreateOptions, f outFormat, stdout io.Writer) error {
	if !o.Stdout {
		base, err := openTarBase(o.Archive, f)
		if err != nil {
			return err
		}
		if base != nil {
			defer base.close()
			return updateTar(ctx, &o, f, base)
		}
	}
	warnings := 0
	opts, err := collectOptions(&o, &warnings)
	if err != nil {
		return err
	}
	out, err := openStreamOutput(&o, stdout)
	if err != nil {
		return err
	}
	if out.file != nil {
		// The temporary file being written may lie among the inputs.
		if ofi, err := out.file.Stat(); err == nil {
			opts.Skip = func(fi fs.FileInfo) bool { return os.SameFile(fi, ofi) }
		}
	}
	var prog func(int64, string)
	if o.Progress != nil {
		prog = o.Progress(func() int64 { return walkSize(opts) })
	}
	start := time.Now()
	ta := newTarAdder(ctx, &o, prog)
	var walked collect.Stats
	err = func() error {
		cw, err := compressor(out, f, &o, "", -1, time.Time{})
		if err != nil {
			return err
		}
		ta.tw = tar.NewWriter(cw)
		walked, err = collect.Walk(opts, func(it *collect.Item) error {
			o.Reproducible.apply(it)
			return ta.add(it)
		})
		if err == nil && walked.Items == 0 {
			err = errNothingAdded
		}
		if err == nil {
			err = ta.tw.Close()
		}
		if err != nil {
			cw.Close()
			return err
		}
		return cw.Close()
	}()
	if err = out.finish(err); err != nil {
		if errors.Is(err, errNothingAdded) {
			return noInputs(&o, warnings)
		}
		return namePath(o.Archive, err)
	}
	ta.st.BytesOut = out.n
	return finishCreate(&o, &ta.st, start, warnings+ta.warnings)
}

// errNothingAdded ends a tar written as its inputs are walked when the
// walk found nothing to add: the output is dropped.
var errNothingAdded = errors.New("nothing to add")

// walkSize walks the inputs of opts once more, without warnings, and
// returns the size of their files for the progress bar (-1 with standard
// input).
func walkSize(opts collect.Options) int64 {
	opts.Warn = nil
	var n int64
	collect.Walk(opts, func(it *collect.Item) error {
		switch {
		case it.Type != archive.TypeFile:
		case it.Size < 0 || n < 0:
			n = -1
		default:
			n += it.Size
		}
		return nil
	})
	return n
}

// updateTar writes the tar archive o.Archive again, through a temporary
// file renamed into place, with the members of base that stay followed
// by the collected items: the items are listed first, for the members
// they replace.
func updateTar(ctx context.Context, o *CreateOptions, f outFormat, base *tarBase) error {
	items, warnings, err := collectFor(o)
	if err != nil {
		return err
	}
	out, err := createStreamOutput(o.Archive)
	if err != nil {
		return err
	}
	var prog func(int64, string)
	if o.Progress != nil {
		prog = o.Progress(func() int64 { return inputSize(items) })
	}
	start := time.Now()
	ta := newTarAdder(ctx, o, prog)
	err = func() error {
		cw, err := compressor(out, f, o, "", -1, time.Time{})
		if err != nil {
			return err
		}
		ta.tw = tar.NewWriter(cw)
		skip, err := base.copyTo(ctx, ta.tw, o.Archive, items, nil, &ta.st, &archive.Options{MaxDict: o.Write.MaxDict, Memory: o.Write.Memory, Threads: o.Threads})
		if err != nil {
			cw.Close()
			return err
		}
		for i := range items {
			if skip[i] {
				continue
			}
			if err := ta.add(&items[i]); err != nil {
				cw.Close()
				return err
			}
		}
		if err := ta.tw.Close(); err != nil {
			cw.Close()
			return err
		}
		return cw.Close()
	}()
	if err = out.finish(err); err != nil {
		return namePath(o.Archive, err)
	}
	ta.st.BytesOut = out.n
	return finishCreate(o, &ta.st, start, warnings+ta.warnings)
}

// tarAdder writes the new entries of a tar archive, one at a time.
type tarAdder struct {
	ctx    context.Context
	o      *CreateOptions
	tw     *tar.Writer
	links  map[fileKey]string
	owners *ownerNames
	done   int64
	prog   func(int64, string)
	buf    []byte
	st     sevenzip.WriteStats
	// warnings counts the files that changed size while they were read.
	warnings int
}

func newTarAdder(ctx context.Context, o *CreateOptions, prog func(int64, string)) *tarAdder {
	return &tarAdder{ctx: ctx, o: o, links: map[fileKey]string{}, owners: &ownerNames{}, prog: prog,
		buf: make([]byte, tarCopyBuffer)}
}

// add writes the entry of one item.
func (t *tarAdder) add(it *collect.Item) error {
	if err := t.ctx.Err(); err != nil {
		return err
	}
	n, err := writeTarItem(t.ctx, t.tw, it, t.o, t.links, t.owners, &t.done, t.prog, t.buf)
	if err != nil {
		return fmt.Errorf("%s: %w", it.Name, err)
	}
	if n < 0 {
		t.warnings++
	}
	if it.Type == archive.TypeDir {
		t.st.Dirs++
	} else {
		t.st.Files++
		t.st.UnpackedSize += max(it.Size, 0)
	}
	t.st.Added++
	t.st.BytesIn = t.done
	return nil
}

// fileKey identifies a file for hard links: device and inode.
type fileKey struct{ dev, ino uint64 }

// tarCopyBuffer is the size of the buffer createTar reads the files
// through, one for the whole archive: reads of 256 KiB, as few system
// calls as GNU tar makes, and no buffer per file for the collector.
const tarCopyBuffer = 256 << 10

// writeTarItem writes one item: a hard link when its file was written
// already under another name, a sparse file with its holes left out. Its
// owner, link count and blocks are those collect's stat recorded. The
// content is copied through buf. It returns -1 when the file changed
// size while it was read (its entry is then padded with zeros or cut at
// the size its header gave, a warning).
func writeTarItem(ctx context.Context, tw *tar.Writer, it *collect.Item, o *CreateOptions, links map[fileKey]string, owners *ownerNames, done *int64, prog func(int64, string), buf []byte) (int, error) {
	mode := unixMode(it.Attributes)
	h := tar.WriteHeader{Name: it.Name, Type: it.Type, Linkname: it.LinkTarget, Mode: int64(mode & 0o7777), Size: max(it.Size, 0)}
	if o.StoreMTime {
		h.ModTime = it.ModTime
	}
	if !o.Reproducible.on {
		if o.StoreATime {
			h.AccessTime = it.AccessTime
		}
		if o.StoreCTime {
			h.ChangeTime = it.ChangeTime
		}
	}
	own := &it.Owner
	if !o.Reproducible.on && own.OK {
		h.UID, h.GID = own.UID, own.GID
		h.Uname, h.Gname = owners.user(own.UID), owners.group(own.GID)
	}
	if it.Type == archive.TypeFile && own.OK && own.Nlink > 1 {
		key := fileKey{dev: own.Dev, ino: own.Ino}
		if first, ok := links[key]; ok {
			h.Type, h.Linkname, h.Size = archive.TypeHardlink, first, 0
			return 0, tw.WriteHeader(&h)
		}
		links[key] = it.Name
	}
	if it.Type != archive.TypeFile {
		h.Size = 0
		return 0, tw.WriteHeader(&h)
	}
	if it.Size < 0 {
		return 0, writeTarStdin(ctx, tw, &h, it, o, done, prog)
	}
	var rc io.ReadCloser
	if own.OK && own.Blocks*512 < it.Size {
		// Fewer blocks than the size needs: there may be holes.
		var segs []tar.SparseSegment
		var sparse bool
		if segs, rc, sparse = sparseSegments(it.Path, it.Size); sparse {
			h.Sparse = segs
		}
	}
	if rc == nil {
		var err error
		if rc, err = it.Open(); err != nil {
			return 0, err
		}
	}
	defer rc.Close()
	if err := tw.WriteHeader(&h); err != nil {
		return 0, err
	}
	want := h.Size
	if h.Sparse != nil {
		want = 0
		for _, s := range h.Sparse {
			want += s.Length
		}
	}
	src := &io.LimitedReader{R: &progressReader{r: rc, ctx: ctx, done: done, name: it.Name, fn: prog}, N: want}
	n, err := io.CopyBuffer(tw, src, buf)
	if err == nil && n < want {
		// The file shrank: the header promised want bytes.
		if _, err := io.CopyN(tw, zeroReader{}, want-n); err != nil {
			return 0, err
		}
		fmt.Fprintf(errWriter(o.Err), "garc: %s\n", printable.String(diagnostic(o.Archive, it.Path, fmt.Errorf("file shrank by %d bytes while it was read; padded with zeros", want-n))))
		return -1, nil
	}
	return 0, err
}

// zeroReader reads zeros.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// errWriter returns w, or io.Discard for nil.
func errWriter(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// otherOptions completes the options of `garc a` for the formats other
// than 7z: the archive's name (a name without extension gets the format's
// own), the level and method, the password and the encryption.
func (a *app) otherOptions(o CreateOptions, args []string, f *createFlags, format outFormat) (CreateOptions, error) {
	o.Archive = args[0]
	if !strings.Contains(filepath.Base(o.Archive), ".") {
		o.Archive += format.ext()
	}
	if o.Stdout && format.kind == out7z {
		return o, usagef("--stdout (-so) writes ZIP and tar archives and compressed files, not 7z archives")
	}
	if f.level < -1 || f.level > 9 {
		return o, usagef("%s: the level must be 0 to 9", typedSwitch(a.args, "--level"))
	}
	o.Level, o.Threads = f.level, a.g.threads
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	pw, _ := a.pw.Value()
	switch {
	case format.kind != outZip && f.level == 0:
		return o, usagef("%s: -mx0 stores; tar archives and compressed files are compressed at levels 1 to 9 (write a plain .tar to store)", typedSwitch(a.args, "--level"))
	case format.kind != outZip && (f.method != "" || len(f.methodParams) > 0 || len(f.filters) > 0):
		return o, usagef("--method and its parameters choose the method of 7z and ZIP archives; the extension chooses a tar's compression")
	case format.kind != outZip && f.encryption != "":
		return o, usagef("--encryption (-mem) chooses the encryption of ZIP archives")
	case format.kind != outZip && pw != "":
		return o, usagef("tar archives and compressed files cannot be encrypted: write a 7z or ZIP archive")
	case f.volumeSize != "":
		return o, usagef("--volume-size splits 7z archives only")
	}
	if format.kind == outZip {
		o.Zip = zip.WriteOptions{Method: f.method, Level: f.level, Password: pw, Threads: o.Threads,
			MaxDict: a.memory.Limit(), Memory: a.memory}
		if o.Reproducible.on {
			o.Zip.Location = time.UTC
		}
		if len(f.methodParams) > 0 || len(f.filters) > 0 {
			return o, usagef("ZIP methods take no parameters or filters here (%s)", strings.Join(append(f.methodParams, f.filters...), ", "))
		}
		o.Zip.Encryption = f.encryption
		if err := zip.CheckOptions(&o.Zip); err != nil {
			return o, usagef("%v", err)
		}
		if o.Zip.Encryption != "" && pw == "" {
			return o, usagef("--encryption=%s (-mem) needs a password (-p)", o.Zip.Encryption)
		}
	}
	if err := a.createInputs(&o, f); err != nil {
		return o, err
	}
	return o, nil
}
