package extract

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tempname"
)

// Revise applies to an entry written earlier in this run what its
// archive says about it only afterwards. A ZIP archive read from a pipe
// hands its entries out from their local headers, which carry neither
// Unix modes nor the mark of a symbolic link; its central directory,
// which arrives last, does (zip.StreamReader.Revisions). e is the entry
// as the archive finally describes it, under the name it was written
// with; an entry that was not written in this run (skipped, refused,
// failed) is left alone.
//
//   - A regular file gets e's permission bits less the umask, as at
//     creation, set through a descriptor of the file written (never
//     through a link put in its place).
//   - A directory gets them when Finish sets directory modes.
//   - A symbolic link (TypeSymlink) is the file written, whose content is
//     its target: the file is read without following a link and must
//     hold e's CRC; the target then passes every check a link gets
//     (Options.Links, the target kept inside the destination), and the
//     link, made under a temporary name, is renamed over the file, so
//     that nothing is ever written through it and no moment is left
//     without the name. A link that is refused or skipped removes the
//     file, as if the entry had come as a link, and returns the error
//     Write would have (ErrRefused, ErrSkipped); LinksCopy makes the
//     copy Write would have.
func (x *Extractor) Revise(e *archive.Entry) error {
	x.Flush()
	e, ok, _ := x.stripped(e)
	if !ok {
		return nil
	}
	rel, _, why := cleanName(e.Name)
	if why != "" || rel == "." {
		return nil
	}
	key := rel
	osRel, target := x.osPath(key)
	if e.Type == archive.TypeDir {
		for i := range x.dirs {
			if x.dirs[i].path == target {
				x.dirs[i].mode = dirPerm(e)
			}
		}
		return nil
	}
	p, ok := x.writtenPath(key)
	if !ok {
		return nil
	}
	if x.opts.Flat {
		rel = path.Base(rel)
	}
	f, err := openWritten(p)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", e.Name, ErrCreate, err)
	}
	defer f.Close()
	switch e.Type {
	case archive.TypeFile:
		// The bits pass through the umask, as at creation.
		if err := f.Chmod(filePerm(e) &^ processUmask()); err != nil {
			return fmt.Errorf("%s: %w: %w", e.Name, ErrCreate, err)
		}
		return nil
	case archive.TypeSymlink:
	default:
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxLinkTarget+1))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", e.Name, ErrCreate, err)
	}
	f.Close()
	if e.HasCRC32 && crc32.ChecksumIEEE(b) != e.CRC32 {
		return fmt.Errorf("%s: %w: the file written changed before it could be made a link", e.Name, ErrCreate)
	}
	linkTarget := string(b)
	var refused error
	switch {
	case x.opts.Links == LinksSkip:
		refused = fmt.Errorf("%s: %w: symbolic link", e.Name, ErrSkipped)
		x.warn(e.Name, refused)
	case len(b) > maxLinkTarget:
		refused = x.refuse(e.Name, "link target too long")
	case linkTarget == "":
		refused = x.refuse(e.Name, "empty link target")
	case x.opts.Links == LinksSafe || x.opts.Links == LinksCopy:
		why := checkLinkTarget(rel, linkTarget)
		if why == "" && windowsLinkRules {
			why = windowsLinkProblem(rel, linkTarget)
		}
		if why == "" {
			why = x.resolveOnDisk(rel, linkTarget)
		}
		if why != "" {
			refused = x.refuse(e.Name, why+": "+linkTarget)
		}
	}
	if refused != nil || x.opts.Links == LinksCopy {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("%s: %w: %w", e.Name, ErrCreate, err)
		}
		if refused != nil {
			return refused
		}
		return x.copyLink(e, key, x.fullPath(osRel), linkTarget)
	}
	osTarget := filepath.FromSlash(linkTargetPath(linkTarget))
	for i := 0; ; i++ {
		tmp := tempname.In(filepath.Dir(p))
		err = x.createTemp(tmp, func() error { return symlink(osTarget, tmp) }, func() { os.Remove(tmp) })
		if err == nil {
			if !e.ModTime.IsZero() || !e.AccessTime().IsZero() {
				lchtimes(tmp, e.AccessTime(), e.ModTime) // best effort
			}
			err = os.Rename(tmp, p)
			if err != nil {
				x.removeTemp(tmp)
				return fmt.Errorf("%s: %w: %w", e.Name, ErrCreate, err)
			}
			x.forgetTemp(tmp)
			if x.symlinks == nil {
				x.symlinks = make(map[string]string)
			}
			x.symlinks[key] = linkTarget
			return nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return fmt.Errorf("%s: %w: cannot create symbolic link: %w", e.Name, ErrCreate, err)
		}
	}
}

// openWritten opens the regular file this run wrote at p, refusing
// anything else found there now (a link, which Open would follow).
func openWritten(p string) (*os.File, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is no longer the regular file written", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(before, now) {
		f.Close()
		return nil, fmt.Errorf("%s is no longer the regular file written", p)
	}
	return f, nil
}
