// Writing 7z archives (this file, write_header.go, write_group.go,
// write_update.go).
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
// Updating starts from a Base archive: folders whose entries all survive
// are copied byte for byte with their records and substream CRCs; folders
// that lose some entries are decoded once and their survivors
// recompressed into a new folder; entries without data are carried over.
// 7-Zip's default update rule decides whether an input replaces an entry
// of the same name (different size or newer modification time).

package sevenzip

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/ppmd"
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

// WriteOptions configure Write. The zero value writes an LZMA2 level 5
// solid archive with a compressed header.
type WriteOptions struct {
	// Method is "LZMA2" (default), "LZMA", "PPMd", "BZip2", "Deflate" or
	// "Copy" (7-Zip's -mx0), in any letter case.
	Method string
	// Level is 1..9; 0 (or out of range) means 5. PPMd takes 7-Zip's
	// order and model memory for the level (ppmd.LevelProps7z), Deflate
	// a compress/flate level (deflateLevels), BZip2 a block size
	// (bzip2Level).
	Level int
	// DictSize overrides the level's dictionary size; for PPMd it is the
	// model memory size (64 KiB to 4 GiB - 36, a multiple of 4, as 7-Zip
	// accepts). Deflate's window is always 32 KiB and BZip2's block size
	// follows the level; both ignore it.
	DictSize uint32
	// Filter is "" (automatic: BCJ or ARM64 for executables), "off", or
	// a filter forced on every block: "BCJ" (x86) or "ARM64".
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

	// Base is an existing archive being updated or pruned. Its entries
	// are kept (their packed data copied without recompression where a
	// whole folder survives) unless Keep rejects them or, with Update,
	// an item of the same name replaces them.
	Base *Base
	// Keep selects the base entries to keep; nil keeps all.
	Keep func(e *archive.Entry) bool
	// Update applies 7-Zip's default update rule to items whose names
	// exist in Base: an item replaces the old entry when its size differs
	// or its modification time is newer; otherwise the old entry is kept
	// and the item is skipped. Without Update, items always replace.
	Update bool
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
}

// Default key derivation cost of 7-Zip's 7zAES encoder.
const defaultKDFCycles = 19

// filterKind is the branch filter chosen for a block.
type filterKind int

const (
	filterNone filterKind = iota
	filterX86
	filterARM64
)

// srcFile is one file with data waiting to be compressed.
type srcFile struct {
	info fileInfo
	size int64
	name string
	open func() (io.ReadCloser, error)
	ext  string
	kind filterKind
}

// writer holds the state of one Write call.
type writer struct {
	ctx    context.Context
	out    Output
	opts   WriteOptions
	method string
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
}

// Write writes a 7z archive of items (plus the surviving entries of
// opts.Base) to out.
func Write(ctx context.Context, out Output, items []WriteItem, opts *WriteOptions) (*WriteStats, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	w := &writer{ctx: ctx, out: out}
	if opts != nil {
		w.opts = *opts
	}
	if err := w.setup(); err != nil {
		return nil, err
	}
	return w.run(items)
}

// setup normalises the options.
func (w *writer) setup() error {
	o := &w.opts
	if err := w.setupMethod(); err != nil {
		return err
	}
	if o.EncryptHeaders && o.Password == "" {
		return errors.New("7z writer: encrypted headers need a password")
	}
	if o.KDFCycles == 0 {
		o.KDFCycles = defaultKDFCycles
	}
	switch strings.ToUpper(o.Filter) {
	case "", "AUTO", "OFF", "BCJ", "X86", "ARM64":
	default:
		return &archive.UnsupportedError{What: "7z write filter " + o.Filter}
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

// deflateLevels maps 7-Zip's levels 1..9 to compress/flate levels.
// 7-Zip's Deflate encoder has four tiers: -mx1..4 its fast parser (one
// setting for all four), -mx5..6 the optimal parser, -mx7..8 three passes
// with more fast bytes, -mx9 ten passes. On the standard mixed data 7-Zip's
// -mx1 lies between flate 4 and 5 in size and time, so -mx1..2 get flate
// 4 and -mx3..4 flate 5; -mx5..6 get flate 7 (flate 9's long hash chains
// cost 2.5 times the time for 0.3 % there, and far more on repetitive
// text), -mx7..8 flate 8 and -mx9 flate's best. 7-Zip's optimal parser
// still packs 4-7 % smaller at its higher levels.
var deflateLevels = [10]int{0, 4, 4, 5, 5, 7, 7, 8, 8, 9}

// deflateLevel maps a 7-Zip level (1..9) to a compress/flate level.
func deflateLevel(level int) int { return deflateLevels[min(max(level, 1), 9)] }

// bzip2Level maps a 7-Zip level (1..9) to a BZip2 block size in 100 kB
// units, as 7-Zip's BZip2 encoder does (CEncProps::Normalize in
// BZip2Encoder.cpp): 2×level−1 below -mx5, 900 kB from -mx5 up.
func bzip2Level(level int) int {
	level = min(max(level, 1), 9)
	if level >= 5 {
		return 9
	}
	return 2*level - 1
}

// windowSize is the dictionary of LZMA and LZMA2, PPMd's model memory,
// Deflate's 32 KiB window and BZip2's block size: what 7-Zip scales the
// solid block size by.
func (w *writer) windowSize() int64 {
	switch w.method {
	case "PPMD":
		return int64(w.ppmdMem)
	case "DEFLATE":
		return 32 << 10
	case "BZIP2":
		return int64(w.bzLevel) * 100000
	}
	return int64(w.lopts.DictSize)
}

// solidLimit returns the unpacked bytes per solid block.
func (w *writer) solidLimit() int64 {
	if w.opts.Solid.BlockSize > 0 {
		return w.opts.Solid.BlockSize
	}
	if w.method == "COPY" {
		return 1 << 62
	}
	// 7-Zip (SetMainMethod in 7zHandlerOut.cpp): 128 times the
	// dictionary or model memory, at least 16 MiB, at most 4 GiB.
	return min(max(w.windowSize()<<7, 16<<20), 4<<30)
}

// parallelLimit is the largest folder compressGroups compresses into
// memory on a goroutine of its own. LZMA and LZMA2 folders up to their
// dictionary, PPMd folders up to the model memory (their arenas are
// reduced to the folder size); larger ones go straight to the output,
// LZMA2 with its own block parallelism. Deflate folders are always small
// enough to buffer (16 MiB by default, at most 64 MiB held per folder).
func (w *writer) parallelLimit() int64 {
	if w.method == "DEFLATE" {
		return min(w.solidLimit()+1, 64<<20)
	}
	return w.windowSize()
}

func (w *writer) write(p []byte) error {
	n, err := w.out.Write(p)
	w.pos += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

func (w *writer) run(items []WriteItem) (*WriteStats, error) {
	st := &WriteStats{}
	// Validate the items.
	seen := make(map[string]int, len(items))
	for i := range items {
		it := &items[i]
		if it.Name == "" {
			return nil, fmt.Errorf("7z writer: item %d without a name", i)
		}
		if j, ok := seen[it.Name]; ok {
			return nil, fmt.Errorf("7z writer: %q added twice (items %d and %d)", it.Name, j, i)
		}
		seen[it.Name] = i
		if it.Type == archive.TypeFile && it.Size != 0 && it.Open == nil {
			return nil, fmt.Errorf("7z writer: %q has no content", it.Name)
		}
	}
	plan, err := w.planBase(items, st)
	if err != nil {
		return nil, err
	}
	defer plan.close()
	var empties []fileInfo
	empties = append(empties, plan.empties...)
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
			empties = append(empties, fi)
		case it.Type == archive.TypeSymlink:
			target := it.LinkTarget
			newData = append(newData, &srcFile{info: fi, size: int64(len(target)), name: it.Name,
				open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(target)), nil }})
		case it.Size == 0:
			fi.hasStream, fi.isEmptyFile = false, true
			empties = append(empties, fi)
		default:
			newData = append(newData, &srcFile{info: fi, size: it.Size, name: it.Name, open: it.Open})
		}
		st.Added++
	}
	// Dirs first, then empty files, as 7-Zip lists them.
	var dirs, efiles []fileInfo
	for _, f := range empties {
		if f.isEmptyFile {
			efiles = append(efiles, f)
		} else {
			dirs = append(dirs, f)
		}
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
		if strings.EqualFold(w.opts.Filter, "off") || w.method == "COPY" {
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
	all := make([]fileInfo, 0, len(dirs)+len(efiles)+len(w.files))
	all = append(all, dirs...)
	all = append(all, efiles...)
	all = append(all, w.files...)
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

// finish writes the header and the signature header.
func (w *writer) finish(files []fileInfo) error {
	si := &w.si
	var next []byte
	if len(files) > 0 {
		plain := plainHeader(si, files)
		next = plain
		if !w.opts.NoHeaderCompression || w.opts.EncryptHeaders {
			enc, err := w.encodeHeader(plain)
			if err != nil {
				return err
			}
			next = enc
		}
	}
	nextOff := w.pos - signatureHeaderSize
	if err := w.write(next); err != nil {
		return err
	}
	var sh [signatureHeaderSize]byte
	copy(sh[:], signature)
	sh[6], sh[7] = 0, 4
	if len(next) == 0 {
		nextOff = 0
	}
	binary.LittleEndian.PutUint64(sh[12:], uint64(nextOff))
	binary.LittleEndian.PutUint64(sh[20:], uint64(len(next)))
	binary.LittleEndian.PutUint32(sh[28:], crc32.ChecksumIEEE(next))
	binary.LittleEndian.PutUint32(sh[8:], crc32.ChecksumIEEE(sh[12:32]))
	if _, err := w.out.WriteAt(sh[:], 0); err != nil {
		return err
	}
	return nil
}

// encodeHeader compresses (and encrypts) the plain header into a packed
// stream and returns the kEncodedHeader record that describes it.
func (w *writer) encodeHeader(plain []byte) ([]byte, error) {
	start := w.pos
	pack := &countWriter{w: w.out}
	var mid io.Writer = pack
	var aw *aes.EncryptWriter
	var midCount *countWriter
	var aesCoder coder
	if w.opts.EncryptHeaders {
		var err error
		if aw, aesCoder, err = w.newAES(pack); err != nil {
			return nil, err
		}
		midCount = &countWriter{w: aw}
		mid = midCount
	}
	lo := lzma.LevelOptions(5)
	lo.DictSize = uint32(min(max(len(plain), 1<<16), 1<<24))
	lo.FastBytes = 273
	z, err := lzma.NewWriter(mid, lo)
	if err != nil {
		return nil, err
	}
	if _, err := z.Write(plain); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	f := folder{coders: []coder{{id: methodLZMA, numIn: 1, numOut: 1, props: z.Props()}},
		unpackSizes: []uint64{uint64(len(plain))}, hasCRC: true, crc: crc32.ChecksumIEEE(plain)}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return nil, err
		}
		f.coders = append(f.coders, aesCoder)
		f.unpackSizes = append(f.unpackSizes, uint64(midCount.n))
	}
	chainFolder(&f)
	w.pos += pack.n
	if pack.err != nil {
		return nil, pack.err
	}
	si := streamsInfo{packPos: uint64(start - signatureHeaderSize), packSizes: []uint64{uint64(pack.n)},
		folders: []folder{f}}
	hw := &headerWriter{}
	hw.byte(idEncodedHeader)
	hw.streamsInfo(&si)
	return hw.b, nil
}

// chainFolder turns a folder whose coders and unpack sizes are listed
// from the main output towards the packed stream into 7-Zip's layout: the
// list is reversed so that coder 0 reads the packed stream, coder i+1
// reads coder i's output, and the last coder produces the main output.
// (Readers such as py7zr depend on this order.)
func chainFolder(f *folder) {
	n := len(f.coders)
	for i := 0; i < n/2; i++ {
		f.coders[i], f.coders[n-1-i] = f.coders[n-1-i], f.coders[i]
		f.unpackSizes[i], f.unpackSizes[n-1-i] = f.unpackSizes[n-1-i], f.unpackSizes[i]
	}
	f.bindPairs = f.bindPairs[:0]
	for i := range f.coders {
		f.coders[i].inStart, f.coders[i].outStart = i, i
		f.coders[i].numIn, f.coders[i].numOut = 1, 1
		if i > 0 {
			f.bindPairs = append(f.bindPairs, bindPair{inIndex: i, outIndex: i - 1})
		}
	}
	f.packed = []int{0}
}

// newAES starts a 7zAES encryption with a fresh IV and returns its coder
// record.
func (w *writer) newAES(to io.Writer) (*aes.EncryptWriter, coder, error) {
	var iv [16]byte
	if _, err := rand.Read(iv[:]); err != nil {
		return nil, coder{}, err
	}
	aw, err := aes.NewEncryptWriter(to, w.key[:], iv[:])
	if err != nil {
		return nil, coder{}, err
	}
	props := make([]byte, 0, 2+32)
	props = append(props, byte(w.opts.KDFCycles)|0xC0, byte(len(w.salt)-1)<<4|byte(len(iv)-1))
	props = append(props, w.salt[:]...)
	props = append(props, iv[:]...)
	return aw, coder{id: methodAES, numIn: 1, numOut: 1, props: props}, nil
}

// countWriter counts bytes written through it.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// folderResult is a compressed folder waiting to be recorded.
type folderResult struct {
	f      folder
	packed int64
	sizes  []uint64
	crcs   []uint32
	infos  []fileInfo
	data   *bytes.Buffer // the packed stream, for folders compressed in parallel
}

// encoderSet holds the encoders and the read buffer one goroutine reuses
// from folder to folder.
type encoderSet struct {
	lz2  *lzma.Writer2
	lz1  *lzma.Writer
	ppmd *ppmd.Writer7z
	fl   *flate.Writer
	bz   *bzip2.Writer
	buf  []byte
}

// compressFolder compresses files into one folder written straight to the
// output and records it.
func (w *writer) compressFolder(files []*srcFile, kind filterKind) error {
	if len(files) == 0 {
		return nil
	}
	r, err := w.encodeFolder(w.ctx, w.out, files, kind, &w.enc)
	if r != nil {
		w.pos += r.packed
	}
	if err != nil {
		return err
	}
	w.record(r)
	return nil
}

// record appends a compressed folder to the streams info.
func (w *writer) record(r *folderResult) {
	r.f.firstSub = len(w.si.subSizes)
	r.f.numSub = len(r.sizes)
	for i := range r.sizes {
		w.si.subSizes = append(w.si.subSizes, r.sizes[i])
		w.si.subHasCRC = append(w.si.subHasCRC, true)
		w.si.subCRCs = append(w.si.subCRCs, r.crcs[i])
	}
	w.files = append(w.files, r.infos...)
	w.si.packSizes = append(w.si.packSizes, uint64(r.packed))
	w.si.folders = append(w.si.folders, r.f)
}

// encodeFolder compresses files into one folder with the configured
// method, an optional branch filter and optional encryption, writing the
// packed stream to dst. The result's packed size is valid even on error.
func (w *writer) encodeFolder(ctx context.Context, dst io.Writer, files []*srcFile, kind filterKind, es *encoderSet) (*folderResult, error) {
	res := &folderResult{}
	pack := &countWriter{w: dst}
	defer func() { res.packed = pack.n }()
	var mid io.Writer = pack
	var aw *aes.EncryptWriter
	var midCount *countWriter
	var aesCoder coder
	if w.haveKey {
		var err error
		if aw, aesCoder, err = w.newAES(pack); err != nil {
			return res, err
		}
		defer aw.Close() // releases the pooled buffer on errors; no-op after Close
		midCount = &countWriter{w: aw}
		mid = midCount
	}
	var comp io.Writer
	var compClose func() error
	var mcoder coder
	switch w.method {
	case "LZMA2":
		if lo, small := w.reducedOptions(files); small {
			z, err := lzma.NewWriter2(mid, lo)
			if err != nil {
				return res, err
			}
			comp, compClose = z, z.Close
			mcoder = coder{id: methodLZMA2, props: []byte{z.Props()}}
			break
		}
		if es.lz2 == nil {
			z, err := lzma.NewWriter2(mid, w.lopts)
			if err != nil {
				return res, err
			}
			es.lz2 = z
		} else {
			es.lz2.Reset(mid)
		}
		comp, compClose = es.lz2, es.lz2.Close
		mcoder = coder{id: methodLZMA2, props: []byte{es.lz2.Props()}}
	case "LZMA":
		if lo, small := w.reducedOptions(files); small {
			z, err := lzma.NewWriter(mid, lo)
			if err != nil {
				return res, err
			}
			comp, compClose = z, z.Close
			mcoder = coder{id: methodLZMA, props: z.Props()}
			break
		}
		if es.lz1 == nil {
			z, err := lzma.NewWriter(mid, w.lopts)
			if err != nil {
				return res, err
			}
			es.lz1 = z
		} else {
			es.lz1.Reset(mid)
		}
		comp, compClose = es.lz1, es.lz1.Close
		mcoder = coder{id: methodLZMA, props: es.lz1.Props()}
	case "PPMD":
		// 7-Zip cuts the model memory to the folder's size (ReduceSize).
		mem := w.ppmdMem
		if n := expectedSize(files); n >= 0 {
			mem = ppmd.ReduceMem7z(mem, n)
		}
		if es.ppmd == nil {
			z, err := ppmd.NewWriter7z(mid, w.ppmdOrder, mem)
			if err != nil {
				return res, err
			}
			es.ppmd = z
		} else if err := es.ppmd.ResetProps(mid, w.ppmdOrder, mem); err != nil {
			return res, err
		}
		comp, compClose = es.ppmd, es.ppmd.Close
		mcoder = coder{id: methodPPMd, props: es.ppmd.Props()}
	case "DEFLATE":
		if es.fl == nil {
			z, err := flate.NewWriter(mid, w.flateLevel)
			if err != nil {
				return res, err
			}
			es.fl = z
		} else {
			es.fl.Reset(mid)
		}
		comp, compClose = es.fl, es.fl.Close
		mcoder = coder{id: methodDeflate}
	case "BZIP2":
		// Blocks are compressed on up to Threads goroutines; the
		// stream does not depend on their number.
		if es.bz == nil {
			z, err := bzip2.NewWriterThreads(mid, w.bzLevel, max(w.opts.Threads, 1))
			if err != nil {
				return res, err
			}
			es.bz = z
		} else {
			es.bz.Reset(mid)
		}
		comp, compClose = es.bz, es.bz.Close
		mcoder = coder{id: methodBZip2}
	default:
		comp, compClose = mid, func() error { return nil }
		mcoder = coder{id: methodCopy}
	}
	var in io.Writer = comp
	var fw io.WriteCloser
	f := &res.f
	switch kind {
	case filterX86:
		fw = filters.NewWriter(comp, filters.NewX86(true))
		f.coders = append(f.coders, coder{id: methodBCJ})
	case filterARM64:
		fw = filters.NewWriter(comp, filters.NewARM64(true, 0))
		f.coders = append(f.coders, coder{id: methodARM64})
	}
	if fw != nil {
		in = fw
	}
	f.coders = append(f.coders, mcoder)
	var total int64
	if es.buf == nil {
		es.buf = make([]byte, 256<<10)
	}
	for _, sf := range files {
		n, crc, err := w.copyFile(ctx, in, sf, es.buf)
		if err != nil {
			return res, err
		}
		total += n
		res.sizes = append(res.sizes, uint64(n))
		res.crcs = append(res.crcs, crc)
		res.infos = append(res.infos, sf.info)
	}
	if fw != nil {
		if err := fw.Close(); err != nil {
			return res, err
		}
	}
	if err := compClose(); err != nil {
		return res, err
	}
	if es.lz2 != nil && comp == io.Writer(es.lz2) && total < int64(w.lopts.DictSize) {
		// Writer2 sizes the encoder of a stream shorter than the
		// dictionary to the stream; do not reuse it for the next folder.
		es.lz2 = nil
	}
	for range f.coders {
		f.unpackSizes = append(f.unpackSizes, uint64(total))
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return res, err
		}
		f.coders = append(f.coders, aesCoder)
		f.unpackSizes = append(f.unpackSizes, uint64(midCount.n))
	}
	if pack.err != nil {
		return res, pack.err
	}
	chainFolder(f)
	return res, nil
}

// expectedSize is the sum of the files' sizes, or -1 when one is unknown.
func expectedSize(files []*srcFile) int64 {
	var t int64
	for _, sf := range files {
		if sf.size < 0 {
			return -1
		}
		t += sf.size
	}
	return t
}

// compressGroups compresses the new solid blocks. With several threads,
// blocks up to parallelLimit (smaller than the dictionary for LZMA, which
// get encoders of their own anyway) are compressed in parallel into
// memory, at most Threads+1 of them held at once, and written in order;
// larger blocks are compressed straight to the output, using LZMA2's own
// block parallelism. The bytes are the same whatever the thread count.
func (w *writer) compressGroups(groups []fileGroup) error {
	threads := w.opts.Threads
	if threads <= 1 || len(groups) < 2 || w.method == "COPY" {
		for _, g := range groups {
			if err := w.compressFolder(g.files, g.kind); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	type job struct {
		r    *folderResult
		err  error
		done chan struct{}
	}
	var pending []*job
	// sets holds one encoder set per thread: taking one is the
	// semaphore, and a PPMd arena or flate state is reused from folder
	// to folder instead of being allocated per folder.
	sets := make(chan *encoderSet, threads)
	for range threads {
		sets <- &encoderSet{buf: make([]byte, 64<<10)}
	}
	defer func() {
		cancel()
		for _, j := range pending {
			<-j.done
		}
	}()
	flushOldest := func() error {
		j := pending[0]
		<-j.done
		pending = pending[1:]
		if j.err != nil {
			return j.err
		}
		if err := w.write(j.r.data.Bytes()); err != nil {
			return err
		}
		j.r.data = nil
		w.record(j.r)
		return nil
	}
	for _, g := range groups {
		size := expectedSize(g.files)
		if size < 0 || size >= w.parallelLimit() {
			for len(pending) > 0 {
				if err := flushOldest(); err != nil {
					return err
				}
			}
			if err := w.compressFolder(g.files, g.kind); err != nil {
				return err
			}
			continue
		}
		for len(pending) > threads {
			if err := flushOldest(); err != nil {
				return err
			}
		}
		j := &job{done: make(chan struct{})}
		pending = append(pending, j)
		go func(g fileGroup, size int64) {
			defer close(j.done)
			es := <-sets
			defer func() { sets <- es }()
			buf := bytes.NewBuffer(make([]byte, 0, size/2+4096))
			j.r, j.err = w.encodeFolder(ctx, buf, g.files, g.kind, es)
			if j.r != nil {
				j.r.data = buf
			}
		}(g, size)
	}
	for len(pending) > 0 {
		if err := flushOldest(); err != nil {
			return err
		}
	}
	return nil
}

// reducedOptions returns encoder options with the dictionary reduced to
// the folder's expected size, as 7-Zip does, when that is smaller than
// the level's dictionary: decoders then need less memory. The size is
// rounded up to 2^n or 3*2^n, which LZMA2 can express, and at least 4 KiB.
func (w *writer) reducedOptions(files []*srcFile) (lzma.WriterOptions, bool) {
	var total int64
	for _, sf := range files {
		if sf.size < 0 {
			return w.lopts, false
		}
		total += sf.size
	}
	if total >= int64(w.lopts.DictSize) {
		return w.lopts, false
	}
	d := int64(1 << 12)
	for d < total {
		if d+d/2 >= total && d >= 1<<13 {
			d += d / 2
			break
		}
		d *= 2
	}
	if d >= int64(w.lopts.DictSize) {
		return w.lopts, false
	}
	lo := w.lopts
	lo.DictSize = uint32(d)
	lo.BlockSize = 0
	return lo, true
}

// copyFile streams one file into the folder's encoder and returns the
// bytes read and their CRC.
func (w *writer) copyFile(ctx context.Context, dst io.Writer, sf *srcFile, buf []byte) (int64, uint32, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	rc, err := sf.open()
	if err != nil {
		return 0, 0, err
	}
	defer rc.Close()
	var n int64
	var crc uint32
	for {
		k, rerr := rc.Read(buf)
		if k > 0 {
			crc = crc32.Update(crc, crc32.IEEETable, buf[:k])
			if _, err := dst.Write(buf[:k]); err != nil {
				return n, crc, err
			}
			n += int64(k)
			w.progress(int64(k), sf.name)
			if err := ctx.Err(); err != nil {
				return n, crc, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return n, crc, fmt.Errorf("%s: %w", sf.name, rerr)
		}
	}
	w.progress(0, sf.name)
	return n, crc, nil
}

// progress counts content bytes read and reports them.
func (w *writer) progress(n int64, name string) {
	w.done.Add(n)
	if w.opts.Progress != nil {
		w.progMu.Lock()
		w.opts.Progress(w.done.Load(), name) // loaded under the lock: never goes back
		w.progMu.Unlock()
	}
}
