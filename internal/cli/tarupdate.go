package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/collect"
	"github.com/garc-dev/garc/internal/opener"
	"github.com/garc-dev/garc/internal/selection"
	"github.com/garc-dev/garc/internal/sevenzip"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
)

// tarBase is an existing tar archive that `a` updates or `d` changes: it
// is read once, front to back, and the members that stay are copied into
// the new archive as they are stored (pax records, long names and
// sparse maps included), as 7-Zip updates a tar. A compressed tar is
// decompressed and the new archive compressed again, with the same
// method.
type tarBase struct {
	f    *os.File
	size int64
	kind stream.Kind
}

// openTarBase opens the tar archive at path for a change: nil when there
// is none (or it is empty). It must be a tar compressed as f says (a
// plain tar for .tar); a split set is refused as for every format.
func openTarBase(path string, f outFormat) (*tarBase, error) {
	if err := checkSplitSet(path, 0); err != nil {
		return nil, err
	}
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := fh.Stat()
	switch {
	case err != nil:
		fh.Close()
		return nil, err
	case !fi.Mode().IsRegular():
		fh.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	case fi.Size() == 0:
		fh.Close()
		return nil, nil
	}
	head := make([]byte, min(fi.Size(), 1024))
	if _, err := fh.ReadAt(head, 0); err != nil {
		fh.Close()
		return nil, err
	}
	kind, compressed := stream.Identify(head)
	ok := compressed && kind == f.comp
	if f.comp == 0 {
		ok = !compressed && (tar.IsHeader(head) || tar.IsEmpty(head))
	}
	if !ok {
		fh.Close()
		return nil, fmt.Errorf("%s: not a %s archive (garc changes a tar only under its own name): %w", path, f.ext()[1:], archive.ErrNotArchive)
	}
	return &tarBase{f: fh, size: fi.Size(), kind: f.comp}, nil
}

func (b *tarBase) close() { b.f.Close() }

// copyTo copies the members that stay into tw: those del does not
// select, and those no item replaces (archive.UpdateReplaces, as for 7z
// and ZIP); an item that replaces nothing is marked in skip. It counts kept, skipped and deleted members in st.
func (b *tarBase) copyTo(ctx context.Context, tw *tar.Writer, name string, items []collect.Item, del func(*archive.Entry) bool, st *sevenzip.WriteStats, opts *archive.Options) (skip []bool, err error) {
	byName := make(map[string]int, len(items))
	for i := range items {
		byName[items[i].Name] = i
	}
	skip = make([]bool, len(items))
	o := *opts
	o.Name = name
	err = tw.CopyMembers(ctx, b.f, b.size, b.kind, &o, func(e *archive.Entry) bool {
		if del != nil && del(e) {
			st.Deleted++
			return false
		}
		if j, ok := byName[e.Name]; ok {
			it := &items[j]
			if archive.UpdateReplaces(it.Type, it.Size, it.ModTime, e, time.Second) {
				return false // replaced by the item
			}
			skip[j] = true
			st.Skipped++
		}
		st.Kept++
		if e.Type == archive.TypeDir {
			st.Dirs++
		} else {
			st.Files++
			st.UnpackedSize += max(e.Size, 0)
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("cannot update: %w", err)
	}
	return skip, nil
}

// deleteTar implements `garc d` of a tar archive, plain or compressed:
// the archive is written again without the selected members, through a
// temporary file renamed into place, so that a failure leaves it as it
// was.
func (a *app) deleteTar(name string, f outFormat, sel *selection.Selector) error {
	base, err := openTarBase(name, f)
	if err != nil {
		return err
	}
	if base == nil {
		return fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	defer base.close()
	start := time.Now()
	o := CreateOptions{Archive: name, Level: -1, Threads: a.g.threads}
	out, err := createStreamOutput(name)
	if err != nil {
		return err
	}
	st := &sevenzip.WriteStats{}
	err = func() error {
		cw, err := compressor(out, f, &o, "", -1, time.Time{})
		if err != nil {
			return err
		}
		tw := tar.NewWriter(cw)
		if _, err := base.copyTo(a.ctx, tw, name, nil, sel.Want, st, &archive.Options{MaxDict: a.memory.Limit(), Memory: a.memory, Threads: a.g.threads}); err != nil {
			cw.Close()
			return err
		}
		if st.Deleted == 0 {
			cw.Close()
			return selection.ErrNoMatch
		}
		if err := tw.Close(); err != nil {
			cw.Close()
			return err
		}
		return cw.Close()
	}()
	if err = out.finish(err); err != nil {
		if errors.Is(err, selection.ErrNoMatch) {
			return err
		}
		return namePath(name, err)
	}
	st.BytesOut = out.n
	if !a.g.quiet {
		summary(a.messages(), st, time.Since(start))
	}
	return nil
}

// writeTarStdin writes standard input as the tar entry h: its content is
// first copied into a temporary file beside the archive (in the system's
// temporary directory with -so), since a tar header gives the size.
func writeTarStdin(ctx context.Context, tw *tar.Writer, h *tar.WriteHeader, it *collect.Item, o *CreateOptions, done *int64, prog func(int64, string)) error {
	rc, err := it.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	dir := ""
	if !o.Stdout {
		dir = filepath.Dir(o.Archive)
	}
	sp, err := opener.NewSpool(&progressReader{r: rc, ctx: ctx, done: done, name: it.Name, fn: prog}, dir)
	if err != nil {
		return fmt.Errorf("copying standard input to a temporary file: %w", err)
	}
	defer sp.Close()
	h.Size, it.Size = sp.Size, sp.Size
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.CopyN(tw, sp, sp.Size)
	return err
}
