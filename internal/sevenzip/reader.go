package sevenzip

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/checksum"
	"github.com/garc-dev/garc/internal/deflate64"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/ppmd"
)

// maxLinkTarget bounds the data of a symlink entry.
const maxLinkTarget = 64 << 10

// entryChunk is the number of archive.Entry records allocated at once
// (512 KiB).
const entryChunk = 4096

// collectHeaderSize is the size of a parsed header from which the garbage
// collector runs before the entries are built.
const collectHeaderSize = 1 << 20

// Unix file type bits of st_mode.
const (
	unixTypeMask = 0xF000
	unixSymlink  = 0xA000
	unixDir      = 0x4000
	unixRegular  = 0x8000
)

// Windows reparse tags understood as links.
const (
	reparseTagSymlink    = 0xA000000C
	reparseTagMountPoint = 0xA0000003
)

// entryMeta locates an entry's data in 16 bytes (an archive may hold
// millions of entries).
type entryMeta struct {
	offset int64  // offset of the data within the folder output
	fo     int32  // folder index, -1: no data
	subRep uint32 // global substream index << 1 | 1 if the data is a Windows reparse buffer
}

// noData is the entryMeta of an entry without data.
var noData = entryMeta{fo: -1}

// folder returns the index of the entry's folder, -1 if it has no data.
func (m entryMeta) folder() int { return int(m.fo) }

// sub returns the global index of the entry's substream.
func (m entryMeta) sub() int { return int(m.subRep >> 1) }

// reparse reports whether the entry's data is a Windows reparse buffer.
func (m entryMeta) reparse() bool { return m.subRep&1 != 0 }

// local returns the index of m's substream within its folder.
func (rd *Reader) local(m entryMeta) int {
	return m.sub() - int(rd.hdr.main.folders[m.fo].firstSub)
}

// Reader is an opened 7z archive. It implements archive.Reader.
type Reader struct {
	ra      io.ReaderAt
	size    int64
	opts    *archive.Options
	info    archive.Info
	hdr     *header
	entries []*archive.Entry
	meta    []entryMeta

	pwOnce sync.Once
	pw     string
	pwErr  error

	keyMu      sync.Mutex
	keys       aes.KeyCache // DefaultKeyCacheSize keys, least recently used dropped
	kdfCharged []string     // cycles+salt of the derivations charged to kdfWork, most recent first
	kdfWork    int64        // SHA-256 rounds charged to key derivation so far

	pool   decoderPool
	hdrMem headerMemory // the parsed header's share of the budget

	// linksListed says whether Entries filled the link targets;
	// extracting, whether an Extract runs (Entries then leaves them).
	linksListed, extracting bool
}

var _ archive.Reader = (*Reader)(nil)

// NewReader opens a 7z archive whose signature header is at offset 0 of r
// (the caller has already skipped any SFX stub and concatenated raw
// .001/.002 splits into one ReaderAt). All headers are parsed here.
func NewReader(r io.ReaderAt, size int64, opts *archive.Options) (archive.Reader, error) {
	rd, err := newReader(r, size, opts)
	if err != nil {
		return nil, err
	}
	// The parsed file records are needed only to rewrite the archive
	// (an update opens its base with newReader): the entries hold what
	// reading needs, and archives list millions of them.
	rd.hdr.files = fileRecords{}
	return rd, nil
}

func newReader(r io.ReaderAt, size int64, opts *archive.Options) (*Reader, error) {
	if opts == nil {
		opts = &archive.Options{}
	}
	rd := &Reader{ra: r, size: size, opts: opts}
	rd.pool.mem = opts.Memory
	if rd.pool.mem == nil {
		rd.pool.mem = archive.NewMemoryBudget(opts.Limit())
	}
	rd.pool.mem.AddReclaimer(&rd.pool)
	rd.hdrMem.Budget = rd.pool.mem
	if err := rd.readHeaders(); err != nil {
		rd.Close()
		return nil, rd.wrap("", err)
	}
	return rd, nil
}

// wrap locates an error in the archive: its name, the entry's, and the
// archive offset a locatedError in the chain carries.
func (rd *Reader) wrap(entry string, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) {
		return err
	}
	off := int64(-1)
	var le *locatedError
	if errors.As(err, &le) {
		off = le.off
	}
	return &archive.Error{Archive: rd.opts.Name, Entry: entry, Offset: off, Err: err}
}

// locatedError is a corrupt-data error found at an archive offset (-1 when
// the place is known only inside decoded data, which the message says).
type locatedError struct {
	off int64
	err error
}

func (e *locatedError) Error() string { return e.err.Error() }
func (e *locatedError) Unwrap() error { return e.err }

// codecOffset returns the packed-input offset a codec's corrupt-data error
// reports, or -1.
func codecOffset(err error) int64 {
	var le *lzma.CorruptInputError
	var pe *ppmd.CorruptInputError
	var de *deflate64.CorruptInputError
	var be *bzip2.CorruptInputError
	switch {
	case errors.As(err, &le):
		return le.Offset
	case errors.As(err, &pe):
		return pe.Offset
	case errors.As(err, &de):
		return de.Offset
	case errors.As(err, &be):
		return be.Offset
	}
	return -1
}

// locate names the folder of a decoding failure and, when the folder has
// a single packed stream (so that a codec's packed offset is an offset in
// it: 7zAES maps bytes one to one), gives its archive offset.
func (fs *folderStream) locate(err error) error {
	var le *locatedError
	if errors.As(err, &le) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || err == errStopped {
		return err
	}
	off := int64(-1)
	if co := codecOffset(err); co >= 0 && len(fs.f.packed) == 1 {
		off = signatureHeaderSize + fs.f.packOffset + co
	}
	return &locatedError{off: off, err: fmt.Errorf("7z folder %d: %w", fs.index, err)}
}

// password returns the password, asking for it at most once.
func (rd *Reader) password() (string, error) {
	rd.pwOnce.Do(func() {
		if rd.opts.Password == nil {
			rd.pwErr = archive.ErrPasswordRequired
			return
		}
		rd.pw, rd.pwErr = rd.opts.Password()
	})
	return rd.pw, rd.pwErr
}

// key7z derives a 7zAES key through the reader's key cache.
func (rd *Reader) key7z(pw string, salt []byte, cycles int) ([32]byte, error) {
	rd.keyMu.Lock()
	defer rd.keyMu.Unlock()
	// Every folder may carry its own salt: bound the total work, not only
	// the cost of one derivation, so a small archive with many salts
	// cannot keep the CPU busy for hours. Two derivations at the highest
	// accepted cost are allowed; the cost 0x3F (no hashing) is free. A
	// derivation is charged unless it is among the last ones charged,
	// which the cache (of the same size) still holds.
	ck := string(rune(cycles)) + string(salt)
	if i := slices.Index(rd.kdfCharged, ck); i >= 0 {
		copy(rd.kdfCharged[1:i+1], rd.kdfCharged[:i]) // most recent first, as the cache
		rd.kdfCharged[0] = ck
	} else {
		maxCycles := rd.opts.MaxKDFCost
		if maxCycles <= 0 {
			maxCycles = aes.MaxCycles7z
		}
		if cycles != 0x3F && cycles >= 0 && cycles <= maxCycles {
			budget := int64(2) << maxCycles
			if rd.kdfWork+int64(1)<<cycles > budget {
				return [32]byte{}, &archive.LimitError{What: "7zAES key derivation work (rounds, all salts)", Need: rd.kdfWork + int64(1)<<cycles, Limit: budget, Fixed: true}
			}
			rd.kdfWork += int64(1) << cycles
		}
		if len(rd.kdfCharged) < aes.DefaultKeyCacheSize {
			rd.kdfCharged = append(rd.kdfCharged, "")
		}
		copy(rd.kdfCharged[1:], rd.kdfCharged)
		rd.kdfCharged[0] = ck
	}
	return rd.keys.Key7z(pw, salt, cycles, rd.opts.MaxKDFCost)
}

func (rd *Reader) newDecodeContext(ctx context.Context) *decodeContext {
	return &decodeContext{ctx: ctx, opts: rd.opts, password: rd.password, key7z: rd.key7z, pool: &rd.pool}
}

// readHeaders reads the signature header and the (possibly encoded) header.
func (rd *Reader) readHeaders() error {
	var sb [signatureHeaderSize]byte
	if rd.size < signatureHeaderSize {
		return archive.ErrNotArchive
	}
	if _, err := rd.ra.ReadAt(sb[:], 0); err != nil {
		return fmt.Errorf("reading the signature header: %w", err)
	}
	sh, err := parseSignatureHeader(sb[:])
	if err != nil {
		return err
	}
	rd.info.Format = archive.Format7z
	if sh.nextHeaderSize == 0 {
		// An empty archive.
		rd.info.PhysicalSize = signatureHeaderSize
		rd.hdr = &header{}
		return nil
	}
	avail := uint64(rd.size - signatureHeaderSize)
	if sh.nextHeaderOffset > avail || sh.nextHeaderSize > avail-sh.nextHeaderOffset {
		return fmt.Errorf("header at %d+%d beyond the end of the archive (%d bytes): %w",
			sh.nextHeaderOffset, sh.nextHeaderSize, rd.size, archive.ErrFormat)
	}
	if sh.nextHeaderSize > maxHeaderSize {
		return &archive.LimitError{What: "7z header size", Need: int64(sh.nextHeaderSize), Limit: maxHeaderSize, Fixed: true}
	}
	rd.info.PhysicalSize = signatureHeaderSize + int64(sh.nextHeaderOffset+sh.nextHeaderSize)
	if err := rd.hdrMem.charge("header", int(sh.nextHeaderSize), 1); err != nil {
		return err
	}
	buf := make([]byte, sh.nextHeaderSize)
	if _, err := rd.ra.ReadAt(buf, signatureHeaderSize+int64(sh.nextHeaderOffset)); err != nil {
		return fmt.Errorf("reading the header: %w", err)
	}
	if crc32.ChecksumIEEE(buf) != sh.nextHeaderCRC {
		return fmt.Errorf("header: %w", archive.ErrChecksum)
	}
	for level := 0; ; level++ {
		if len(buf) == 0 {
			return fmt.Errorf("empty header: %w", errHeader)
		}
		switch buf[0] {
		case idHeader:
			h, err := parseHeader(buf[1:], &rd.hdrMem)
			if err != nil {
				err = locateHeaderError(err, level, signatureHeaderSize+int64(sh.nextHeaderOffset)+1)
				if rd.info.EncryptedHeaders && errors.Is(err, archive.ErrFormat) {
					// A header decrypted with a wrong key that carried no
					// CRC fails to parse instead.
					return fmt.Errorf("%w? %w", archive.ErrWrongPassword, err)
				}
				return err
			}
			rd.hdr = h
			if len(buf) >= collectHeaderSize {
				// The decoded header is garbage now: collecting it
				// before the entries are allocated lets them take its
				// place instead of adding to the peak (a 100,000-file
				// archive: 54 MiB peak RSS for l instead of 54-57).
				buf = nil
				runtime.GC()
			}
			return rd.buildEntries()
		case idEncodedHeader:
			if level >= maxEncodedHeaderNex {
				return fmt.Errorf("encoded header nested too deep: %w", errHeader)
			}
			if buf, err = rd.decodeHeader(buf[1:]); err != nil {
				return err
			}
		default:
			return fmt.Errorf("header starts with property 0x%02x: %w", buf[0], errHeader)
		}
	}
}

// locateHeaderError gives a header parse failure its place: an archive
// offset for a plain header (which starts at start), an offset in the
// decoded header otherwise.
func locateHeaderError(err error, level int, start int64) error {
	var he *headerError
	if !errors.As(err, &he) {
		return err
	}
	if level == 0 {
		return &locatedError{off: start + int64(he.off), err: fmt.Errorf("corrupt 7z header: %w", he.err)}
	}
	return &locatedError{off: -1, err: fmt.Errorf("corrupt 7z header at offset %d of the decoded header: %w", 1+he.off, he.err)}
}

// decodeHeader decodes an encoded header: a StreamsInfo whose folders,
// concatenated, are the next header.
func (rd *Reader) decodeHeader(b []byte) ([]byte, error) {
	var si streamsInfo
	br := &byteReader{b: b, mem: &rd.hdrMem}
	if err := br.readStreamsInfo(&si); err != nil {
		return nil, err
	}
	if len(si.folders) == 0 {
		return nil, fmt.Errorf("encoded header without folders: %w", errHeader)
	}
	var total uint64
	encrypted := false
	for i := range si.folders {
		total += si.folders[i].unpackSize()
		if folderEncrypted(&si.folders[i]) {
			encrypted = true
		}
	}
	if encrypted {
		rd.info.EncryptedHeaders = true
	}
	limit := uint64(min(int64(maxHeaderSize), rd.opts.Limit()))
	if total > limit {
		return nil, &archive.LimitError{What: "7z decoded header size", Need: int64(min(total, 1<<62)), Limit: int64(limit)}
	}
	if err := rd.hdrMem.charge("decoded header", int(total), 1); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(int(total))
	for i := range si.folders {
		f := &si.folders[i]
		dctx := rd.newDecodeContext(context.Background())
		fd := &folderDecoder{f: f, si: &si, ra: rd.ra, base: signatureHeaderSize, end: rd.size, dctx: dctx}
		err := func() error {
			defer dctx.close()
			r, err := fd.open()
			if err != nil {
				return err
			}
			h := crc32.NewIEEE()
			start := out.Len()
			if _, err := io.Copy(io.MultiWriter(&out, h), r); err != nil {
				return err
			}
			if uint64(out.Len()-start) != f.unpackSize() {
				return errShort
			}
			if f.hasCRC() && h.Sum32() != f.crc {
				return archive.ErrChecksum
			}
			return nil
		}()
		if err != nil {
			if encrypted && !errors.Is(err, archive.ErrPasswordRequired) && !errors.Is(err, archive.ErrLimit) &&
				!errors.Is(err, archive.ErrUnsupported) {
				return nil, fmt.Errorf("encrypted header: %w (%w)", archive.ErrWrongPassword, err)
			}
			return nil, fmt.Errorf("encoded header: %w", err)
		}
	}
	return out.Bytes(), nil
}

// fileTime converts a Windows FILETIME (100 ns ticks since 1601) to time.
func fileTime(ft uint64) time.Time {
	const ticksPerSecond = 10_000_000
	const epochDiff = 11644473600 // seconds from 1601 to 1970
	sec := int64(ft/ticksPerSecond) - epochDiff
	nsec := int64(ft%ticksPerSecond) * 100
	return time.Unix(sec, nsec).UTC()
}

// buildEntries maps the parsed header onto archive entries.
func (rd *Reader) buildEntries() error {
	h := rd.hdr
	si := &h.main
	for i := range si.folders {
		f := &si.folders[i]
		if uint64(f.packOffset) > uint64(rd.size) {
			return fmt.Errorf("folder %d starts beyond the end of the archive: %w", i, archive.ErrFormat)
		}
	}
	methodSeen := map[string]bool{}
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub > 1 {
			rd.info.Solid = true
		}
		// Non-solid archives have a folder per file, mostly with the
		// same coders as the folder before.
		if i > 0 && sameCoders(f, &si.folders[i-1]) {
			continue
		}
		for _, s := range strings.Fields(folderMethod(f)) {
			if !methodSeen[s] {
				methodSeen[s] = true
				rd.info.Methods = append(rd.info.Methods, s)
			}
		}
	}
	// The rare fields live in an EntryExtra of their own: charged here,
	// as the entries were when the header was parsed.
	extras := 0
	for i := range h.files.len() {
		if fi := h.files.info(i); fi.hasCTime || fi.hasATime || fi.comment != "" || fi.hasAttrib && fi.attrib&archive.AttrReparse != 0 {
			extras++
		}
	}
	if err := rd.hdrMem.charge("entry extras", extras, int(unsafe.Sizeof(archive.EntryExtra{}))); err != nil {
		return err
	}
	// The entries come in chunks of entryChunk (the memory was charged
	// when the header was parsed): few allocations, and chunks fit in
	// the space the decoded header leaves free.
	var block []archive.Entry
	rd.entries = make([]*archive.Entry, h.files.len())
	rd.meta = make([]entryMeta, h.files.len())
	sub := 0
	var folderOff int64
	// The substreams follow the folders in order: fo is the folder of
	// substream sub, method the description of lastFolder's coders.
	fo, lastFolder, method := 0, -1, ""
	for i := range h.files.len() {
		fi := h.files.info(i)
		name := fi.name
		if name == "" {
			name = defaultName(rd.opts.Name)
		}
		// The block is zeroed: set only what differs (a whole-struct
		// assignment would copy 128 bytes with write barriers).
		if len(block) == 0 {
			block = make([]archive.Entry, min(entryChunk, h.files.len()-i))
		}
		e := &block[0]
		block = block[1:]
		e.Index, e.Name, e.Anti = int32(i), name, fi.isAnti
		if fi.comment != "" {
			e.MutableExtra().Comment = fi.comment
		}
		m := noData
		local := 0
		if fi.hasStream {
			for sub >= int(si.folders[fo].firstSub+si.folders[fo].numSub) {
				fo++
			}
			f := &si.folders[fo]
			if fo != lastFolder {
				if lastFolder < 0 || !sameCoders(f, &si.folders[lastFolder]) {
					method = folderMethod(f)
				}
				folderOff, lastFolder = 0, fo
			}
			m = entryMeta{offset: folderOff, fo: int32(fo), subRep: uint32(sub) << 1}
			local = sub - int(f.firstSub)
			e.Size = int64(si.subSizes[sub])
			folderOff += e.Size
			e.HasCRC32, e.CRC32 = si.subHasCRC[sub], si.subCRCs[sub]
			e.Method = method
			e.Encrypted = folderEncrypted(f)
			e.Solid = local > 0
			if local == 0 {
				for k := 0; k < len(f.packed); k++ {
					e.PackedSize += int64(si.packSizes[f.firstPack()+k])
				}
			}
			sub++
		}
		e.Block = m.fo
		if fi.hasMTime {
			e.ModTime = fileTime(fi.mtime)
		}
		if fi.hasCTime {
			e.MutableExtra().CreateTime = fileTime(fi.ctime)
		}
		if fi.hasATime {
			e.MutableExtra().AccessTime = fileTime(fi.atime)
		}
		isDir := !fi.hasStream && !fi.isEmptyFile
		if fi.hasAttrib {
			e.Attributes = fi.attrib
			if fi.attrib&archive.AttrDirectory != 0 && !fi.hasStream {
				isDir = true
			}
		}
		e.Type = archive.TypeFile
		if isDir {
			e.Type = archive.TypeDir
		}
		switch {
		case fi.hasAttrib && fi.attrib&archive.AttrUnixExtension != 0 && fi.attrib>>16 != 0:
			unix := fi.attrib >> 16
			e.HostOS = archive.HostUnix
			e.HasUnixMode = true
			e.Mode = unixMode(unix)
			if unix&unixTypeMask == unixSymlink && fi.hasStream {
				e.Type = archive.TypeSymlink
			}
			if unix&unixTypeMask == unixDir {
				e.Type = archive.TypeDir
			}
		case fi.hasAttrib:
			e.HostOS = archive.HostWindows
			// 7z names separate with '/': 7-Zip turns Windows' '\'
			// into '/' when it writes, and on Unix keeps a '\' as a
			// character of the name (a Unix mode in the attributes
			// marks those entries). A '\' in an entry with Windows
			// attributes only comes from a writer that kept Windows'
			// separator (py7zr's longpath.7z): it separates.
			e.Name = strings.ReplaceAll(e.Name, `\`, "/")
			if fi.attrib&archive.AttrReparse != 0 && fi.hasStream && e.Size <= maxLinkTarget {
				m.subRep |= 1
				e.Type = archive.TypeSymlink
				if fi.attrib&archive.AttrDirectory != 0 {
					e.MutableExtra().LinkToDir = true
				}
			}
		}
		if e.Type == archive.TypeDir && !isDir && fi.hasStream {
			// A directory mode on an entry with data: trust the data.
			e.Type = archive.TypeFile
		}
		if !e.HasUnixMode {
			switch {
			case e.Type == archive.TypeDir:
				e.Mode = fs.ModeDir | 0o755
			case e.Type == archive.TypeSymlink:
				e.Mode = fs.ModeSymlink | 0o777
			default:
				e.Mode = 0o644
			}
			if fi.hasAttrib && fi.attrib&archive.AttrReadOnly != 0 {
				e.Mode &^= 0o222
			}
		} else {
			switch e.Type {
			case archive.TypeDir:
				e.Mode = e.Mode&^fs.ModeType | fs.ModeDir
			case archive.TypeSymlink:
				e.Mode = e.Mode&^fs.ModeType | fs.ModeSymlink
			case archive.TypeFile:
				e.Mode &^= fs.ModeType
			}
		}
		rd.entries[i] = e
		rd.meta[i] = m
	}
	return nil
}

// defaultName is the name 7-Zip gives an entry stored without one: the
// archive's file name without its extension (and without a split suffix).
func defaultName(archiveName string) string {
	base := path.Base(strings.ReplaceAll(archiveName, "\\", "/"))
	if archiveName == "" || base == "." || base == "/" {
		return "[Content]"
	}
	for k := 0; k < 2; k++ {
		ext := path.Ext(base)
		if ext == "" || ext == base {
			break
		}
		base = strings.TrimSuffix(base, ext)
		if strings.Trim(ext[1:], "0123456789") != "" {
			break // a real extension, not a split number
		}
	}
	return base
}

// unixMode converts st_mode bits to an fs.FileMode.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unixTypeMask {
	case unixDir:
		mode |= fs.ModeDir
	case unixSymlink:
		mode |= fs.ModeSymlink
	case 0x1000:
		mode |= fs.ModeNamedPipe
	case 0x2000:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case 0x6000:
		mode |= fs.ModeDevice
	case 0xC000:
		mode |= fs.ModeSocket
	}
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// Info describes the archive.
func (rd *Reader) Info() *archive.Info { return &rd.info }

// Entries lists the entries in archive order. The first call outside
// Extract fills the targets of small symbolic links (see
// fillLinkTargets).
func (rd *Reader) Entries() []*archive.Entry {
	if !rd.linksListed && !rd.extracting {
		rd.linksListed = true
		rd.fillLinkTargets()
	}
	return rd.entries
}

// Close releases pooled decoders and their memory. The underlying
// ReaderAt belongs to the caller.
func (rd *Reader) Close() error {
	if rd.pool.mem != nil {
		rd.pool.mem.RemoveReclaimer(&rd.pool)
	}
	rd.pool.drain()
	rd.hdrMem.release()
	rd.keys.Clear()
	return nil
}

// folderStream is the decoded output of one folder, consumed front to
// back by the entries of that folder.
type folderStream struct {
	index     int
	f         *folder
	r         io.Reader // main output, bounded by the folder size
	dctx      *decodeContext
	pos       int64       // bytes consumed from r
	crc       hash.Hash32 // running CRC of the whole folder, when checked
	encrypted bool
	err       error
	ctx       context.Context // cancels reading; may be nil
}

func (fs *folderStream) read(p []byte) (int, error) {
	if fs.err != nil {
		return 0, fs.err
	}
	if fs.ctx != nil {
		if err := fs.ctx.Err(); err != nil {
			return 0, err
		}
	}
	n, err := fs.r.Read(p)
	fs.pos += int64(n)
	if fs.crc != nil {
		fs.crc.Write(p[:n])
	}
	if err != nil && err != io.EOF {
		fs.err = err
	}
	return n, err
}

// skipTo discards output up to offset off.
func (fs *folderStream) skipTo(off int64, buf []byte) error {
	for fs.pos < off {
		want := off - fs.pos
		p := buf
		if int64(len(p)) > want {
			p = p[:want]
		}
		n, err := fs.read(p)
		if err == io.EOF && n == 0 {
			return errShort
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

func (fs *folderStream) close() {
	if fs != nil && fs.dctx != nil {
		fs.dctx.close()
	}
}

// entryReader yields one entry's bytes and checks its CRC at the end.
type entryReader struct {
	fs          *folderStream
	n           int64
	crc         uint32
	hasCRC      bool
	want        uint32
	folderCheck bool // verify the folder CRC when done
	done        bool
	err         error
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.err != nil {
		return 0, er.err
	}
	if er.n <= 0 {
		if !er.done {
			er.done = true
			if err := er.verify(); err != nil {
				er.err = err
				return 0, err
			}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > er.n {
		p = p[:er.n]
	}
	n, err := er.fs.read(p)
	er.n -= int64(n)
	if er.hasCRC {
		er.crc = checksum.UpdateCRC32(er.crc, p[:n])
	}
	if err == io.EOF {
		if er.n > 0 {
			err = errShort
		} else {
			err = nil
		}
	}
	if err != nil {
		er.err = er.fs.decodeError(err)
		return n, er.err
	}
	if er.n == 0 && n == 0 {
		return er.Read(p)
	}
	return n, nil
}

func (er *entryReader) verify() error {
	if er.hasCRC && er.crc != er.want {
		return er.fs.decodeError(fmt.Errorf("CRC %08x, want %08x: %w", er.crc, er.want, archive.ErrChecksum))
	}
	if er.folderCheck && er.fs.crc != nil && er.fs.crc.Sum32() != er.fs.f.crc {
		return er.fs.decodeError(fmt.Errorf("folder CRC: %w", archive.ErrChecksum))
	}
	return nil
}

// decodeError makes a decoding failure in an encrypted folder report a
// wrong password as well as the checksum mismatch.
func (fs *folderStream) decodeError(err error) error {
	err = fs.locate(err)
	if !fs.encrypted || errors.Is(err, archive.ErrWrongPassword) || errors.Is(err, archive.ErrPasswordRequired) ||
		errors.Is(err, archive.ErrLimit) || errors.Is(err, archive.ErrUnsupported) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, archive.ErrChecksum) {
		return fmt.Errorf("%w? %w", archive.ErrWrongPassword, err)
	}
	return fmt.Errorf("%w? %w (%w)", archive.ErrWrongPassword, archive.ErrChecksum, err)
}

// openFolder starts decoding folder fo.
func (rd *Reader) openFolder(fo int) (*folderStream, error) {
	return rd.openFolderContext(context.Background(), fo)
}

// openFolderContext starts decoding folder fo; ctx ends a wait for
// decoder memory held by other folders.
func (rd *Reader) openFolderContext(ctx context.Context, fo int) (*folderStream, error) {
	f := &rd.hdr.main.folders[fo]
	dctx := rd.newDecodeContext(ctx)
	fd := &folderDecoder{f: f, si: &rd.hdr.main, ra: rd.ra, base: signatureHeaderSize, end: rd.size, dctx: dctx}
	r, err := fd.open()
	if err != nil {
		dctx.close()
		return nil, err
	}
	return rd.newFolderStream(fo, r, dctx), nil
}

// newFolderStream wraps a folder's decoded output.
func (rd *Reader) newFolderStream(fo int, r io.Reader, dctx *decodeContext) *folderStream {
	f := &rd.hdr.main.folders[fo]
	fs := &folderStream{index: fo, f: f, r: r, dctx: dctx, encrypted: folderEncrypted(f)}
	// The folder CRC is checked when the files do not all carry their own.
	if f.hasCRC() && f.numSub > 1 {
		si := &rd.hdr.main
		for j := range f.numSub {
			if !si.subHasCRC[f.firstSub+j] {
				fs.crc = &checksum.CRC32{}
				break
			}
		}
	}
	return fs
}

// eofReader is the content of entries without data.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

var emptyReader io.Reader = eofReader{}

// Extract visits the wanted entries in archive order and calls fn with
// their contents. Each folder is decoded at most once, only as far as its
// last wanted entry.
func (rd *Reader) Extract(ctx context.Context, want func(*archive.Entry) bool, fn archive.ExtractFunc) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rd.extracting = true
	defer func() { rd.extracting = false }()
	var cur *folderStream
	var curJob *prefetched
	var pf *prefetcher
	closeCur := func() {
		cur.close()
		cur = nil
		if curJob != nil {
			pf.release(curJob)
			curJob = nil
		}
	}
	defer func() {
		closeCur()
		if pf != nil {
			pf.stop()
		}
	}()
	if rd.opts.Threads > 1 {
		folders, need := rd.plan(want)
		if len(folders) > 1 {
			pf = rd.startPrefetch(ctx, folders, need, rd.opts.Threads)
		}
	}
	var skipBuf []byte
	failedFolder, failedErr := -1, error(nil)
	stored := rd.newStoredReader(ctx)
	for i, e := range rd.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if want != nil && !want(e) {
			continue
		}
		m := rd.meta[i]
		if m.folder() < 0 {
			if err := fn(e, emptyReader); err != nil {
				return err
			}
			continue
		}
		if stored.stored(m.folder()) {
			// Stored data is read where it lies (stored.go). A folder
			// being decoded is done with: its decoder goes back.
			if cur != nil && cur.index != m.folder() {
				closeCur()
			}
			stored.set(e, &m)
			if err := rd.extractStored(e, &m, stored, fn); err != nil {
				return err
			}
			continue
		}
		if failedFolder == m.folder() {
			// The folder could not be opened or decoded: every wanted
			// entry of it gets the error, and the run goes on.
			if err := fn(e, &errReader{err: rd.wrap(e.Name, failedErr)}); err != nil {
				return err
			}
			continue
		}
		if cur == nil || cur.index != m.folder() {
			closeCur()
			var err error
			if j := pf.take(m.folder()); j != nil {
				if err = j.openErr; err == nil {
					cur = rd.newFolderStream(m.folder(), &dataThenError{data: j.data, err: j.readErr}, nil)
					curJob = j
				} else {
					pf.release(j)
				}
			} else {
				cur, err = rd.openFolderContext(ctx, m.folder())
			}
			if err != nil {
				cur = nil
				failedFolder, failedErr = m.folder(), err
				if err := fn(e, &errReader{err: rd.wrap(e.Name, err)}); err != nil {
					return err
				}
				continue
			}
		}
		cur.ctx = ctx
		if cur.pos > m.offset {
			return rd.wrap(e.Name, fmt.Errorf("entries out of order: %w", archive.ErrFormat))
		}
		if cur.pos < m.offset {
			if skipBuf == nil {
				skipBuf = make([]byte, 32<<10)
			}
			if err := cur.skipTo(m.offset, skipBuf); err != nil {
				err = cur.decodeError(err)
				closeCur()
				failedFolder, failedErr = m.folder(), err
				if err := fn(e, &errReader{err: rd.wrap(e.Name, err)}); err != nil {
					return err
				}
				continue
			}
		}
		si := &rd.hdr.main
		er := &entryReader{fs: cur, n: e.Size, hasCRC: si.subHasCRC[m.sub()], want: si.subCRCs[m.sub()],
			folderCheck: rd.local(m) == int(cur.f.numSub)-1}
		if e.Type == archive.TypeSymlink {
			target, err := readLinkTarget(er, er.n, m.reparse(), e)
			if err != nil {
				err = rd.wrap(e.Name, err)
				if ferr := fn(e, &errReader{err: err}); ferr != nil {
					return ferr
				}
				continue
			}
			e.LinkTarget = target
			if err := fn(e, emptyReader); err != nil {
				return err
			}
			continue
		}
		if cur.encrypted && cur.pos == 0 && e.Size <= preverifyMax && er.hasCRC {
			// The first entry of an encrypted folder is decoded and
			// checked before the callback sees any byte, so that a
			// wrong password is reported before anything is written.
			data, err := io.ReadAll(er)
			var r io.Reader = bytes.NewReader(data)
			if err != nil {
				r = &errReader{err: rd.wrap(e.Name, err)}
			}
			if err := fn(e, r); err != nil {
				return err
			}
			continue
		}
		if err := fn(e, &namedReader{er: er, rd: rd, name: e.Name}); err != nil {
			return err
		}
	}
	return nil
}

// preverifyMax bounds the first entry of an encrypted folder that is
// verified in memory before it is handed out.
const preverifyMax = 4 << 20

// plan returns the folders with wanted entries, in order, and for each the
// decoded bytes needed (up to the end of its last wanted entry).
func (rd *Reader) plan(want func(*archive.Entry) bool) ([]int, map[int]int64) {
	need := map[int]int64{}
	var folders []int
	stored := rd.newStoredReader(context.Background())
	for i, e := range rd.entries {
		m := rd.meta[i]
		if m.folder() < 0 || (want != nil && !want(e)) {
			continue
		}
		if stored.stored(m.folder()) {
			continue // read where it lies, not decoded
		}
		if _, ok := need[m.folder()]; !ok {
			folders = append(folders, m.folder())
		}
		need[m.folder()] = m.offset + e.Size
	}
	return folders, need
}

// namedReader adds the archive and entry names to content errors.
type namedReader struct {
	er   *entryReader
	rd   *Reader
	name string
}

func (n *namedReader) Read(p []byte) (int, error) {
	k, err := n.er.Read(p)
	if err != nil && err != io.EOF {
		err = n.rd.wrap(n.name, err)
	}
	return k, err
}

// errReader returns err.
type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// readLinkTarget reads a symlink entry's data, size bytes from r: the
// target itself for unix entries, a reparse buffer for Windows ones.
func readLinkTarget(r io.Reader, size int64, reparse bool, e *archive.Entry) (string, error) {
	if size > maxLinkTarget {
		return "", fmt.Errorf("symlink target of %d bytes: %w", size, archive.ErrFormat)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	if !reparse {
		return string(data), nil
	}
	target, dir, err := parseReparse(data)
	if err != nil {
		return "", err
	}
	if dir {
		e.MutableExtra().LinkToDir = true
	}
	return target, nil
}

// parseReparse extracts the print name (or substitute name) from a Windows
// REPARSE_DATA_BUFFER for symlinks and mount points.
func parseReparse(b []byte) (string, bool, error) {
	bad := fmt.Errorf("reparse data: %w", archive.ErrFormat)
	if len(b) < 8 {
		return "", false, bad
	}
	tag := binary.LittleEndian.Uint32(b)
	dataLen := int(binary.LittleEndian.Uint16(b[4:]))
	if 8+dataLen > len(b) {
		return "", false, bad
	}
	d := b[8 : 8+dataLen]
	var pathStart int
	isDir := false
	switch tag {
	case reparseTagSymlink:
		pathStart = 12
	case reparseTagMountPoint:
		pathStart = 8
		isDir = true
	default:
		return "", false, &archive.UnsupportedError{What: fmt.Sprintf("7z reparse tag %08x", tag)}
	}
	if len(d) < pathStart {
		return "", false, bad
	}
	subOff := int(binary.LittleEndian.Uint16(d[0:]))
	subLen := int(binary.LittleEndian.Uint16(d[2:]))
	prOff := int(binary.LittleEndian.Uint16(d[4:]))
	prLen := int(binary.LittleEndian.Uint16(d[6:]))
	path := d[pathStart:]
	get := func(off, n int) (string, bool) {
		if off+n > len(path) || n%2 != 0 {
			return "", false
		}
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(path[off+2*i:])
		}
		return decodeUTF16(u), true
	}
	s, ok := get(prOff, prLen)
	if !ok || s == "" {
		s, ok = get(subOff, subLen)
		if !ok {
			return "", false, bad
		}
		s = strings.TrimPrefix(s, `\??\`)
	}
	return strings.ReplaceAll(s, `\`, "/"), isDir, nil
}
