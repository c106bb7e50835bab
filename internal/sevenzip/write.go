// Writing 7z archives: the entry points and options (this file), solid
// blocks and filters (write_group.go), folders and their coders
// (write_folder.go), file input (write_input.go), the header
// (write_header.go), methods and their parameters (write_method.go,
// write_params.go) and updates of an existing archive (write_update.go).
//
// Write lays an archive out as 7-Zip does: a 32-byte signature header
// (filled in last, through Output.WriteAt), the packed streams of every
// folder, then the header. Each new folder is a chain of coders fed by one
// goroutine: an optional branch filter (BCJ x86 or ARM64, chosen per file
// by extension and by the PE/ELF/Mach-O header), the compressor (LZMA2,
// LZMA, PPMd, BZip2, Deflate or Copy) and optional 7zAES encryption, with byte counters between
// the stages giving the unpack size of every coder output. Folders are
// recorded in 7-Zip's coder order: coder 0 reads the packed stream and the
// last coder produces the file data.
//
// Files with data are grouped into solid blocks by filter (and by
// extension with -ms=e) in input order, cut at 7-Zip's size limit (128
// times the dictionary — PPMd's model memory, Deflate's 32 KiB window,
// BZip2's block size —
// 16 MiB to 4 GiB) or a file count. Directories and
// empty files have no stream (kEmptyStream, kEmptyFile) and are listed
// first. The header (FilesInfo with names, times, attributes) is written
// plain or, by default, LZMA-compressed and optionally encrypted as a
// kEncodedHeader. Encryption derives one key per archive from a random
// 16-byte salt (2^19 SHA-256 rounds by default) and uses a random IV per
// folder.
//
// Update starts from an existing archive: folders whose entries all survive
// are copied byte for byte with their records and substream CRCs; folders
// that lose some entries are decoded once and their survivors
// recompressed into a new folder; entries without data are carried over.
// 7-Zip's default update rule decides whether an input replaces an entry
// of the same name (different size or newer modification time).

package sevenzip

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
)

// Output is where an archive is written: sequentially with Write, except
// that the 32-byte signature header is filled in at offset 0 at the end
// with WriteAt. *os.File satisfies it.
type Output interface {
	io.Writer
	WriteAt(p []byte, off int64) (int, error)
}

// WriteItem is one entry to add to an archive.
type WriteItem struct {
	// Name is the stored path, '/' separated and relative.
	Name string
	// Type is TypeFile, TypeDir or TypeSymlink. A symlink's LinkTarget is
	// stored as its data, as 7-Zip does on unix.
	Type       archive.EntryType
	LinkTarget string
	// Size is the expected content size (it decides empty files, solid
	// block limits and update comparisons); the bytes actually read are
	// what is stored.
	Size int64
	// Times; zero values are not stored.
	ModTime, CreateTime, AccessTime time.Time
	// Attributes are Windows attributes, with a unix mode in the high 16
	// bits when AttrUnixExtension is set. HasAttributes says to store them.
	Attributes    uint32
	HasAttributes bool
	// Open returns the content of a file. It is called once, when the
	// file is compressed (and possibly once before, briefly, to look at
	// its first bytes for executable detection).
	Open func() (io.ReadCloser, error)
}

// SolidOptions decide how files are grouped into solid blocks (7-Zip -ms).
type SolidOptions struct {
	Off           bool  // one block per file (-ms=off)
	BlockSize     int64 // unpacked bytes per block; 0: 7-Zip's default for the dictionary
	FilesPerBlock int   // files per block; 0: no limit
	ByExtension   bool  // a new block for each extension (-ms=e)
}

// WriteOptions configure Write and Update. The zero value writes an
// LZMA2 level 5 solid archive with a compressed header.
type WriteOptions struct {
	// Method is "LZMA2" (default), "LZMA", "PPMd", "BZip2", "Deflate" or
	// "Copy" (7-Zip's -mx0), in any letter case, optionally followed by
	// 7-Zip's parameters ("LZMA2:d=64m:fb=64", "PPMd:o=8:mem=256m"; see
	// applyParam).
	Method string
	// Level is 1..9; 0 (or out of range) means 5. PPMd takes 7-Zip's
	// order and model memory for the level (ppmd.LevelProps7z), Deflate
	// a compress/flate level (deflateLevels), BZip2 a block size
	// (bzip2Level).
	Level int
	// DictSize overrides the level's dictionary size; for PPMd it is the
	// model memory size (64 KiB to 4 GiB - 36, a multiple of 4, as 7-Zip
	// accepts); for LZMA and LZMA2 lzma.MinDictSize to lzma.MaxDictSize. Deflate's window
	// is always 32 KiB and BZip2's block size follows the level; both
	// ignore it.
	DictSize int64
	// Filter is "" (automatic: BCJ or ARM64 for executables), "off", or
	// a filter forced on every block: "BCJ" (or "x86") or "ARM64"; any
	// other name, or a chain ("BCJ+Delta"), is unsupported.
	Filter string
	Solid  SolidOptions
	// NoHeaderCompression writes the header uncompressed (-mhc=off).
	NoHeaderCompression bool
	// Password encrypts the data with 7zAES; EncryptHeaders the header too.
	Password       string
	EncryptHeaders bool
	// KDFCycles is the 7zAES key derivation cost (log2 of the rounds); 0
	// means 19, 7-Zip's default.
	KDFCycles int
	// Threads compress LZMA2 blocks, and small folders of any method,
	// in parallel; the output does not depend on it.
	Threads int
	// Progress, when set, is called with the content bytes read so far and
	// the current entry name.
	Progress func(done int64, name string)

	// Name names the archive in error messages.
	Name string
	// MaxDict and Memory bound the memory of reading the base archive of
	// an update, as archive.Options's fields of the same names bound a
	// reader (--max-dict); zero values give the reader's defaults.
	MaxDict int64
	Memory  *archive.MemoryBudget
	// MixedEncryption lets Update add entries to an archive with
	// encrypted entries without a password (they are stored unencrypted),
	// or with a password the archive's entries were not encrypted with.
	// Without it both are refused (ErrMixedEncryption).
	MixedEncryption bool
}

// WriteStats summarise a written archive.
type WriteStats struct {
	Files, Dirs   int   // entries in the new archive
	Added         int   // items compressed from the inputs
	Kept          int   // entries taken over from the base archive
	Skipped       int   // items not added because the base had them unchanged
	BytesIn       int64 // content bytes read and compressed
	BytesOut      int64 // size of the archive
	UnpackedSize  int64 // total size of the entries in the archive
	CopiedFolders int   // base folders copied without recompression
	Deleted       int   // base entries deleted (Changes.Delete)
}

// Default key derivation cost of 7-Zip's 7zAES encoder.
const defaultKDFCycles = 19

// writer holds the state of one Write call.
type writer struct {
	// ctx is cancelled when the call's context is, and by cancel when
	// any part of the write fails, so that encoders running in parallel
	// stop.
	ctx    context.Context
	cancel context.CancelCauseFunc
	out    Output
	opts   WriteOptions
	method writeMethod
	lopts  lzma.WriterOptions
	// PPMd model order and memory, before the reduction to a folder's
	// size; Deflate's compress/flate level.
	ppmdOrder  int
	ppmdMem    uint32
	flateLevel int
	// BZip2 block size in 100 kB units.
	bzLevel int
	pos     int64 // bytes written to out
	key     [32]byte
	salt    [16]byte
	haveKey bool
	buf     []byte
	done    atomic.Int64
	progMu  sync.Mutex
	enc     encoderSet // encoders of the writing goroutine

	si    streamsInfo
	files []fileInfo // files with data, in folder order

	// The archive being updated, if any: its entries are kept unless
	// deleteBase selects them or, with the update rule, an item of the
	// same name replaces them.
	base       *Reader
	deleteBase func(e *archive.Entry) bool
}

// Write writes a new 7z archive of items to out.
func Write(ctx context.Context, out Output, items []WriteItem, opts *WriteOptions) (*WriteStats, error) {
	w, err := newWriter(ctx, out, opts)
	if err != nil {
		return nil, err
	}
	return w.run(items)
}

// newWriter checks the options and prepares a Write or Update.
func newWriter(ctx context.Context, out Output, opts *WriteOptions) (*writer, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	w := &writer{ctx: ctx, out: out, cancel: func(error) {}}
	if opts != nil {
		w.opts = *opts
	}
	if err := w.setup(); err != nil {
		return nil, err
	}
	return w, nil
}

// CheckOptions reports whether Write and Update accept opts, without
// writing anything: the method and its parameters (errors wrap
// ErrMethodParam, or archive.ErrUnsupported for an unknown method or
// filter), the dictionary size and the header encryption.
func CheckOptions(opts *WriteOptions) error {
	w := &writer{opts: *opts}
	if err := w.setupMethod(); err != nil {
		return err
	}
	return w.checkOptions(opts)
}

// setup normalises the options.
func (w *writer) setup() error {
	o := &w.opts
	if err := w.setupMethod(); err != nil {
		return err
	}
	if err := w.checkOptions(o); err != nil {
		return err
	}
	if o.KDFCycles == 0 {
		o.KDFCycles = defaultKDFCycles
	}
	if o.Password != "" {
		if _, err := rand.Read(w.salt[:]); err != nil {
			return err
		}
		k, err := aes.Key7z(o.Password, w.salt[:], o.KDFCycles)
		if err != nil {
			return err
		}
		w.key, w.haveKey = k, true
	}
	w.buf = make([]byte, 256<<10)
	return nil
}

// checkOptions checks the options setupMethod does not.
func (w *writer) checkOptions(o *WriteOptions) error {
	if o.EncryptHeaders && o.Password == "" {
		return errors.New("7z writer: encrypted headers need a password")
	}
	switch strings.ToUpper(o.Filter) {
	case "", "AUTO", "OFF", "BCJ", "X86", "ARM64":
	default:
		return &archive.UnsupportedError{What: "7z write filter " + o.Filter}
	}
	return nil
}

// write appends p to the output.
func (w *writer) write(p []byte) error {
	n, err := w.out.Write(p)
	w.pos += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

// run writes the archive: the base's surviving folders, then the new
// files, then the header.
func (w *writer) run(items []WriteItem) (st *WriteStats, err error) {
	w.ctx, w.cancel = context.WithCancelCause(w.ctx)
	defer func() {
		w.cancel(err)
		if err != nil && errors.Is(err, context.Canceled) {
			// A part stopped because another failed: report the first
			// failure, not the cancellation it caused.
			if cause := context.Cause(w.ctx); cause != nil {
				err = cause
			}
		}
	}()
	st = &WriteStats{}
	// Validate the items.
	byName, dupJ, dupI := sortByName(items)
	for i := range items {
		it := &items[i]
		if it.Name == "" {
			return nil, fmt.Errorf("7z writer: item %d without a name", i)
		}
		if i == dupI {
			return nil, fmt.Errorf("7z writer: %q added twice (items %d and %d)", it.Name, dupJ, i)
		}
		if it.Type == archive.TypeFile && it.Size != 0 && it.Open == nil {
			return nil, fmt.Errorf("7z writer: %q has no content", it.Name)
		}
	}
	plan, err := w.planBase(items, byName, st)
	if err != nil {
		return nil, err
	}
	defer plan.close()
	// Directories first, then empty files, as 7-Zip lists them.
	dirs, efiles := plan.dirs, plan.emptyFiles
	plan.dirs, plan.emptyFiles = nil, nil
	var newData []*srcFile
	for i := range items {
		if plan.skipItem != nil && plan.skipItem[i] {
			st.Skipped++
			continue
		}
		it := &items[i]
		fi := itemInfo(it)
		switch {
		case it.Type == archive.TypeDir:
			fi.hasStream = false
			dirs = append(dirs, fi)
		case it.Type == archive.TypeSymlink:
			target := it.LinkTarget
			newData = append(newData, &srcFile{info: fi, size: int64(len(target)), name: it.Name,
				open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(target)), nil }})
		case it.Size == 0:
			fi.hasStream, fi.isEmptyFile = false, true
			efiles = append(efiles, fi)
		default:
			newData = append(newData, &srcFile{info: fi, size: it.Size, name: it.Name, open: it.Open})
		}
		st.Added++
	}

	if err := w.write(make([]byte, signatureHeaderSize)); err != nil {
		return nil, err
	}
	// Base folders copied whole, then base folders recompressed, then new.
	if err := w.copyBaseFolders(plan); err != nil {
		return nil, err
	}
	for k, group := range plan.recompress {
		kind := plan.recompKind[k]
		if strings.EqualFold(w.opts.Filter, "off") || w.method == writeCopy {
			kind = filterNone
		}
		if err := w.compressFolder(group, kind); err != nil {
			return nil, err
		}
	}
	groups, err := w.groupNew(newData)
	if err != nil {
		return nil, err
	}
	if err := w.compressGroups(groups); err != nil {
		return nil, err
	}
	groups = nil
	w.release(plan, len(dirs)+len(efiles)+len(w.files))
	all := append(append(dirs, efiles...), w.files...)
	w.files = nil
	for i := range all {
		if all[i].hasStream || all[i].isEmptyFile {
			st.Files++
		} else {
			st.Dirs++
		}
	}
	st.BytesIn = w.done.Load()
	for _, n := range w.si.subSizes {
		st.UnpackedSize += int64(n)
	}
	st.CopiedFolders = plan.copied
	if err := w.finish(all); err != nil {
		return nil, err
	}
	st.BytesOut = w.pos
	return st, nil
}

// release drops what the header does not need once every folder is
// written: the encoders and their dictionaries, the base archive's
// reader (its entries and header) and the plan's lists, so that the
// header and its encoder, whose size grows with the entries, do not come
// on top of them. A collection then reuses their memory when the header
// of many entries is large.
func (w *writer) release(plan *basePlan, entries int) {
	w.enc = encoderSet{}
	plan.close()
	plan.keep, plan.skipItem, plan.copyFolder, plan.recompress, plan.recompKind, plan.sources = nil, nil, nil, nil, nil, nil
	w.base, w.deleteBase = nil, nil
	if entries >= releaseGCFiles {
		runtime.GC()
	}
}

// releaseGCFiles is the number of entries from which release collects:
// their header (some 100 bytes each) and its encoder then outweigh a
// collection's work.
const releaseGCFiles = 20000

// sortByName returns the indexes of items in order of their names
// (equal names in item order), an index rather than a map
// from name to item, which would cost some 40 bytes an item; and of the
// items whose name an earlier one has, the first (i, -1 when none) with
// the first item of its name (j).
func sortByName(items []WriteItem) (byName []int32, j, i int) {
	byName = make([]int32, len(items))
	for k := range byName {
		byName[k] = int32(k)
	}
	// Equal names in item order; SortFunc with the index as the tie
	// break is quicker than SortStableFunc.
	slices.SortFunc(byName, func(a, b int32) int {
		if c := strings.Compare(items[a].Name, items[b].Name); c != 0 {
			return c
		}
		return int(a - b)
	})
	j, i = -1, -1
	for k := 1; k < len(byName); k++ {
		a, b := byName[k-1], byName[k]
		if items[a].Name == items[b].Name && (i < 0 || int(b) < i) {
			// The first two of a run of equal names: the run's later
			// items come after b.
			if k < 2 || items[byName[k-2]].Name != items[a].Name {
				j, i = int(a), int(b)
			}
		}
	}
	return byName, j, i
}

// lookup returns the index of the item named name in byName's order
// (sortByName), or -1.
func lookup(items []WriteItem, byName []int32, name string) int {
	k, ok := slices.BinarySearchFunc(byName, name, func(x int32, name string) int { return strings.Compare(items[x].Name, name) })
	if !ok {
		return -1
	}
	return int(byName[k])
}

// itemInfo converts an item's metadata.
func itemInfo(it *WriteItem) fileInfo {
	fi := fileInfo{name: it.Name, hasStream: true}
	if !it.ModTime.IsZero() {
		fi.mtime, fi.hasMTime = timeToFiletime(it.ModTime), true
	}
	if !it.CreateTime.IsZero() {
		fi.ctime, fi.hasCTime = timeToFiletime(it.CreateTime), true
	}
	if !it.AccessTime.IsZero() {
		fi.atime, fi.hasATime = timeToFiletime(it.AccessTime), true
	}
	if it.HasAttributes {
		fi.attrib, fi.hasAttrib = it.Attributes, true
	} else if it.Type == archive.TypeDir {
		fi.attrib, fi.hasAttrib = archive.AttrDirectory, true
	}
	return fi
}
