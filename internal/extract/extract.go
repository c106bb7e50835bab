package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/tempname"
)

// Errors returned by Write. Test them with errors.Is.
var (
	// ErrRefused marks an entry that was not extracted because its path or
	// link is unsafe (traversal, absolute path, a symlink on the way, a
	// link leaving the destination, an unknown hard link target).
	ErrRefused = errors.New("refused")
	// ErrSkipped marks an entry that was not extracted by policy: an
	// existing file not overwritten, or a link skipped by LinksSkip.
	ErrSkipped = errors.New("skipped")
	// ErrCreate marks an operating system failure creating output.
	ErrCreate = errors.New("cannot create output")
	// ErrExists marks an entry skipped because a file exists at its name
	// and the overwrite mode keeps it; such errors wrap ErrSkipped too.
	ErrExists = errors.New("file exists")
	// ErrNotice marks what Options.Warn reports for information only: the
	// entry was extracted (e.g. an absolute name made relative).
	ErrNotice = errors.New("notice")
)

// OverwriteMode says what to do when a file to be extracted exists.
type OverwriteMode int

// Overwrite modes.
const (
	// OverwriteNever (the default) leaves existing files alone and reports
	// the entry as skipped (ErrSkipped, and Warn).
	OverwriteNever OverwriteMode = iota
	// OverwriteAsk calls Options.Ask for each existing file.
	OverwriteAsk
	// OverwriteAll replaces existing files.
	OverwriteAll
	// OverwriteSkip leaves existing files alone without calling Warn; Write
	// still returns ErrSkipped.
	OverwriteSkip
	// OverwriteRename writes the entry under the first free name
	// "name_1.ext", "name_2.ext", … (7-Zip's -aou).
	OverwriteRename
	// OverwriteRenameExisting renames the existing file to the first free
	// name "name_1.ext", "name_2.ext", … and writes the entry under its
	// own name (7-Zip's -aot). The existing file is moved only once the
	// entry's content has passed its checksum.
	OverwriteRenameExisting
)

// Answer is Options.Ask's decision about an existing file.
type Answer int

// Answers to Options.Ask.
const (
	// AnswerKeep keeps the existing file (the entry is skipped, ErrExists).
	AnswerKeep Answer = iota
	// AnswerReplace replaces it.
	AnswerReplace
	// AnswerRename writes the entry under the first free name
	// "name_1.ext", as OverwriteRename does.
	AnswerRename
	// AnswerKeepAll, AnswerReplaceAll and AnswerRenameAll decide for this
	// file and every later one without asking again (OverwriteSkip,
	// OverwriteAll, OverwriteRename).
	AnswerKeepAll
	AnswerReplaceAll
	AnswerRenameAll
)

// LinkPolicy says how symbolic links are extracted.
type LinkPolicy int

// Link policies.
const (
	// LinksSafe (the default) creates symbolic links whose targets stay
	// inside the destination and refuses the others.
	LinksSafe LinkPolicy = iota
	// LinksSkip skips every symbolic link.
	LinksSkip
	// LinksUnsafe creates symbolic links as stored.
	LinksUnsafe
	// LinksCopy writes, instead of each symbolic link that LinksSafe
	// would create, a copy of the file its target names (once that is
	// extracted): for systems or users that cannot make links (Windows
	// without the privilege). A link to a directory is skipped.
	LinksCopy
)

// Options configure an Extractor.
type Options struct {
	// Dest is the destination directory ("" means the current one). It is
	// created if missing.
	Dest string
	// Flat drops directories: every file is written into Dest under its
	// base name (garc e).
	Flat bool
	// Overwrite decides about existing files.
	Overwrite OverwriteMode
	// Ask is consulted with OverwriteAsk about the existing file at path
	// that entry e would replace; its Answer keeps, replaces or renames
	// (for this file or every later one), and an error aborts.
	Ask func(path string, e *archive.Entry) (Answer, error)
	// Links is the symbolic link policy.
	Links LinkPolicy
	// KeepBroken keeps the partial output of an entry whose content failed
	// (checksum or decoding error) under its final name.
	KeepBroken bool
	// Warn, when set, is called for each refused or skipped entry (except
	// with OverwriteSkip), in addition to the error Write returns.
	Warn func(entry string, err error)
	// StripComponents removes that many leading components from every
	// entry's name and from a hard link's target name (see
	// StripComponents); an entry with no more components is skipped.
	StripComponents int
	// ZoneIdentifier, when not empty, is the Mark of the Web every
	// regular file gets as its Zone.Identifier alternate data stream
	// (ArchiveZone gives the archive's own), on Windows and where the
	// destination's volume keeps such streams (namedStreams); elsewhere
	// it is ignored.
	ZoneIdentifier []byte
}

// sanitizeNames applies SanitizeWindowsName to every component. Tests
// switch it on elsewhere.
var sanitizeNames = runtime.GOOS == "windows"

// dirRecord is a directory entry whose metadata is applied by Finish.
type dirRecord struct {
	path    string
	depth   int
	mode    fs.FileMode
	setMode bool        // the directory was created by this run
	made    fs.FileMode // … with these permission bits (before the umask)
	mtime   time.Time
	atime   time.Time
	meta    windowsMeta // attributes and creation time, set on Windows
}

// Extractor writes archive entries below a destination directory under the
// security rules described in the package documentation. Write,
// WriteQueued and Flush are not safe for concurrent use; Abort may be
// called from another goroutine.
type Extractor struct {
	opts    Options
	root    string
	mode    OverwriteMode // current overwrite mode (Ask may settle it)
	created map[string]bool
	// createdDirs lists the directories this run created, parents before
	// children; records what it did to file names, in order (records.go).
	// Rollback undoes both.
	createdDirs []string
	records     recordList
	// symlinks maps the cleaned full name of each symbolic link made in
	// this run to its target, for hard links to it (GNU tar and bsdtar
	// store a hard link to a symbolic link as such).
	symlinks map[string]string
	// placedRecord says that the last place call added a record, which
	// recordWritten then marks.
	placedRecord bool
	// verified holds directories known to be real directories. Nothing
	// this package does can turn a directory into a link (files and links
	// are renamed into place, which fails on a directory), so a directory
	// is examined once per run.
	verified map[string]bool
	// lastDir is the directory (relative, slash-separated) mkdirs
	// verified last, lastDirPath its full path.
	lastDir, lastDirPath string
	// renamed holds, per target path, the last n tried by OverwriteRename
	// ("name (n).ext"), so many entries of one name cost linear time.
	renamed map[string]int
	dirs    []dirRecord
	buf     []byte
	// freeTemp is the temporary name of the file placed last, free again
	// once renamed: tempFile takes it for the next file in the same
	// directory instead of making a new name (issue 13).
	freeTemp string
	// at performs file operations, on Linux relative to a cached
	// directory descriptor.
	at *dirHandle

	// q is WriteQueued's queue and writer goroutine, nil until used;
	// capture collects the warnings of the entry the writer writes.
	q       atomic.Pointer[queue]
	capture *[]warning
	// copies are the links LinksCopy writes once their targets exist.
	copies []pendingCopy
	// zone is the Zone.Identifier stream written with every file (nil:
	// none): Options.ZoneIdentifier where the destination can hold it.
	zone []byte
}

// New checks the options and creates the destination directory.
func New(opts Options) (*Extractor, error) {
	dest := opts.Dest
	if dest == "" {
		dest = "."
	}
	if opts.Overwrite == OverwriteAsk && opts.Ask == nil {
		return nil, errors.New("extract: OverwriteAsk needs an Ask function")
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCreate, err)
	}
	missing := missingAncestors(abs)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCreate, err)
	}
	created := make(map[string]bool, len(missing))
	for _, d := range missing {
		created[d] = true
	}
	x := &Extractor{
		opts:        opts,
		root:        abs,
		mode:        opts.Overwrite,
		created:     created,
		createdDirs: missing,
		verified:    make(map[string]bool),
		at:          newDirHandle(),
	}
	x.at.noteDest(abs)
	if len(opts.ZoneIdentifier) > 0 && namedStreams(abs) {
		x.zone = opts.ZoneIdentifier
	}
	// Finish and Rollback release the directory descriptor; this covers
	// an Extractor dropped after Abort.
	runtime.AddCleanup(x, func(h *dirHandle) { h.close() }, x.at)
	return x, nil
}

// missingAncestors returns dir and those of its ancestors that do not
// exist, outermost first: what MkdirAll(dir) is about to create.
func missingAncestors(dir string) []string {
	var missing []string
	for p := dir; ; {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	slices.Reverse(missing)
	return missing
}

// refuse builds an ErrRefused error and reports it.
func (x *Extractor) refuse(name, why string) error {
	err := fmt.Errorf("%s: %w: %s", name, ErrRefused, why)
	x.warn(name, err)
	return err
}

func (x *Extractor) warn(name string, err error) {
	if x.capture != nil {
		// The writer goroutine of WriteQueued: WriteQueued's caller
		// gets the warning with the entry's outcome.
		*x.capture = append(*x.capture, warning{name, err})
		return
	}
	if x.opts.Warn != nil {
		x.opts.Warn(name, err)
	}
}

// existsErr is the error of an entry skipped because its file exists:
// "name: skipped: file exists", wrapping ErrSkipped and ErrExists.
func existsErr(name string) error {
	return fmt.Errorf("%s: %w: %w", name, ErrSkipped, ErrExists)
}

func createErr(name string, err error) error {
	return fmt.Errorf("%s: %w: %w", name, ErrCreate, err)
}

// Write extracts one entry with content r. See the package documentation
// for the rules. It returns nil on success, an error wrapping ErrRefused,
// ErrSkipped or ErrCreate, or the error of r (e.g. wrapping
// archive.ErrChecksum).
func (x *Extractor) Write(e *archive.Entry, r io.Reader) error {
	// Entries queued by WriteQueued go first (the errors of their done
	// calls are dropped: do not mix the two without need).
	x.Flush()
	return x.writeEntry(e, r)
}

// writeEntry is Write without the queue.
func (x *Extractor) writeEntry(e *archive.Entry, r io.Reader) error {
	if e.Anti {
		return nil
	}
	e, ok, serr := x.stripped(e)
	if !ok {
		return serr
	}
	mark := len(x.createdDirs)
	err := x.write(e, r)
	if err != nil && len(x.createdDirs) > mark {
		// Directories created only for an entry that failed go again.
		x.removeCreatedDirs(mark)
	}
	return err
}

func (x *Extractor) write(e *archive.Entry, r io.Reader) error {
	rel, note, why := cleanName(e.Name)
	if why == whyEmptyName && e.Type == archive.TypeDir {
		// A directory named "" (or "/", its root removed) is the
		// destination itself, as GNU tar reads it ("."), not an entry
		// to refuse.
		rel, why = ".", ""
	}
	if why != "" {
		name := e.Name
		if name == "" {
			// Still say which entry it is.
			name = fmt.Sprintf("entry #%d", e.Index+1)
		}
		return x.refuse(name, why)
	}
	if note != "" {
		// Not an error: the entry is written inside the destination.
		x.warn(e.Name, fmt.Errorf("%s: %w: absolute path made relative (%s)", e.Name, ErrNotice, note))
	}
	key := rel // hard links and copies name entries by their full path
	if x.opts.Flat {
		if e.Type == archive.TypeDir {
			return nil
		}
		rel = path.Base(rel)
	}
	if rel == "." {
		if e.Type == archive.TypeDir {
			return nil
		}
		return x.refuse(e.Name, "name is the destination itself")
	}
	osRel := x.osRel(key)

	if e.Type == archive.TypeDir {
		return x.writeDir(e, osRel, x.fullPath(osRel))
	}
	if e.Type == archive.TypeSymlink && x.opts.Links == LinksSkip {
		err := fmt.Errorf("%s: %w: symbolic link", e.Name, ErrSkipped)
		x.warn(e.Name, err)
		return err
	}
	if err := x.mkdirs(e.Name, path.Dir(osRel)); err != nil {
		return err
	}
	switch e.Type {
	case archive.TypeSymlink:
		return x.writeSymlink(e, key, rel, x.fullPath(osRel), r)
	case archive.TypeHardlink, archive.TypeCopy:
		return x.writeLink(e, key, x.fullPath(osRel))
	}
	return x.writeFile(e, key, osRel, r)
}

// osPath returns where the entry with the cleaned name key goes: its
// slash-separated path relative to the root (the base name with Flat,
// sanitized on Windows) and the full path. Write computes it for each
// entry, and Rollback and hard links again from the key, so that no path
// needs to be kept per entry.
func (x *Extractor) osPath(key string) (osRel, target string) {
	osRel = x.osRel(key)
	return osRel, x.fullPath(osRel)
}

// osRel is osPath's first result.
func (x *Extractor) osRel(key string) string {
	osRel := key
	if x.opts.Flat {
		osRel = path.Base(key)
	}
	if sanitizeNames {
		parts := strings.Split(osRel, "/")
		for i, p := range parts {
			parts[i] = SanitizeWindowsName(p)
		}
		osRel = strings.Join(parts, "/")
	}
	return osRel
}

// fullPath returns the path of osRel below the root.
func (x *Extractor) fullPath(osRel string) string {
	return filepath.Join(x.root, filepath.FromSlash(osRel))
}

// dirPath returns the path of dir (osRel's directory), which mkdirs has
// just verified: for the directory it verified last, without making the
// string again.
func (x *Extractor) dirPath(dir string) string {
	switch {
	case dir == "." || dir == "":
		return x.root
	case dir == x.lastDir && x.lastDirPath != "":
		return x.lastDirPath
	}
	return x.fullPath(dir)
}

// recordWritten notes that the entry key was written as a regular file
// where dst says, which hard links and copies may then use. The common
// path, osPath's target, is not stored. It follows the entry's place.
func (x *Extractor) recordWritten(key string, dst *placement) {
	if x.placedRecord {
		x.placedRecord = false
		x.records.markRegular(key)
		return
	}
	final := dst.path
	if dst.atTarget {
		final = ""
	}
	x.records.add(key, final, "", placedRegular)
}

// writtenPath returns where the entry key was written in this run.
func (x *Extractor) writtenPath(key string) (string, bool) {
	p, ok := x.records.regular(key)
	if ok && p == "" {
		_, p = x.osPath(key)
	}
	return p, ok
}

// mkdirs makes sure every component of dir (slash-separated, relative to
// the root) is a real directory, creating missing ones. A symbolic link
// anywhere on the way refuses the entry.
func (x *Extractor) mkdirs(name, dir string) error {
	if dir == "." || dir == "" || dir == x.lastDir {
		// Archives list the entries of a directory together: the
		// directory verified last is most often the next one's too.
		return nil
	}
	if p := x.fullPath(dir); x.verified[p] {
		// Verified with all its parents before (7-Zip's solid archives
		// go round the directories).
		x.lastDir, x.lastDirPath = dir, p
		return nil
	}
	cur := x.root
	for _, c := range strings.Split(dir, "/") {
		cur = filepath.Join(cur, c)
		if x.verified[cur] {
			continue
		}
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.Mkdir(cur, 0o755); err == nil {
				x.created[cur] = true
				x.createdDirs = append(x.createdDirs, cur)
				x.verified[cur] = true
				continue
			}
			if !errors.Is(err, fs.ErrExist) {
				return createErr(name, err)
			}
			fi, err = os.Lstat(cur)
		}
		if err != nil {
			return createErr(name, err)
		}
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			// ModeIrregular: Windows reports junctions and other reparse
			// points so; they redirect like links.
			return x.refuse(name, "path component "+x.relPath(cur)+" is a symbolic link or reparse point")
		}
		if !fi.IsDir() {
			return createErr(name, fmt.Errorf("%s is not a directory", x.relPath(cur)))
		}
		x.verified[cur] = true
	}
	x.lastDir, x.lastDirPath = dir, cur
	return nil
}

func (x *Extractor) relPath(p string) string {
	if r, err := filepath.Rel(x.root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func (x *Extractor) writeDir(e *archive.Entry, osRel, target string) error {
	if err := x.mkdirs(e.Name, path.Dir(osRel)); err != nil {
		return err
	}
	// mkdir first: most directories do not exist yet, and mkdir never
	// follows a link at the name. Only what exists is examined. A
	// directory made or found real here is verified, as mkdirs would.
	if err := os.Mkdir(target, 0o700|dirPerm(e)); err == nil {
		x.created[target] = true
		x.createdDirs = append(x.createdDirs, target)
	} else {
		if !errors.Is(err, fs.ErrExist) {
			return createErr(e.Name, err)
		}
		fi, err := os.Lstat(target)
		switch {
		case err != nil:
			return createErr(e.Name, err)
		case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
			return x.refuse(e.Name, "a symbolic link is in the way of the directory")
		case !fi.IsDir():
			return createErr(e.Name, errors.New("a file is in the way of the directory"))
		}
	}
	x.verified[target] = true
	x.dirs = append(x.dirs, dirRecord{
		path:    target,
		depth:   strings.Count(osRel, "/"),
		mode:    dirPerm(e),
		setMode: x.created[target],
		made:    0o700 | dirPerm(e),
		mtime:   e.ModTime,
		atime:   e.AccessTime(),
		meta:    metaOf(e),
	})
	return nil
}

// filePerm returns the permission bits for a file entry: the stored unix
// permissions without setuid/setgid/sticky, or 0644; a Windows read-only
// attribute removes the write bits.
func filePerm(e *archive.Entry) fs.FileMode {
	perm := fs.FileMode(0o644)
	if e.HasUnixMode {
		perm = e.Mode.Perm()
	} else if e.Attributes&archive.AttrReadOnly != 0 {
		perm &^= 0o222
	}
	return perm
}

// dirPerm is filePerm for directories, with 0755 as the fallback.
func dirPerm(e *archive.Entry) fs.FileMode {
	perm := fs.FileMode(0o755)
	if e.HasUnixMode {
		perm = e.Mode.Perm()
	}
	return perm
}

// placement is where an entry goes, decided by resolveExisting, and then
// what placing it did: a file, link or hard link at path, which did not
// exist before (fresh) or was moved aside to aside first
// (OverwriteRenameExisting).
type placement struct {
	key      string // the entry's cleaned name, for osPath
	atTarget bool   // path is osPath's target for key
	path     string
	fresh    bool
	aside    string
	// dir and base give path when it is empty: a new file written at
	// its final name needs the full path only for an error (an
	// allocation per file saved, issue 13).
	dir, base string
	// renameOf and renameN record, once the entry is placed, that
	// freeName used the number renameN for renameOf.
	renameOf string
	renameN  int
}

// resolveExisting applies the overwrite policy to target. It returns
// where to write (target, or a renamed one) or an error. An existing file
// or symbolic link at that path is later replaced by rename (or renamed
// aside), never opened.
func (x *Extractor) resolveExisting(e *archive.Entry, target string) (placement, error) {
	name := e.Name
	typ, err := x.at.lstatType(target)
	if errors.Is(err, fs.ErrNotExist) {
		return placement{path: target, atTarget: true, fresh: true}, nil
	}
	if err != nil {
		return placement{}, createErr(name, err)
	}
	if typ.IsDir() {
		return placement{}, createErr(name, errors.New("a directory is in the way"))
	}
	mode := x.mode
	if mode == OverwriteAsk {
		ans, err := x.opts.Ask(target, e)
		if err != nil {
			return placement{}, err
		}
		switch ans {
		case AnswerReplace, AnswerReplaceAll:
			mode = OverwriteAll
		case AnswerRename, AnswerRenameAll:
			mode = OverwriteRename
		default:
			mode = OverwriteSkip // kept quietly: the user said so
		}
		if ans >= AnswerKeepAll {
			x.mode = mode
		}
	}
	switch mode {
	case OverwriteAll:
		return placement{path: target, atTarget: true}, nil
	case OverwriteRename:
		cand, n, err := x.freeName(name, target)
		return placement{path: cand, fresh: true, renameOf: target, renameN: n}, err
	case OverwriteRenameExisting:
		cand, n, err := x.freeName(name, target)
		return placement{path: target, atTarget: true, aside: cand, renameOf: target, renameN: n}, err
	case OverwriteSkip:
		return placement{}, existsErr(name)
	}
	err = existsErr(name)
	x.warn(name, err)
	return placement{}, err
}

// freeName returns the first unused name "stem_n.ext" for target, as
// 7-Zip's -aou and -aot name them: "x.txt" → "x_1.txt", "a.b.c" →
// "a.b_1.c", ".profile" → ".profile_1", "README" → "README_1".
// It also returns the number used, which place records when the entry is
// in place, so that the next search for target starts after it.
func (x *Extractor) freeName(name, target string) (string, int, error) {
	dir, base := filepath.Split(target)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if stem == "" { // ".profile"
		stem, ext = base, ""
	}
	if x.renamed == nil {
		x.renamed = make(map[string]int)
	}
	for i := x.renamed[target] + 1; i < 100000; i++ {
		cand := filepath.Join(dir, stem+"_"+strconv.Itoa(i)+ext)
		if _, err := os.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
			return cand, i, nil
		}
	}
	x.renamed[target] = 100000
	return "", 0, createErr(name, errors.New("no free name to rename to"))
}

// fullPath returns the placement's path, making it from dir and base
// when needed.
func (p *placement) fullPath() string {
	if p.path == "" {
		p.path = filepath.Join(p.dir, p.base)
	}
	return p.path
}

// dirPath returns the directory of the placement's path.
func (p *placement) dirPath() string {
	if p.path == "" {
		return p.dir
	}
	return filepath.Dir(p.path)
}

// createNew creates the new empty file k names (a file at its final
// name) with O_EXCL, registered for Abort and RemoveTemporaries as a
// temporary file is until its content is complete (done). A name that
// exists fails with an error wrapping fs.ErrExist.
func (x *Extractor) createNew(k tempKey, perm fs.FileMode) (outFile, error) {
	var f outFile
	err := x.createKey(k, func() (err error) {
		f, err = x.at.create(k, perm)
		return err
	}, func() {
		f.Close()
		os.Remove(k.path())
	})
	return f, err
}

// tempFile creates a new empty file in dir with O_EXCL, under a fresh
// temporary name registered for Abort and RemoveTemporaries.
func (x *Extractor) tempFile(dir string, perm fs.FileMode) (outFile, string, error) {
	for i := 0; ; i++ {
		var p string
		if i == 0 && x.freeTemp != "" && filepath.Dir(x.freeTemp) == dir {
			// The name of the last temporary file renamed away here:
			// free again, and O_EXCL says whether it still is.
			p = x.freeTemp
		} else {
			p = tempname.In(dir)
		}
		x.freeTemp = ""
		var f outFile
		err := x.createTemp(p, func() (err error) {
			f, err = x.at.create(tempKey{name: p}, perm)
			return err
		}, func() {
			f.Close()
			os.Remove(p)
		})
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return f, "", err
		}
	}
}

// createTemp runs create, which makes the temporary file (or link) p,
// with p registered in pending; discard undoes a successful create when
// RemoveTemporaries ran meanwhile.
func (x *Extractor) createTemp(p string, create func() error, discard func()) error {
	return x.createKey(tempKey{name: p}, create, discard)
}

// createKey is createTemp for the file k names.
func (x *Extractor) createKey(k tempKey, create func() error, discard func()) error {
	if err := pending.begin(x, k); err != nil {
		return err
	}
	err := create()
	if err == nil {
		return pending.end(k, discard)
	}
	pending.end(k, nil)
	return err
}

func (x *Extractor) forgetTemp(p string) { pending.done(tempKey{name: p}) }

func (x *Extractor) removeTemp(p string) { x.removeKey(tempKey{name: p}) }

// removeKey removes the pending file k names and forgets it.
func (x *Extractor) removeKey(k tempKey) {
	os.Remove(k.path())
	pending.done(k)
}

// commit moves a finished temporary file into place at dst and sets its
// times unless timesSet says they are, and on Windows its attributes and
// creation time (applyWindowsMeta).
func (x *Extractor) commit(e *archive.Entry, tmp string, dst *placement, timesSet bool) error {
	if !timesSet {
		x.setTimes(tmp, e)
	}
	applyWindowsMeta(tmp, metaOf(e))
	return x.place(e, tmp, dst)
}

// place renames the temporary tmp to dst's path, first moving an existing
// file there aside when dst says so, and records what it did for
// Rollback.
func (x *Extractor) place(e *archive.Entry, tmp string, dst *placement) error {
	x.placedRecord = false
	if dst.aside != "" {
		// rename moves a link itself, never what it points to.
		if err := x.at.rename(dst.path, dst.aside); err != nil {
			x.removeTemp(tmp)
			return createErr(e.Name, err)
		}
	}
	if err := x.at.rename(tmp, dst.path); err != nil {
		if dst.aside != "" {
			x.at.rename(dst.aside, dst.path)
		}
		x.removeTemp(tmp)
		return createErr(e.Name, atFinal(err, dst.path))
	}
	x.forgetTemp(tmp)
	x.freeTemp = tmp
	if dst.renameN > 0 {
		x.renamed[dst.renameOf] = dst.renameN
	}
	if dst.fresh || dst.aside != "" {
		path := dst.path
		if dst.atTarget {
			path = ""
		}
		x.records.add(dst.key, path, dst.aside, placedNew)
		x.placedRecord = true
	}
	return nil
}

func (x *Extractor) setTimes(p string, e *archive.Entry) {
	if e.ModTime.IsZero() && e.AccessTime().IsZero() {
		return
	}
	x.at.setTimes(p, e.AccessTime(), e.ModTime) // best effort; zero times are left unchanged
}

// writeFile writes the regular file of entry e (cleaned name rel) at
// osRel below the root.
//
// Most names do not exist yet: the file is then created at its final
// name with O_EXCL (which never follows a link put there), registered
// as a temporary file is until its content is complete, and removed
// again if the content fails, so that no existence check and no rename
// is needed (two system calls fewer per file: issue 24). When the name
// exists (or appears after the check: O_EXCL decides), the overwrite
// policy applies, and the content goes to a temporary file renamed
// into place once complete, so that an existing file is replaced whole
// or not at all.
func (x *Extractor) writeFile(e *archive.Entry, rel, osRel string, r io.Reader) error {
	dir := x.dirPath(path.Dir(osRel))
	dst := placement{key: rel, dir: dir, base: path.Base(osRel), atTarget: true, fresh: true}
	perm := filePerm(e)
	createPerm := perm
	if runtime.GOOS == "windows" {
		// A read-only file could not be removed on failure; the
		// attribute is applied once the content is complete.
		createPerm = 0o666
	}
	out := tempKey{dir: dir, name: dst.base}
	f, err := x.createNew(out, createPerm)
	if err != nil && !errors.Is(err, errRemovingTemporaries) {
		// The name exists (O_EXCL failed), or creating failed for
		// another reason (on Windows a directory at the name may
		// deny access): examined, it gets the overwrite policy and
		// the error it always got.
		d, err := x.resolveExisting(e, dst.fullPath())
		if err != nil {
			return err
		}
		d.key = rel
		dst = d
		var tmp string
		f, tmp, err = x.tempFile(dst.dirPath(), createPerm)
		if err != nil {
			return createErr(e.Name, atFinal(err, dst.fullPath()))
		}
		out = tempKey{name: tmp}
	} else if err != nil {
		return createErr(e.Name, err)
	}
	if r == nil {
		r = strings.NewReader("")
	}
	var rerr, werr error
	// The holes of a sparse entry are skipped, not written: a tar of a
	// few KiB can hold a file of terabytes, most of it hole (GNU tar and
	// bsdtar make sparse files of them too). Where the reader knows its
	// holes (archive.HoleSkipper) they are passed over without being
	// read, so that they cost nothing whatever their size; runs of zeros
	// read are skipped too. The size is set first, so that one the file
	// system cannot hold is refused before anything is read. size counts
	// the bytes written or skipped; hole says the file ends in a skipped
	// run, so its size is set at the end.
	holes := e.IsSparse()
	var skipper archive.HoleSkipper
	if holes {
		skipper, _ = r.(archive.HoleSkipper)
		if e.Size > 0 {
			werr = f.setSize(e.Size)
		}
	}
	var size int64
	hole := false
	// Content in memory (an entry WriteQueued queued) is written from
	// there rather than copied through x.buf, which a run of small files
	// then never allocates; reading it cannot fail.
	// A reader that lends its own buffer (a compressed tar's, read
	// ahead) is written from there, without the copy into x.buf.
	mem, inMemory := r.(*bytes.Reader)
	lender, lends := r.(archive.ChunkReader)
	if inMemory = inMemory && !holes; inMemory {
		_, werr = mem.WriteTo(f)
	} else if lends = lends && !holes; !lends && x.buf == nil {
		x.buf = make([]byte, 256<<10)
	}
	for werr == nil && !inMemory {
		if skipper != nil {
			n, err := skipper.SkipHole()
			if err != nil {
				rerr = err
				break
			}
			if n > 0 {
				if werr = f.skip(n); werr != nil {
					break
				}
				size += n
				hole = true
			}
		}
		var b []byte
		var err error
		if lends {
			b, err = lender.ReadChunk()
		} else {
			var n int
			n, err = r.Read(x.buf)
			b = x.buf[:n]
		}
		if len(b) > 0 {
			if holes && allZero(b) {
				werr, hole = f.skip(int64(len(b))), true
			} else {
				_, werr = f.Write(b)
				hole = false
			}
			if werr != nil {
				break
			}
			size += int64(len(b))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = err
			break
		}
	}
	if hole && werr == nil {
		werr = f.setSize(size)
	}
	// Times are set on the open descriptor where the system allows it.
	timesSet := werr == nil && (e.ModTime.IsZero() && e.AccessTime().IsZero() || f.setTimes(e.AccessTime(), e.ModTime) == nil)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		x.removeKey(out)
		return createErr(e.Name, atFinal(werr, dst.fullPath()))
	}
	if x.zone != nil {
		x.markOfWeb(out.path())
	}
	if rerr != nil {
		if x.opts.KeepBroken {
			if err := x.complete(e, out, &dst, timesSet); err != nil {
				return errors.Join(rerr, err)
			}
			x.recordWritten(rel, &dst)
		} else {
			// A new file at its final name is removed like a
			// temporary one: it existed only for this entry.
			x.removeKey(out)
		}
		return rerr
	}
	if createPerm != perm {
		os.Chmod(out.path(), perm)
	}
	if err := x.complete(e, out, &dst, timesSet); err != nil {
		return err
	}
	x.recordWritten(rel, &dst)
	return nil
}

// complete finishes the output file out of entry e, whose content is
// written: a temporary file is committed to dst; a new file at its final
// name gets its times (unless timesSet) and Windows metadata, and is
// recorded as placed where nothing existed. Such a file that Abort or
// RemoveTemporaries removed meanwhile fails the entry.
func (x *Extractor) complete(e *archive.Entry, out tempKey, dst *placement, timesSet bool) error {
	if out.dir == "" {
		return x.commit(e, out.name, dst, timesSet)
	}
	if !timesSet {
		x.setTimes(out.path(), e)
	}
	if runtime.GOOS == "windows" {
		applyWindowsMeta(out.path(), metaOf(e))
	}
	x.placedRecord = false
	if !pending.done(out) {
		return createErr(e.Name, errAborted)
	}
	x.records.add(dst.key, "", "", placedNew)
	x.placedRecord = true
	return nil
}

// markOfWeb gives the complete temporary file tmp the Zone.Identifier
// stream of Options.ZoneIdentifier, if any: before its times and
// attributes are set (a stream written later would change its
// modification time, and a read-only file takes none). Best effort, as
// 7-Zip's: the file stays when the stream cannot be written.
func (x *Extractor) markOfWeb(tmp string) {
	if x.zone != nil {
		writeZone(tmp, x.zone)
	}
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.NativeEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// maxLinkTarget bounds a symbolic link target read from entry data.
const maxLinkTarget = 64 << 10

// writeSymlink makes the symbolic link of entry e, whose cleaned full
// name is key, at rel (key, or its base name with Flat), target the full
// path; the link target is e.LinkTarget or, when that is empty, the data
// r holds.
func (x *Extractor) writeSymlink(e *archive.Entry, key, rel, target string, r io.Reader) error {
	linkTarget := e.LinkTarget
	if linkTarget == "" && r != nil {
		b, err := io.ReadAll(io.LimitReader(r, maxLinkTarget+1))
		if err != nil {
			return err
		}
		if len(b) > maxLinkTarget {
			return x.refuse(e.Name, "link target too long")
		}
		linkTarget = string(b)
	}
	if linkTarget == "" {
		return x.refuse(e.Name, "empty link target")
	}
	if x.opts.Links == LinksSafe || x.opts.Links == LinksCopy {
		why := checkLinkTarget(rel, linkTarget)
		if why == "" && windowsLinkRules {
			why = windowsLinkProblem(rel, linkTarget)
		}
		if why == "" {
			why = x.resolveOnDisk(rel, linkTarget)
		}
		if why != "" {
			return x.refuse(e.Name, why+": "+linkTarget)
		}
	}
	if x.opts.Links == LinksCopy {
		return x.copyLink(e, key, target, linkTarget)
	}
	dst, err := x.resolveExisting(e, target)
	if err != nil {
		return err
	}
	dst.key = rel
	osTarget := filepath.FromSlash(mapLinkTarget(linkTargetPath(linkTarget)))
	// Create under a temporary name, then rename over the final name, so
	// an existing file or link is replaced, never written through.
	for i := 0; ; i++ {
		tmp := tempname.In(filepath.Dir(dst.path))
		err = x.createTemp(tmp, func() error { return symlink(osTarget, tmp) }, func() { os.Remove(tmp) })
		if err == nil {
			if !e.ModTime.IsZero() || !e.AccessTime().IsZero() {
				lchtimes(tmp, e.AccessTime(), e.ModTime) // best effort
			}
			if err := x.place(e, tmp, &dst); err != nil {
				return err
			}
			if x.symlinks == nil {
				x.symlinks = make(map[string]string)
			}
			x.symlinks[key] = linkTarget
			return nil
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if runtime.GOOS == "windows" && !errors.Is(err, errRemovingTemporaries) {
		// Creating symbolic links needs a privilege or developer mode.
		werr := fmt.Errorf("%s: %w: cannot create symbolic link: %w", e.Name, ErrSkipped, err)
		x.warn(e.Name, werr)
		return werr
	}
	return createErr(e.Name, atFinal(err, dst.path))
}

// maxLinkHops bounds the symbolic links resolveOnDisk follows, as the
// kernel's limit on nested links (40 on Linux) does.
const maxLinkHops = 40

// resolveOnDisk follows a link target (already accepted lexically by
// checkLinkTarget) from the directory of rel through what exists on disk,
// component by component, as the kernel would, and returns why the target
// is refused, or "" when it stays inside the destination:
//
//   - A symbolic link on the way (made by the user or an earlier run) that
//     is absolute or climbs out of the destination refuses it, as do more
//     than 40 links.
//   - A ".." of the target itself after a normal component ("d/..") must
//     climb back over a real directory that exists now, named by the
//     target itself: a real directory stays one (nothing the extractor
//     does replaces a directory), so "d/.." means the same forever. Over
//     a name that does not exist yet, or is a file, or after a component
//     that is a link, the meaning of ".." would change when a later entry
//     (or a later run) makes that name a link ("d -> ." turns "d/.." into
//     the destination's parent), so the target is refused.
//
// Components that do not exist are otherwise taken lexically: nothing
// below them exists either, and links created later obey the same rules,
// which keeps every chain of them inside.
func (x *Extractor) resolveOnDisk(rel, target string) string {
	// stack holds the components from the root to the current
	// directory; real[i] says stack[i] is a directory found on disk.
	var stack []string
	var real []bool
	if d := path.Dir(rel); d != "." {
		stack = strings.Split(d, "/") // real: mkdirs verified them
		real = make([]bool, len(stack))
		for i := range real {
			real[i] = true
		}
	}
	// pending are the components still to resolve: those of links
	// followed, then the last own ones, which come from the target itself.
	pending := strings.Split(linkTargetPath(target), "/")
	own := len(pending)
	hops := 0
	descended := false // the target itself named a normal component
	viaLink := false   // … that was a link
	missing := false   // the current directory does not exist
	for len(pending) > 0 {
		isOwn := len(pending) == own
		if isOwn {
			own--
		}
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return "link target leaves the destination through an existing link"
			}
			if isOwn && descended && (viaLink || !real[len(stack)-1]) {
				return "link target climbs with '..' over a name that is not a real directory"
			}
			stack, real = stack[:len(stack)-1], real[:len(real)-1]
			missing = len(real) > 0 && !real[len(real)-1]
			continue
		}
		if isOwn {
			descended = true
		}
		if missing {
			stack, real = append(stack, c), append(real, false)
			continue
		}
		p := filepath.Join(x.root, filepath.FromSlash(path.Join(path.Join(stack...), c)))
		fi, err := os.Lstat(p)
		if err != nil {
			missing = true
			stack, real = append(stack, c), append(real, false)
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			// A file or other non-directory cannot be walked through: a
			// ".." over it means what a later replacement makes of it.
			isDir := fi.IsDir()
			missing = !isDir
			stack, real = append(stack, c), append(real, isDir)
			continue
		}
		if isOwn {
			viaLink = true
		}
		hops++
		if hops > maxLinkHops {
			return "link target passes through too many links"
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "link target passes through an unreadable link"
		}
		t = filepath.ToSlash(t)
		if t == "" || strings.HasPrefix(t, "/") || filepath.IsAbs(t) || hasDriveLetter(t) {
			return "link target passes through " + path.Join(path.Join(stack...), c) + ", an absolute link"
		}
		// The link's own target replaces it, relative to its directory.
		pending = append(strings.Split(t, "/"), pending...)
	}
	return ""
}

// writeLink makes a hard link (falling back to a copy) or a file copy of
// an entry extracted earlier in this run.
func (x *Extractor) writeLink(e *archive.Entry, rel, target string) error {
	tname, _, why := cleanName(e.LinkTarget)
	if why != "" {
		return x.refuse(e.Name, "link target: "+why)
	}
	src, ok := x.writtenPath(tname)
	var fi fs.FileInfo
	var err error
	if ok {
		fi, err = os.Lstat(src)
	}
	if !ok || err != nil || !fi.Mode().IsRegular() {
		if linkTarget, isLink := x.symlinks[tname]; isLink && e.Type == archive.TypeHardlink {
			// A hard link to a symbolic link made in this run is that
			// link once more, at the new name: made as a symbolic
			// link with the same target, under the link rules for
			// where it is now (a relative target means something
			// else in another directory).
			le := *e
			le.Type, le.LinkTarget = archive.TypeSymlink, linkTarget
			if x.opts.Links == LinksSkip {
				err := fmt.Errorf("%s: %w: symbolic link", e.Name, ErrSkipped)
				x.warn(e.Name, err)
				return err
			}
			srel := rel
			if x.opts.Flat {
				srel = path.Base(rel)
			}
			return x.writeSymlink(&le, rel, srel, target, nil)
		}
		if !ok {
			return x.refuse(e.Name, "link target "+e.LinkTarget+" was not extracted")
		}
		return x.refuse(e.Name, "link target "+e.LinkTarget+" is no longer a regular file")
	}
	if tfi, err := os.Lstat(target); err == nil && os.SameFile(fi, tfi) {
		// The name already is the file the entry links or copies
		// ("f" linked to itself, a hard link entry repeated): nothing
		// to make, and no existing file to ask about. A link renamed
		// over its own file would stay at the temporary name.
		x.placedRecord = false
		x.recordWritten(rel, &placement{path: target, atTarget: true})
		return nil
	}
	dst, err := x.resolveExisting(e, target)
	if err != nil {
		return err
	}
	dst.key = rel
	if e.Type == archive.TypeHardlink {
		tmp := tempname.In(filepath.Dir(dst.path))
		if err := x.createTemp(tmp, func() error { return os.Link(src, tmp) }, func() { os.Remove(tmp) }); err == nil {
			return x.placeLink(e, rel, tmp, &dst)
		}
	}
	in, err := os.OpenFile(src, os.O_RDONLY|tempname.NoFollow, 0)
	if err != nil {
		return createErr(e.Name, err)
	}
	defer in.Close()
	perm := filePerm(e)
	if e.Type == archive.TypeHardlink {
		perm = fi.Mode().Perm()
	}
	f, tmp, err := x.tempFile(filepath.Dir(dst.path), perm)
	if err != nil {
		return createErr(e.Name, atFinal(err, dst.path))
	}
	if x.buf == nil {
		x.buf = make([]byte, 256<<10)
	}
	_, err = io.CopyBuffer(struct{ io.Writer }{f}, struct{ io.Reader }{in}, x.buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.removeTemp(tmp)
		return createErr(e.Name, atFinal(err, dst.path))
	}
	x.markOfWeb(tmp)
	if runtime.GOOS == "windows" && perm&0o200 == 0 {
		// Created writable (createFile), made read-only once complete.
		os.Chmod(tmp, perm)
	}
	if err := x.commit(e, tmp, &dst, false); err != nil {
		return err
	}
	x.recordWritten(rel, &dst)
	return nil
}

// placeLink places tmp, a hard link just made to an extracted file, at
// dst and records it. When dst's path is already a link to the same file
// (made by something else since writeLink looked), rename(2) does nothing
// and reports success, so the temporary name would stay: it is removed.
func (x *Extractor) placeLink(e *archive.Entry, rel, tmp string, dst *placement) error {
	if err := x.place(e, tmp, dst); err != nil {
		return err
	}
	if _, err := os.Lstat(tmp); err == nil {
		os.Remove(tmp)
	}
	x.recordWritten(rel, dst)
	return nil
}

// Finish applies directory times and modes, deepest directories first so
// that writing into a directory does not disturb its restored time, and
// removes any temporary file left behind. It returns the first failure,
// wrapping ErrCreate.
func (x *Extractor) Finish() error {
	x.stopQueue(false)
	x.finishCopies()
	var first error
	sort.SliceStable(x.dirs, func(i, j int) bool { return x.dirs[i].depth > x.dirs[j].depth })
	for _, d := range x.dirs {
		if !pathTimesNoFollow || d.setMode && d.made&^d.mode != 0 {
			// Examined first, for a chmod, which follows links, or
			// for times set through the path (not on Linux, whose
			// utimensat does not follow a link). A directory
			// created with bits that mode (Revise may have changed
			// it since) all has has, with the umask or a default
			// ACL applied, at most mode's bits: no chmod.
			fi, err := os.Lstat(d.path)
			if err != nil || !fi.IsDir() {
				continue // replaced meanwhile: never follow a link here
			}
			if d.setMode {
				// The directory was created with the umask applied
				// to mode|0700; keep what the umask allowed of mode.
				want := fi.Mode().Perm() & d.mode
				if want != fi.Mode().Perm() {
					if err := os.Chmod(d.path, want); err != nil && first == nil {
						first = createErr(x.relPath(d.path), err)
					}
				}
			}
		}
		if !d.mtime.IsZero() || !d.atime.IsZero() {
			if err := setPathTimes(d.path, d.atime, d.mtime); err != nil && first == nil {
				first = createErr(x.relPath(d.path), err)
			}
		}
		// Last, after the directory's contents: a read-only
		// directory's attribute among them.
		applyWindowsMeta(d.path, d.meta)
	}
	x.dirs = x.dirs[:0]
	x.removeTemps()
	x.at.close()
	return first
}

// Abort removes temporary files; call it on interruption or a fatal
// error. Files already completed stay; entries still queued by
// WriteQueued are not written, and their outcomes not delivered.
func (x *Extractor) Abort() {
	x.stopQueue(true)
	x.removeTemps()
}

// Rollback undoes this run: it removes temporary files, then every file,
// symbolic link and hard link this run created at a name where nothing
// existed, then the directories it created (the destination included,
// when New created it), deepest first. Nothing that existed before the
// run is touched: a file replaced under OverwriteAll stays, and a created
// directory that is not empty (something else was put there meanwhile)
// stays. Call it instead of Finish when the run failed as a whole, e.g.
// with a wrong or missing password, so that the destination holds
// nothing from it. The Extractor must not be used afterwards. It returns
// the first failure other than a name already gone or a directory not
// empty, wrapping ErrCreate.
func (x *Extractor) Rollback() error {
	x.stopQueue(true)
	x.removeTemps()
	x.at.close()
	var first error
	for i := x.records.n - 1; i >= 0; i-- {
		pl, pp := x.records.at(i)
		if pl.flags&placedNew == 0 {
			continue // replaced what existed: stays
		}
		if pp.path == "" {
			_, pp.path = x.osPath(pl.key)
		}
		err := os.Remove(pp.path)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err == nil && pp.aside != "" {
			err = os.Rename(pp.aside, pp.path)
		}
		if err != nil && first == nil {
			first = createErr(x.relPath(pp.path), err)
		}
	}
	x.records.reset()
	x.dirs = x.dirs[:0]
	if err := x.removeCreatedDirs(0); err != nil && first == nil {
		first = err
	}
	return first
}

// removeCreatedDirs removes the directories createdDirs[mark:], children
// before parents, and forgets them. A directory that is not empty stays
// and stays recorded; other failures are returned (the first one).
func (x *Extractor) removeCreatedDirs(mark int) error {
	x.lastDir, x.lastDirPath = "", ""
	x.at.close() // it may refer to a directory removed here
	var first error
	var keep []string
	for i := len(x.createdDirs) - 1; i >= mark; i-- {
		p := x.createdDirs[i]
		err := os.Remove(p)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			delete(x.created, p)
			delete(x.verified, p)
			continue
		}
		if first == nil && !isNotEmpty(p) {
			first = createErr(x.relPath(p), err)
		}
		keep = append(keep, p)
	}
	slices.Reverse(keep)
	x.createdDirs = append(x.createdDirs[:mark], keep...)
	return first
}

// isNotEmpty reports whether the directory p, which os.Remove failed to
// remove with err, still holds something (the error itself differs
// between systems: ENOTEMPTY, EEXIST, ERROR_DIR_NOT_EMPTY).
func isNotEmpty(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}

func (x *Extractor) removeTemps() { pending.removeOf(x) }
