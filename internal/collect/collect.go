package collect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
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

type collector struct {
	opts  Options
	items []Item
	names map[string]int
	// kept marks items selected by Want; directories not selected are
	// dropped at the end unless something below them is kept.
	kept []bool
}

// Collect walks the inputs and returns the items in a stable order:
// each input in turn, directories before their contents, contents sorted
// by name.
func Collect(opts Options) ([]Item, error) {
	c := &collector{opts: opts, names: map[string]int{}}
	if opts.Stdin {
		name := opts.StdinName
		if name == "" {
			name = "stdin"
		}
		c.add(Item{Name: name, Type: archive.TypeFile, Size: -1, ModTime: time.Now(),
			Attributes: Attributes(0o644), stdin: opts.Input}, true)
	}
	for _, in := range opts.Inputs {
		if err := c.input(in); err != nil {
			return nil, err
		}
	}
	return c.result(), nil
}

func (c *collector) warn(p string, err error) {
	if c.opts.Warn != nil {
		c.opts.Warn(p, err)
	}
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// input handles one command-line input.
func (c *collector) input(in string) error {
	dir, base := filepath.Split(in)
	if hasWildcard(base) {
		if dir == "" {
			dir = "."
		}
		found, err := c.wildcard(dir, StoredPrefix(dir), base)
		if err != nil {
			return err
		}
		if !found {
			c.warn(in, fmt.Errorf("%s: %w", in, ErrNoInput))
		}
		return nil
	}
	return c.path(in, StoredPrefix(in), nil)
}

// wildcard adds the entries of dir matching pat, and with Recursive those
// of every subdirectory.
func (c *collector) wildcard(dir, prefix, pat string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		c.warn(dir, err)
		return false, nil
	}
	found := false
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		name := joinName(prefix, e.Name())
		if wildcard.Match(pat, e.Name()) {
			found = true
			if err := c.path(p, name, nil); err != nil {
				return found, err
			}
			continue
		}
		if c.opts.Recursive && e.IsDir() && !c.excluded(name, true) {
			f, err := c.wildcard(p, name, pat)
			found = found || f
			if err != nil {
				return found, err
			}
		}
	}
	return found, nil
}

func joinName(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// dirID identifies a directory for loop detection.
type dirID struct{ dev, ino uint64 }

// path adds the file or directory at p under the stored name.
func (c *collector) path(p, name string, parents []dirID) error {
	fi, err := os.Lstat(p)
	if err != nil {
		c.warn(p, err)
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if c.opts.StoreSymlinks {
			target, err := os.Readlink(p)
			if err != nil {
				c.warn(p, err)
				return nil
			}
			if name == "" || c.excluded(name, false) {
				return nil
			}
			it := itemFor(p, name, fi)
			it.Type, it.LinkTarget, it.Size = archive.TypeSymlink, target, int64(len(target))
			c.add(it, c.want(name))
			return nil
		}
		if fi, err = os.Stat(p); err != nil {
			c.warn(p, err)
			return nil
		}
	}
	if name != "" && c.excluded(name, fi.IsDir()) {
		return nil
	}
	switch {
	case fi.IsDir():
		id, ok := fileID(fi)
		if ok {
			for _, q := range parents {
				if q == id {
					c.warn(p, errors.New("directory loop through a symbolic link; not followed"))
					return nil
				}
			}
			parents = append(parents, id)
		}
		if name != "" {
			it := itemFor(p, name, fi)
			it.Type, it.Size = archive.TypeDir, 0
			c.add(it, c.want(name))
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			c.warn(p, err)
			return nil
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			if err := c.path(filepath.Join(p, e.Name()), joinName(name, e.Name()), parents); err != nil {
				return err
			}
		}
	case fi.Mode().IsRegular() && tempname.Is(filepath.Base(p)):
		// An archive or extracted file garc is still writing (or one an
		// interrupted run left): incomplete, never the user's data.
		c.warn(p, fmt.Errorf("%s: temporary file of garc (output being written or left by an interrupted run) not archived", p))
	case fi.Mode().IsRegular():
		if name == "" {
			name = fi.Name()
		}
		it := itemFor(p, name, fi)
		it.Type = archive.TypeFile
		c.add(it, c.want(name))
	default:
		c.warn(p, fmt.Errorf("%s: special file (%v) not archived", p, fi.Mode().Type()))
	}
	return nil
}

func (c *collector) want(name string) bool { return c.opts.Want == nil || c.opts.Want(name) }

// excluded reports whether an Exclude pattern matches the stored name.
func (c *collector) excluded(name string, isDir bool) bool {
	if len(c.opts.Exclude) == 0 {
		return false
	}
	comps := strings.Split(name, "/")
	for i := range c.opts.Exclude {
		if c.opts.Exclude[i].Match(comps, isDir) {
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

// add appends an item unless its name is already taken.
func (c *collector) add(it Item, keep bool) {
	if _, dup := c.names[it.Name]; dup {
		return
	}
	c.names[it.Name] = len(c.items)
	if len(c.items) == cap(c.items) {
		// Doubled: append grows a large slice by a quarter, which
		// allocates (and copies) about five times the final list.
		c.items = slices.Grow(c.items, max(len(c.items), 64))
	}
	c.items = append(c.items, it)
	c.kept = append(c.kept, keep)
}

// result drops unselected items, keeping directories above selected ones.
func (c *collector) result() []Item {
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
