package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/archivefile"
	"github.com/garc-dev/garc/internal/collect"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// The 7z writer behind `garc a` and `garc d`.
func init() {
	createArchive = create7z
	deleteEntries = delete7z
}

// writeOptions maps CreateOptions onto the 7z writer's options.
func writeOptions(o *CreateOptions) (sevenzip.WriteOptions, error) {
	w := sevenzip.WriteOptions{
		Level: o.Level, Method: o.Method, DictSize: uint32(o.Dict),
		Solid: sevenzip.SolidOptions{Off: o.Solid.Off, BlockSize: o.Solid.BlockSize,
			FilesPerBlock: o.Solid.FilesPerBlock, ByExtension: o.Solid.ByExtension},
		NoHeaderCompression: !o.HeaderCompression, EncryptHeaders: o.EncryptHeaders, Password: o.Password,
		Threads: o.Threads, Progress: o.Progress,
	}
	if o.Dict < 0 || o.Dict > 1536<<20 {
		return w, usagef("--dict: %d bytes is out of range", o.Dict)
	}
	switch {
	case o.Level == 0:
		w.Method = "Copy"
	case o.Level < 0:
		w.Level = 5
	}
	// 7-Zip's method parameters ("LZMA2:d=64m:fb=64", "PPMd:o=8:mem=1g")
	// are parsed by the writer; a bad one is a command-line error.
	if err := sevenzip.CheckMethod(w.Method, w.Level); err != nil {
		if errors.Is(err, sevenzip.ErrMethodParam) {
			return w, usagef("--method: %v", err)
		}
		return w, fmt.Errorf("a: method %s: %w", o.Method, err)
	}
	switch len(o.Filters) {
	case 0:
	case 1:
		switch f := strings.ToUpper(o.Filters[0]); f {
		case "OFF", "BCJ", "X86", "ARM64":
			w.Filter = f
		default:
			return w, fmt.Errorf("a: filter %s: %w", o.Filters[0], &archive.UnsupportedError{What: "7z write filter " + o.Filters[0]})
		}
	default:
		return w, &archive.UnsupportedError{What: "7z write filter chain " + strings.Join(o.Filters, "+")}
	}
	if w.Threads <= 0 {
		w.Threads = runtime.NumCPU()
	}
	return w, nil
}

// writeItems converts collected items for the writer.
func writeItems(items []collect.Item, o *CreateOptions) []sevenzip.WriteItem {
	out := make([]sevenzip.WriteItem, len(items))
	for i := range items {
		it := &items[i]
		w := sevenzip.WriteItem{Name: it.Name, Type: it.Type, LinkTarget: it.LinkTarget, Size: it.Size,
			Attributes: it.Attributes, HasAttributes: true, Open: it.Open}
		if o.StoreMTime {
			w.ModTime = it.ModTime
		}
		if o.StoreCTime {
			w.CreateTime = it.ChangeTime
		}
		if o.StoreATime {
			w.AccessTime = it.AccessTime
		}
		out[i] = w
	}
	return out
}

// openBase opens an existing archive at path for updating; it returns nil
// when there is none.
func openBase(path, password string) (*sevenzip.Base, *os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pw := func() (string, error) {
		if password == "" {
			return "", archive.ErrPasswordRequired
		}
		return password, nil
	}
	b, err := sevenzip.OpenBase(f, fi.Size(), &archive.Options{Name: path, Password: pw})
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: cannot update: %w", path, err)
	}
	return b, f, nil
}

// writeArchive writes the archive through a temporary file and renames it
// into place, leaving any existing archive untouched on failure.
func writeArchive(ctx context.Context, path string, volumeSize int64, base *os.File,
	items []sevenzip.WriteItem, wo *sevenzip.WriteOptions) (*sevenzip.WriteStats, error) {
	out, err := archivefile.Create(path, volumeSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, errCreate, err)
	}
	st, err := sevenzip.Write(ctx, out, items, wo)
	if base != nil {
		base.Close()
	}
	if err != nil {
		out.Abort()
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// summary prints the closing line of `a` and `d`.
func summary(w io.Writer, st *sevenzip.WriteStats) {
	ratio := 0.0
	if st.UnpackedSize > 0 {
		ratio = 100 * float64(st.BytesOut) / float64(st.UnpackedSize)
	}
	fmt.Fprintf(w, "%d files, %d folders, %d bytes in, %d bytes out (archive of %d bytes of content: %.1f%%)",
		st.Files, st.Dirs, st.BytesIn, st.BytesOut, st.UnpackedSize, ratio)
	if st.Kept > 0 || st.Skipped > 0 {
		fmt.Fprintf(w, "; %d added, %d kept, %d unchanged skipped, %d blocks copied", st.Added, st.Kept, st.Skipped, st.CopiedFolders)
	}
	fmt.Fprintln(w)
}

// create7z implements `garc a`.
func create7z(ctx context.Context, o CreateOptions) error {
	wo, err := writeOptions(&o)
	if err != nil {
		return err
	}
	errOut := o.Err
	if errOut == nil {
		errOut = io.Discard
	}
	sel, err := newSelector(o.Includes, o.Excludes, o.Recursive)
	if err != nil {
		return err
	}
	var want func(string) bool
	if sel.filtered() {
		want = func(name string) bool { return sel.want(&archive.Entry{Name: name}) }
	}
	stdinName := o.StdinName
	if o.Stdin && stdinName == "" {
		base := filepath.Base(o.Archive)
		stdinName = strings.TrimSuffix(base, filepath.Ext(base))
	}
	warnings := 0
	items, err := collect.Collect(collect.Options{
		Inputs: o.Inputs, Recursive: o.Recursive, Want: want, StoreSymlinks: o.Symlinks == SymlinksStore,
		Stdin: o.Stdin, StdinName: stdinName, Input: o.Input,
		Warn: func(p string, err error) {
			warnings++
			fmt.Fprintf(errOut, "WARNING: %s\n", printable(err.Error()))
		},
	})
	if err != nil {
		return err
	}
	items = withoutArchive(items, o.Archive)
	var base *sevenzip.Base
	var baseFile *os.File
	if o.VolumeSize == 0 {
		if base, baseFile, err = openBase(o.Archive, o.Password); err != nil {
			return err
		}
	}
	if len(items) == 0 && base == nil {
		if warnings > 0 {
			return fmt.Errorf("a: %w", errNoMatch)
		}
		return usagef("a: nothing to add")
	}
	if base != nil {
		wo.Base, wo.Update = base, true
		if base.Info().EncryptedHeaders && o.Password != "" {
			wo.EncryptHeaders = true
		}
	}
	st, err := writeArchive(ctx, o.Archive, o.VolumeSize, baseFile, writeItems(items, &o), &wo)
	if err != nil {
		return err
	}
	if !o.Quiet && o.Out != nil {
		summary(o.Out, st)
	}
	if warnings > 0 {
		return fmt.Errorf("a: %d inputs skipped: %w", warnings, errSkipped)
	}
	return nil
}

// withoutArchive drops the archive being written from the inputs, as
// 7-Zip does for `a archive.7z .`.
func withoutArchive(items []collect.Item, archivePath string) []collect.Item {
	afi, err := os.Stat(archivePath)
	if err != nil {
		return items
	}
	out := items[:0]
	for _, it := range items {
		if it.Path != "" && it.Type == archive.TypeFile {
			if fi, err := os.Stat(it.Path); err == nil && os.SameFile(fi, afi) {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// delete7z implements `garc d`.
func delete7z(ctx context.Context, o DeleteOptions) error {
	sel, err := newSelector(o.Patterns, o.Excludes, o.Recursive)
	if err != nil {
		return err
	}
	base, f, err := openBase(o.Archive, o.Password)
	if err != nil {
		return err
	}
	if base == nil {
		return fmt.Errorf("d: %s: %w", o.Archive, fs.ErrNotExist)
	}
	n := 0
	for _, e := range base.Entries() {
		if sel.want(e) {
			n++
		}
	}
	if n == 0 {
		f.Close()
		return fmt.Errorf("d: %w", errNoMatch)
	}
	wo := sevenzip.WriteOptions{Base: base, Keep: func(e *archive.Entry) bool { return !sel.want(e) },
		Password: o.Password, Threads: o.Threads}
	if wo.Threads <= 0 {
		wo.Threads = runtime.NumCPU()
	}
	if base.Info().EncryptedHeaders && o.Password != "" {
		wo.EncryptHeaders = true
	}
	st, err := writeArchive(ctx, o.Archive, 0, f, nil, &wo)
	if err != nil {
		return err
	}
	if !o.Quiet && o.Out != nil {
		fmt.Fprintf(o.Out, "%d entries deleted; ", n)
		summary(o.Out, st)
	}
	return nil
}
