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
	"slices"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/archivefile"
	"github.com/garc-dev/garc/internal/argv"
	"github.com/garc-dev/garc/internal/collect"
	"github.com/garc-dev/garc/internal/extract"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/progress"
	"github.com/garc-dev/garc/internal/selection"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// foreignExtension reports whether ext is an archive or compression
// extension of a format other than 7z: `garc a out.zip` would write 7z
// data under a name that promises something else. (A switch rather than
// a map: nothing to build when the process starts.)
func foreignExtension(ext string) bool {
	switch ext {
	case "zip", "zipx", "jar", "war", "apk", "tar", "gz", "tgz",
		"taz", "z", "bz2", "tbz", "tbz2", "xz", "txz", "lz",
		"tlz", "lzma", "lz4", "zst", "tzst", "br", "rar",
		"cab", "iso", "img", "udf", "wim", "swm", "esd", "arj",
		"lzh", "lha", "cpio", "rpm", "deb", "dmg", "xar", "pkg",
		"msi", "chm", "vhd", "vhdx", "vmdk", "qcow2", "squashfs":
		return true
	}
	return false
}

// archiveName returns the name of the archive `garc a` or `garc d`
// writes: a name without extension gets ".7z" appended, as 7-Zip does.
func archiveName(name string) string {
	if !strings.Contains(filepath.Base(name), ".") {
		return name + ".7z"
	}
	return name
}

// checkForeignName refuses to let `garc a` write 7z data under a name
// whose extension belongs to another format (exit 7), unless the file is
// a 7z archive already; an existing RAR archive is read-only.
func checkForeignName(name string) error {
	base := filepath.Base(name)
	i := strings.LastIndexByte(base, '.')
	ext := strings.ToLower(base[i+1:])
	// A later volume's name (x.r00), but not a raw split part
	// (a.7z.001), which update refuses when the set exists.
	volume := i > 0 && opener.VolumeSetStem(base) == base[:i] && !isRawSplitExt(base[i:])
	if i < 0 || !foreignExtension(ext) && !volume {
		return nil
	}
	f, err := openExisting(name)
	if f != nil {
		f.Close() // a 7z archive under another name: it is updated
		return nil
	}
	if errors.Is(err, archive.ErrUnsupported) {
		return err // a RAR archive or a split one
	}
	stem := base[:i]
	if j := strings.LastIndexByte(stem, '.'); j > 0 && foreignExtension(strings.ToLower(stem[j+1:])) {
		stem = stem[:j] // out.tar.gz
	}
	return usagef("%s: garc writes 7z archives: name it %s.7z", name, stem)
}

// openExisting opens the 7z archive at path that `a` or `d` changes; it
// returns nil when there is none. Only a plain single-file 7z archive can
// be changed: split sets, RAR archives, self-extractors and other files
// are refused, naming what they are.
func openExisting(path string) (*os.File, error) {
	if opener.IsSplitPart(path) {
		return nil, fmt.Errorf("%s: split archives (.001, .002 …) cannot be updated: %w", path, archive.ErrUnsupported)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", path)
	}
	var d opener.Detection
	ok := false
	if err == nil {
		d, ok, err = opener.Detect(f, fi.Size())
	}
	switch {
	case err != nil:
	case ok && d.Format != archive.Format7z:
		err = fmt.Errorf("%s: RAR archives are read-only (garc writes 7z only): %w", path, archive.ErrUnsupported)
	case ok && d.Offset != 0:
		err = fmt.Errorf("%s: self-extracting archives cannot be updated (garc writes plain 7z archives): %w", path, archive.ErrUnsupported)
	case !ok:
		err = fmt.Errorf("%s: not a 7z archive (garc changes only 7z archives): %w", path, archive.ErrNotArchive)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkSplitSet refuses to let `a` or `d` change a raw split set (7-Zip
// does not either: "Updating for multivolume archives is not
// implemented"), whatever name it is given by: a part of it (set.7z.001,
// set.7z.003), or its stem (set.7z) when no set.7z exists beside
// set.7z.001. Writing volumes (-v) is refused beside any part named like
// one of the new set's: the new set would replace set.7z.001 and leave a
// longer set's later parts, which belong to no archive, behind it.
func checkSplitSet(path string, volumeSize int64) error {
	part := ""
	switch {
	case opener.IsSplitPart(path):
		part = path
	case volumeSize > 0:
		part = opener.SplitPartOf(path)
	default:
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && opener.IsSplitPart(archivefile.VolumeName(path, 0)) {
			part = archivefile.VolumeName(path, 0)
		}
	}
	switch {
	case part == "":
		return nil
	case part == path:
		return fmt.Errorf("%s: split archives (.001, .002 …) cannot be updated: %w", path, archive.ErrUnsupported)
	}
	return fmt.Errorf("%s: %s exists: split archives (.001, .002 …) cannot be updated: %w", path, part, archive.ErrUnsupported)
}

// update writes the archive at path through a temporary file renamed
// into place on success, with the existing one (if any, and unless the
// output is split into volumes) as its base: the one call of `a` and `d`.
func update(ctx context.Context, path string, volumeSize int64, ch *sevenzip.Changes, wo *sevenzip.WriteOptions) (*sevenzip.WriteStats, error) {
	if wo.Threads <= 0 {
		wo.Threads = runtime.NumCPU()
	}
	if err := checkSplitSet(path, volumeSize); err != nil {
		return nil, err
	}
	var base *sevenzip.Existing
	if volumeSize == 0 {
		f, err := openExisting(path)
		if err != nil {
			return nil, err
		}
		if f != nil {
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return nil, err
			}
			base = &sevenzip.Existing{R: f, Size: fi.Size()}
		}
	}
	if base == nil && ch.Delete != nil {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	out, err := archivefile.Create(path, volumeSize)
	if err != nil {
		if !errors.Is(err, archivefile.ErrWrite) {
			err = fmt.Errorf("%w: %w", err, extract.ErrCreate) // archivefile names the path
		}
		return nil, err
	}
	st, err := sevenzip.Update(ctx, out, base, ch, wo)
	switch {
	case errors.Is(err, sevenzip.ErrNoMatch):
		return nil, selection.ErrNoMatch
	case errors.Is(err, sevenzip.ErrMixedEncryption):
		return nil, namePath(path, fmt.Errorf("%w (--allow-mixed-encryption adds anyway)", err))
	case errors.Is(err, sevenzip.ErrMethodParam):
		return nil, usagef("%v", err)
	case err != nil:
		return nil, namePath(path, err)
	}
	return st, nil
}

// namePath prefixes err with the archive's path unless it names it
// already (archivefile's errors do).
func namePath(path string, err error) error {
	if strings.HasPrefix(err.Error(), path+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// ratioFloor is the least content for which the summary gives the
// archive's size as a share of it: below it the headers weigh more than
// the compression, and a share such as 1875 % for a 16-byte file says
// nothing.
const ratioFloor = 64 << 10

// summary prints the closing line of `a` and `d` in plain words: what the
// run did, what the archive now holds, its size (as a share of the
// content where that means something) and the time taken:
//
//	15 files and 1 folder added (111 B); archive 315 B, written in 0.08 s
//	1 entry added or replaced (8 B compressed), 15 unchanged; now 15 files and 1 folder (112 B); archive 333 B, written in 0.05 s
//	1 entry deleted (97 B recompressed); now 14 files and 1 folder (105 B); archive 325 B, written in 0.03 s
func summary(w io.Writer, st *sevenzip.WriteStats, took time.Duration) {
	content := plural(st.Files, "file", "files")
	if st.Dirs > 0 {
		content += " and " + plural(st.Dirs, "folder", "folders")
	}
	size := "(" + progress.HumanBytes(st.UnpackedSize) + ")"
	var b strings.Builder
	switch {
	case st.Deleted > 0:
		b.WriteString(plural(st.Deleted, "entry", "entries") + " deleted")
		if st.BytesIn > 0 {
			fmt.Fprintf(&b, " (%s recompressed)", progress.HumanBytes(st.BytesIn))
		}
		fmt.Fprintf(&b, "; now %s %s", content, size)
	case st.Kept == 0 && st.Skipped == 0:
		fmt.Fprintf(&b, "%s added %s", content, size)
	default:
		if st.Added == 0 {
			b.WriteString("nothing added or replaced")
		} else {
			fmt.Fprintf(&b, "%s added or replaced (%s compressed)", plural(st.Added, "entry", "entries"), progress.HumanBytes(st.BytesIn))
		}
		if st.Skipped > 0 {
			fmt.Fprintf(&b, ", %d unchanged", st.Skipped)
		}
		if others := st.Kept - st.Skipped; others > 0 {
			fmt.Fprintf(&b, ", %s kept", plural(others, "other entry", "other entries"))
		}
		fmt.Fprintf(&b, "; now %s %s", content, size)
	}
	fmt.Fprintf(&b, "; archive %s", progress.HumanBytes(st.BytesOut))
	if st.UnpackedSize >= ratioFloor {
		if pct := 100 * float64(st.BytesOut) / float64(st.UnpackedSize); pct < 0.5 {
			b.WriteString(" (under 1 % of the content)")
		} else {
			fmt.Fprintf(&b, " (%.0f %% of the content)", pct)
		}
	}
	fmt.Fprintf(&b, ", written in %.2f s\n", took.Seconds())
	io.WriteString(w, b.String())
}

// create implements `garc a`: it collects the inputs and adds them.
func create(ctx context.Context, o CreateOptions) error {
	items, warnings, err := collectFor(&o)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		if warnings > 0 {
			return fmt.Errorf("%s: nothing to add: %w", o.Archive, selection.ErrNoMatch)
		}
		if _, err := os.Stat(o.Archive); err != nil {
			return usagef("%s: nothing to add", o.Archive)
		}
	}
	if o.Progress != nil {
		o.Write.Progress = o.Progress(func() int64 { return inputSize(items) })
	}
	start := time.Now()
	st, err := update(ctx, o.Archive, o.VolumeSize, &sevenzip.Changes{Add: writeItems(items, &o)}, &o.Write)
	if err != nil {
		return err
	}
	if !o.Quiet && o.Out != nil {
		summary(o.Out, st, time.Since(start))
	}
	if warnings > 0 {
		return fmt.Errorf("%s: %d of the inputs not added (%w)", o.Archive, warnings, extract.ErrSkipped)
	}
	return nil
}

// inputGroups adds the include patterns to the inputs of opts, as they
// are inputs of their own in 7-Zip (`a out.7z src -i!*.log` adds src and
// the top-level .log files): one with a recursion prefix ("**/" for
// -ir!, "./" for -ir-!) is walked with that recursion (in opts.Others
// when it is not -r's), the others with -r's.
func inputGroups(opts *collect.Options, includes []string) {
	var same, other []string
	for _, in := range includes {
		switch {
		case strings.HasPrefix(in, argv.AnyDepth):
			in = strings.TrimPrefix(in, argv.AnyDepth)
			if opts.Recursive {
				same = append(same, in)
			} else {
				other = append(other, in)
			}
		case strings.HasPrefix(in, argv.RootOnly):
			in = strings.TrimPrefix(in, argv.RootOnly)
			if opts.Recursive {
				other = append(other, in)
			} else {
				same = append(same, in)
			}
		default:
			same = append(same, in)
		}
	}
	if len(same) > 0 {
		opts.Inputs = append(slices.Clip(opts.Inputs), same...)
	}
	opts.Others = other
}

// inputSize is the number of bytes the files to add hold, -1 when one
// of them has no known size (standard input).
func inputSize(items []collect.Item) int64 {
	var n int64
	for i := range items {
		switch {
		case items[i].Type != archive.TypeFile:
		case items[i].Size < 0:
			return -1
		default:
			n += items[i].Size
		}
	}
	return n
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
