package extract

import (
	"github.com/garc-dev/garc/internal/archive"
)

// StripComponents removes the first n components of an entry name, as GNU
// tar's and bsdtar's --strip-components do: leading slashes are passed
// over, and components are what the slashes between them separate ("."
// and ".." count, runs of slashes separate once). ok is false when the
// name has n components or fewer, so that nothing is left: such an entry
// is not extracted. n ≤ 0 returns the name unchanged.
func StripComponents(name string, n int) (rest string, ok bool) {
	if n <= 0 {
		return name, true
	}
	i := 0
	for i < len(name) && name[i] == '/' {
		i++
	}
	for i < len(name) {
		if name[i] != '/' {
			i++
			continue
		}
		for i < len(name) && name[i] == '/' {
			i++
		}
		if n--; n == 0 {
			return name[i:], i < len(name)
		}
	}
	return "", false
}

// stripped applies Options.StripComponents to e: it returns the entry with
// its name stripped, and for a hard link or file copy its target's name
// too (as GNU tar does; a symbolic link's target text is not a name in
// the archive and stays). ok is false for an entry whose name is stripped
// away, which is skipped without a word; a link whose target's name is
// stripped away is refused, since what it links to is not extracted.
func (x *Extractor) stripped(e *archive.Entry) (s *archive.Entry, ok bool, err error) {
	n := x.opts.StripComponents
	if n <= 0 {
		return e, true, nil
	}
	name, ok := StripComponents(e.Name, n)
	if !ok {
		return nil, false, nil
	}
	c := *e
	c.Name = name
	if e.Type == archive.TypeHardlink || e.Type == archive.TypeCopy {
		target, ok := StripComponents(e.LinkTarget, n)
		if !ok {
			return nil, false, x.refuse(name, "link target "+e.LinkTarget+" has no name left after --strip-components")
		}
		c.LinkTarget = target
	}
	return &c, true, nil
}
