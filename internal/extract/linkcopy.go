package extract

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// pendingCopy is a symbolic link to be written as a copy of its target
// (LinksCopy) once the target has been extracted.
type pendingCopy struct {
	entry  archive.Entry // the link's entry, made a TypeCopy of the target
	key    string        // its cleaned name
	target string        // where the copy goes
}

// copyLink writes the symbolic link entry e (cleaned name key, full path
// target) under LinksCopy: as a copy of the file its target names,
// linkTarget, which the link rules have accepted. A target extracted in
// this run already is copied now; a later one is copied by Finish. A
// link to a directory is skipped with a warning: its tree is not copied.
func (x *Extractor) copyLink(e *archive.Entry, key, target, linkTarget string) error {
	t := linkTarget
	if windowsLinkRules {
		t = strings.ReplaceAll(t, `\`, "/")
	}
	ce := *e
	ce.Type, ce.LinkTarget = archive.TypeCopy, path.Join(path.Dir(key), t)
	if x.copyMode(&ce) {
		return x.writeLink(&ce, key, target)
	}
	if fi, err := os.Stat(x.fullPath(x.osRel(ce.LinkTarget))); err == nil && fi.IsDir() {
		err := fmt.Errorf("%s: %w: link to a directory, not copied: %s", e.Name, ErrSkipped, linkTarget)
		x.warn(e.Name, err)
		return err
	}
	x.copies = append(x.copies, pendingCopy{entry: ce, key: key, target: target})
	return nil
}

// finishCopies writes the copies copyLink put off, each once its target
// has been extracted (a copy may be the target of another), and warns
// about those whose target never was.
func (x *Extractor) finishCopies() {
	for progress := true; progress; {
		progress = false
		rest := x.copies[:0]
		for _, c := range x.copies {
			if !x.copyMode(&c.entry) {
				rest = append(rest, c)
				continue
			}
			progress = true
			err := x.writeLink(&c.entry, c.key, c.target)
			if err != nil && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrSkipped) {
				// writeLink has not reported it: only Write's caller
				// would have.
				x.warn(c.entry.Name, err)
			}
		}
		x.copies = rest
	}
	for _, c := range x.copies {
		x.refuse(c.entry.Name, "link target "+c.entry.LinkTarget+" was not extracted: nothing to copy")
	}
	x.copies = nil
}

// copyMode reports whether the target of the copy ce has been extracted
// as a regular file in this run, and gives ce the target's permissions
// (a link's own, 0777, are not the file's).
func (x *Extractor) copyMode(ce *archive.Entry) bool {
	src, ok := x.writtenPath(ce.LinkTarget)
	if !ok {
		return false
	}
	if fi, err := os.Lstat(src); err == nil {
		ce.Mode, ce.HasUnixMode = fi.Mode().Perm(), true
	}
	return true
}
