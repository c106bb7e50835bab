package collect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tempname"
	"github.com/garc-dev/garc/internal/wildcard"
)

// Options say what to collect.
type Options struct {
	// Inputs are paths as given on the command line; the last component
	// may hold the wildcards '*' and '?'.
	Inputs []string
	// Recursive makes wildcard inputs match in subdirectories too.
	Recursive bool
	// Want, when set, selects entries by stored name (directories included:
	// a rejected directory is still walked, and kept when something below
	// it is kept).
	Want func(name string) bool
	// Exclude drops every file and directory whose stored name one of the
	// patterns matches, as 7-Zip's -x!, -xr! do (see wildcard.Pattern);
	// an excluded directory is not walked.
	Exclude []wildcard.Pattern
	// StoreSymlinks stores links as links instead of following them.
	StoreSymlinks bool
	// Stdin adds one entry named StdinName whose content is Input.
	Stdin     bool
	StdinName string
	Input     io.Reader
	// Others are inputs walked after Inputs, with the opposite of
	// Recursive (7-Zip's include patterns of the other recursion).
	Others []string
	// ByteOrder orders the entries by the bytes of their names
	// (--reproducible) instead of input by input, each directory
	// before its contents.
	ByteOrder bool
	// Skip, when set, leaves out without a warning the regular files it
	// reports (the archive being written).
	Skip func(fs.FileInfo) bool
	// Warn receives problems that skip one input (a missing file, a
	// special file, a link loop); nil ignores them. Errors that stop
	// the walk are returned by Collect.
	Warn func(path string, err error)
}

// Item is one entry to archive.
type Item struct {
	// Name is the stored name.
	Name string
	// Path is the file on disk; empty for standard input.
	Path       string
	Type       archive.EntryType // TypeFile, TypeDir or TypeSymlink
	LinkTarget string
	// Size is the size at collection time; -1 for standard input.
	Size int64
	// ModTime, ChangeTime (unix ctime, stored as 7z's creation time) and
	// AccessTime; zero when unknown.
	ModTime, ChangeTime, AccessTime time.Time
	// Attributes are Windows attributes with the unix mode in the high 16
	// bits (archive.AttrUnixExtension set).
	Attributes uint32
	// Owner is what the stat of Path said beyond the above, for tar
	// headers and hard links, so that they need no second stat.
	Owner Owner
	stdin io.Reader
}

// Owner is the part of a file's stat that only unix systems report:
// owner, link count, identity and allocated blocks. OK is false where
// the system gives none of it (and for standard input).
type Owner struct {
	OK       bool
	UID, GID int
	// Nlink is the number of hard links, Dev and Ino the file's identity.
	Nlink, Dev, Ino uint64
	// Blocks is the number of 512-byte blocks allocated to the file.
	Blocks int64
}

// Open returns the item's content.
func (it *Item) Open() (io.ReadCloser, error) {
	switch {
	case it.stdin != nil:
		return io.NopCloser(it.stdin), nil
	case it.Type != archive.TypeFile:
		return io.NopCloser(strings.NewReader(it.LinkTarget)), nil
	}
	return openFile(it.Path)
}

// ErrNoInput is wrapped when an input names nothing that exists.
var ErrNoInput = errors.New("no such file or directory")

// Unix file type bits of st_mode.
const (
	unixDir     = 0o040000
	unixRegular = 0o100000
	unixSymlink = 0o120000
)

// Attributes returns the 7-Zip attributes of a file mode.
func Attributes(m fs.FileMode) uint32 {
	unix := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		unix |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		unix |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		unix |= 0o1000
	}
	attr := uint32(archive.AttrUnixExtension)
	switch {
	case m.IsDir():
		unix |= unixDir
		attr |= archive.AttrDirectory
	case m&fs.ModeSymlink != 0:
		unix |= unixSymlink
		attr |= archive.AttrArchive
	default:
		unix |= unixRegular
		attr |= archive.AttrArchive
	}
	if m.Perm()&0o200 == 0 {
		attr |= archive.AttrReadOnly
	}
	return attr | unix<<16
}

// StoredPrefix returns the stored name of an input path, following 7-Zip:
// the cleaned relative path, or only the last component for absolute
// paths and paths with "..". "." gives "".
func StoredPrefix(input string) string {
	p := filepath.ToSlash(filepath.Clean(input))
	if filepath.IsAbs(input) || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") {
		p = path.Base(p)
		if p == "/" || p == ".." {
			return ""
		}
	}
	if p == "." {
		return ""
	}
	return strings.TrimPrefix(p, "/")
}

// Walk calls fn with each item as the walk finds it, in the order
// Collect returns them, and keeps no list: a directory's entries are read
// (sorted by name), walked one after the other, and dropped; what it
// holds at once is the unwalked entries of the directories it is in
// (Stats.MaxHeld), whatever the number of files. Names given twice (by
// overlapping inputs) are passed once, the first time: only the names of
// an input that a later input's names can equal are remembered for that.
// Want is not applied (Collect applies it). An error fn returns stops the
// walk and is returned.
func Walk(opts Options, fn func(*Item) error) (Stats, error) {
	st := &walkState{opts: opts}
	srcs := sources(&opts)
	if opts.ByteOrder && len(srcs) > 1 {
		err := st.merge(srcs, fn)
		return st.stats, err
	}
	roots := make([]string, len(srcs))
	for i := range srcs {
		roots[i] = srcs[i].root()
	}
	var seen map[string]struct{}
	for i := range srcs {
		// check: an earlier input may have given this input's names;
		// later: the roots of later inputs whose names this one may give.
		check := false
		for k := range i {
			check = check || overlap(roots[k], roots[i])
		}
		var later []string
		for _, r := range roots[i+1:] {
			if overlap(roots[i], r) {
				later = append(later, r)
			}
		}
		if len(later) > 0 && seen == nil {
			seen = map[string]struct{}{}
		}
		err := st.source(&srcs[i], func(it *Item) error {
			if check {
				if _, dup := seen[it.Name]; dup {
					return nil
				}
			}
			for _, r := range later {
				if under(it.Name, r) {
					seen[it.Name] = struct{}{}
					break
				}
			}
			st.stats.Items++
			return fn(it)
		})
		if err != nil {
			return st.stats, err
		}
	}
	return st.stats, nil
}

// Stats count what a walk did.
type Stats struct {
	// Items is the number of items passed on.
	Items int
	// MaxHeld is the largest number of directory entries that were held
	// at once: read and not yet walked.
	MaxHeld int
}

// walkState is what the walk of all inputs shares.
type walkState struct {
	opts  Options
	stats Stats
	held  int
}

// source is one input of a walk: a path or wildcard walked with its
// recursion, or standard input.
type source struct {
	path      string
	recursive bool
	stdin     *Item
}

// sources lists the inputs of opts in the order they are walked:
// standard input, Inputs, Others.
func sources(opts *Options) []source {
	var srcs []source
	if opts.Stdin {
		name := opts.StdinName
		if name == "" {
			name = "stdin"
		}
		srcs = append(srcs, source{stdin: &Item{Name: name, Type: archive.TypeFile, Size: -1, ModTime: time.Now(),
			Attributes: Attributes(0o644), stdin: opts.Input}})
	}
	for _, in := range opts.Inputs {
		srcs = append(srcs, source{path: in, recursive: opts.Recursive})
	}
	for _, in := range opts.Others {
		srcs = append(srcs, source{path: in, recursive: !opts.Recursive})
	}
	return srcs
}

// root returns the name every name of the source equals or lies below
// ("" for any name).
func (s *source) root() string {
	if s.stdin != nil {
		return s.stdin.Name
	}
	dir, base := filepath.Split(s.path)
	if hasWildcard(base) {
		if dir == "" {
			dir = "."
		}
		return StoredPrefix(dir)
	}
	return StoredPrefix(s.path)
}

// under reports whether name is root or lies below it.
func under(name, root string) bool {
	return root == "" || name == root || strings.HasPrefix(name, root) && name[len(root)] == '/'
}

// overlap reports whether two inputs with these roots can give the same
// name.
func overlap(a, b string) bool { return under(a, b) || under(b, a) }

// errStop ends the walk of a source whose consumer wants no more.
var errStop = errors.New("collect: walk stopped")

// merge passes the items of several sources in byte order of their
// names (ByteOrder): each source gives its items in that order, and the
// smallest name of their next items goes first; of equal names the
// earliest source's item is passed and the others dropped.
func (st *walkState) merge(srcs []source, fn func(*Item) error) error {
	type head struct {
		next func() (*Item, bool)
		stop func()
		it   *Item
		err  *error
	}
	heads := make([]head, len(srcs))
	for i := range srcs {
		s := &srcs[i]
		var err error
		next, stop := iter.Pull(func(yield func(*Item) bool) {
			err = st.source(s, func(it *Item) error {
				if !yield(it) {
					return errStop
				}
				return nil
			})
		})
		heads[i] = head{next: next, stop: stop, err: &err}
		defer stop()
	}
	advance := func(h *head) error {
		var ok bool
		if h.it, ok = h.next(); !ok {
			h.it = nil
			return *h.err
		}
		return nil
	}
	for i := range heads {
		if err := advance(&heads[i]); err != nil {
			return err
		}
	}
	for {
		first := -1
		for i := range heads {
			if heads[i].it != nil && (first < 0 || heads[i].it.Name < heads[first].it.Name) {
				first = i
			}
		}
		if first < 0 {
			return nil
		}
		name := heads[first].it.Name
		st.stats.Items++
		if err := fn(heads[first].it); err != nil {
			return err
		}
		for i := range heads {
			if heads[i].it != nil && heads[i].it.Name == name {
				if err := advance(&heads[i]); err != nil {
					return err
				}
			}
		}
	}
}

// walker walks one source.
type walker struct {
	*walkState
	recursive bool
	emit      func(*Item) error
}

// source walks one source, passing its items to emit.
func (st *walkState) source(s *source, emit func(*Item) error) error {
	if s.stdin != nil {
		it := *s.stdin
		return emit(&it)
	}
	w := &walker{walkState: st, recursive: s.recursive, emit: emit}
	return w.input(s.path)
}

func (w *walker) warn(p string, err error) {
	if w.opts.Warn != nil {
		w.opts.Warn(p, err)
	}
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// input walks one command-line input.
func (w *walker) input(in string) error {
	dir, base := filepath.Split(in)
	if hasWildcard(base) {
		if dir == "" {
			dir = "."
		}
		found := false
		if err := w.wildcard(dir, StoredPrefix(dir), base, &found); err != nil {
			return err
		}
		if !found {
			w.warn(in, fmt.Errorf("%s: %w", in, ErrNoInput))
		}
		return nil
	}
	d, err := w.visit(in, StoredPrefix(in), nil)
	if err != nil || d == nil {
		return err
	}
	return w.dir(d)
}

// pending is a walk put off until the names before its key are passed
// (ByteOrder): the contents of a directory come after every sibling whose
// name sorts before the directory's name and '/'.
type pending struct {
	key  string
	walk func() error
}

// later walks a subdirectory's contents, at once, or with ByteOrder
// after the siblings that sort before name+"/".
func (w *walker) later(pend *[]pending, name string, walk func() error) error {
	if !w.opts.ByteOrder {
		return walk()
	}
	*pend = append(*pend, pending{key: name + "/", walk: walk})
	return nil
}

// flush walks the put-off subdirectories whose key sorts before next
// (all of them when last), in the order of their keys.
func (w *walker) flush(pend *[]pending, next string, last bool) error {
	for {
		k := -1
		for i, p := range *pend {
			if (last || p.key < next) && (k < 0 || p.key < (*pend)[k].key) {
				k = i
			}
		}
		if k < 0 {
			return nil
		}
		p := (*pend)[k]
		*pend = slices.Delete(*pend, k, k+1)
		if err := p.walk(); err != nil {
			return err
		}
	}
}

// readDir reads a directory's entries (sorted by name) and counts them
// as held until release.
func (w *walker) readDir(dir string) ([]os.DirEntry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	w.held += len(ents)
	w.stats.MaxHeld = max(w.stats.MaxHeld, w.held)
	return ents, nil
}

// wildcard walks the entries of dir matching pat, and with recursion
// those of every subdirectory; found is set when one matches.
func (w *walker) wildcard(dir, prefix, pat string, found *bool) error {
	return w.eachEntry(dir, func(e os.DirEntry, pend *[]pending) error {
		p := filepath.Join(dir, e.Name())
		name := joinName(prefix, e.Name())
		if wildcard.Match(pat, e.Name()) {
			*found = true
			d, err := w.visit(p, name, nil)
			if err == nil && d != nil {
				err = w.later(pend, e.Name(), func() error { return w.dir(d) })
			}
			return err
		}
		if w.recursive && e.IsDir() && !w.excluded(name, true) {
			return w.later(pend, e.Name(), func() error { return w.wildcard(p, name, pat, found) })
		}
		return nil
	})
}

// eachEntry calls visit for each entry of dir in order, with the list of
// subdirectories whose walk waits for later names (flushed before each
// entry and at the end); an unreadable directory is a warning.
func (w *walker) eachEntry(dir string, visit func(e os.DirEntry, pend *[]pending) error) error {
	ents, err := w.readDir(dir)
	if err != nil {
		w.warn(dir, err)
		return nil
	}
	left := len(ents)
	defer func() { w.held -= left }()
	var pend []pending
	for _, e := range ents {
		left--
		w.held--
		if err := w.flush(&pend, e.Name(), false); err != nil {
			return err
		}
		if err := visit(e, &pend); err != nil {
			return err
		}
	}
	return w.flush(&pend, "", true)
}

func joinName(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// dirID identifies a directory for loop detection.
type dirID struct{ dev, ino uint64 }

// subdir is a directory whose item is passed and whose contents are
// still to walk.
type subdir struct {
	path, name string
	parents    []dirID // the directories it lies in, itself included
}

// join returns the path of the entry base of d, whose stored name is
// name: the same string when d's path and stored name are the same (a
// clean relative input), so that each item does not hold its name twice.
func (d *subdir) join(name, base string) string {
	if filepath.Separator == '/' && (d.path == d.name && d.name != "" || d.path == "." && d.name == "") {
		return name
	}
	return filepath.Join(d.path, base)
}

// visit passes the item of the file or directory at p under the stored
// name; for a directory to walk it returns its subdir.
func (w *walker) visit(p, name string, parents []dirID) (*subdir, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		w.warn(p, err)
		return nil, nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if w.opts.StoreSymlinks {
			target, err := os.Readlink(p)
			if err != nil {
				w.warn(p, err)
				return nil, nil
			}
			if name == "" || w.excluded(name, false) {
				return nil, nil
			}
			it := itemFor(p, name, fi)
			it.Type, it.LinkTarget, it.Size = archive.TypeSymlink, target, int64(len(target))
			return nil, w.emit(&it)
		}
		if fi, err = os.Stat(p); err != nil {
			w.warn(p, err)
			return nil, nil
		}
	}
	if name != "" && w.excluded(name, fi.IsDir()) {
		return nil, nil
	}
	switch {
	case fi.IsDir():
		id, ok := fileID(fi)
		if ok {
			for _, q := range parents {
				if q == id {
					w.warn(p, errors.New("directory loop through a symbolic link; not followed"))
					return nil, nil
				}
			}
			// A copy: with ByteOrder sibling directories wait side by
			// side, each with its own list.
			parents = append(parents[:len(parents):len(parents)], id)
		}
		if name != "" {
			it := itemFor(p, name, fi)
			it.Type, it.Size = archive.TypeDir, 0
			if err := w.emit(&it); err != nil {
				return nil, err
			}
		}
		return &subdir{path: p, name: name, parents: parents}, nil
	case fi.Mode().IsRegular() && w.opts.Skip != nil && w.opts.Skip(fi):
	case fi.Mode().IsRegular() && tempname.Is(filepath.Base(p)):
		// An archive or extracted file garc is still writing (or one an
		// interrupted run left): incomplete, never the user's data.
		w.warn(p, fmt.Errorf("%s: temporary file of garc (output being written or left by an interrupted run) not archived", p))
	case fi.Mode().IsRegular():
		if name == "" {
			name = fi.Name()
		}
		it := itemFor(p, name, fi)
		it.Type = archive.TypeFile
		return nil, w.emit(&it)
	default:
		w.warn(p, fmt.Errorf("%s: special file (%v) not archived", p, fi.Mode().Type()))
	}
	return nil, nil
}

// dir walks the contents of a directory.
func (w *walker) dir(d *subdir) error {
	return w.eachEntry(d.path, func(e os.DirEntry, pend *[]pending) error {
		name := joinName(d.name, e.Name())
		sub, err := w.visit(d.join(name, e.Name()), name, d.parents)
		if err == nil && sub != nil {
			err = w.later(pend, e.Name(), func() error { return w.dir(sub) })
		}
		return err
	})
}

// excluded reports whether an Exclude pattern matches the stored name.
func (w *walker) excluded(name string, isDir bool) bool {
	if len(w.opts.Exclude) == 0 {
		return false
	}
	comps := strings.Split(name, "/")
	for i := range w.opts.Exclude {
		if w.opts.Exclude[i].Match(comps, isDir) {
			return true
		}
	}
	return false
}

// itemFor fills the metadata of an item from a stat result.
func itemFor(p, name string, fi fs.FileInfo) Item {
	it := Item{Name: name, Path: p, Size: fi.Size(), ModTime: fi.ModTime(), Attributes: Attributes(fi.Mode())}
	it.AccessTime, it.ChangeTime, it.Owner = statOwner(fi)
	return it
}

// Collect walks the inputs (see Walk) and returns the items in a stable
// order: each input in turn (standard input first, Others last),
// directories before their contents, contents sorted by name; with
// ByteOrder in byte order of the names.
func Collect(opts Options) ([]Item, error) {
	c := &collector{}
	if opts.Want != nil {
		c.names = map[string]int{}
	}
	if _, err := Walk(opts, func(it *Item) error {
		c.add(it, opts.Want == nil || opts.Want(it.Name))
		return nil
	}); err != nil {
		return nil, err
	}
	items := c.result()
	if cap(items)-len(items) > len(items)/8 {
		// The list is kept for the whole run: not the quarter or more
		// of it the doubling left unused.
		items = slices.Clone(items)
	}
	return items, nil
}

// collector is the list Collect builds.
type collector struct {
	items []Item
	// names and kept (with Want only) index the items by name and mark
	// those Want selected; directories not selected are dropped at the
	// end unless something below them is kept.
	names map[string]int
	kept  []bool
}

// add appends an item.
func (c *collector) add(it *Item, keep bool) {
	if c.names != nil {
		c.names[it.Name] = len(c.items)
		c.kept = append(c.kept, keep)
	}
	if len(c.items) == cap(c.items) {
		// Doubled: append grows a large slice by a quarter, which
		// allocates (and copies) about five times the final list.
		c.items = slices.Grow(c.items, max(len(c.items), 64))
	}
	c.items = append(c.items, *it)
}

// result drops unselected items, keeping directories above selected ones.
func (c *collector) result() []Item {
	if c.names == nil {
		return c.items
	}
	for i := range c.items {
		if !c.kept[i] {
			continue
		}
		// Keep the directories above a kept item.
		n := c.items[i].Name
		for {
			j := strings.LastIndexByte(n, '/')
			if j < 0 {
				break
			}
			n = n[:j]
			k, ok := c.names[n]
			if !ok || c.kept[k] {
				break
			}
			c.kept[k] = true
		}
	}
	out := c.items[:0]
	for i := range c.items {
		if c.kept[i] {
			out = append(out, c.items[i])
		}
	}
	return out
}
