package zip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

// Format is the archive.Format the ZIP reader reports.
const Format archive.Format = "zip"

// Record signatures (APPNOTE 4.3).
const (
	sigLocal        = 0x04034b50
	sigCentral      = 0x02014b50
	sigEnd          = 0x06054b50
	sigEnd64        = 0x06064b50
	sigEnd64Locator = 0x07064b50
	sigDescriptor   = 0x08074b50 // also the first bytes of a split set
)

// Fixed record sizes.
const (
	localLen      = 30
	centralLen    = 46
	endLen        = 22
	end64Len      = 56
	end64LocLen   = 20
	maxCommentLen = 0xFFFF
)

// bytesPerEntry is the memory an entry costs once listed (the parsed
// record, archive.Entry and their strings, about 600 bytes for short
// names), used to bound the entry count by the memory limit.
const bytesPerEntry = 1024

// General purpose flag bits (APPNOTE 4.4.4).
const (
	flagEncrypted  = 0x0001
	flagLZMAEOS    = 0x0002
	flagDescriptor = 0x0008
	flagStrong     = 0x0040
	flagUTF8       = 0x0800
	flagMasked     = 0x2000 // central directory encryption
)

// file is what the reader keeps about one entry's data.
type file struct {
	flags      uint16
	method     uint16 // as stored (99 for WinZip AES)
	realMethod uint16 // the compression method (the AES extra's for method 99)
	dosTime    uint16
	dosDate    uint16
	crc        uint32
	csize      int64
	usize      int64
	disk       uint32
	localOff   int64 // as stored in the central directory
	headerOff  int64 // absolute offset of the local header
	dataOff    int64 // absolute offset of the data
	dataEnd    int64 // absolute end of the data and its descriptor
	aes        aesParams
	rawName    []byte
	unixHost   bool   // made on Unix or macOS (names are not '\'-separated)
	unicodeX   bool   // a header holds an Info-ZIP Unicode Path extra field
	ntfsTimes  bool   // the times come from the NTFS extra field
	host       byte   // "version made by" host system
	version    uint16 // version needed to extract
	external   uint32 // external attributes as stored
	characts   string // 7-Zip's Characteristics of the central record (interned)
}

// Reader is an opened ZIP archive. It implements archive.Reader.
type Reader struct {
	ra    *readCache // the archive, small reads served from a block
	size  int64
	opts  *archive.Options
	info  archive.Info
	base  int64   // prefix (SFX stub) length added to stored offsets
	disks []int64 // start of each disk in ra; nil for a single archive

	entries []*archive.Entry
	files   []file

	pwOnce sync.Once
	pw     string
	pwErr  error

	dec decoders

	// characts interns the Characteristics strings of the entries (most
	// share one); charBuf is the scratch they are built in.
	characts map[string]string
	charBuf  []byte

	// cut is why an archive without an end record was cut short (see
	// scanLocals); its complete entries are listed and extracted, and
	// then cut is reported.
	cut error

	// zip64 says the archive has a Zip64 end of central directory
	// record; fromLocals that its entries were read from their local
	// headers (no central directory was found).
	zip64, fromLocals bool
	// tail is the length of the data after the end record's comment.
	tail int64
	// descBuf holds the data descriptor descriptorLen reads.
	descBuf [24]byte

	// linksListed says whether Entries filled the link targets;
	// extracting, whether an Extract runs (Entries then leaves them).
	linksListed, extracting bool
}

var _ archive.Reader = (*Reader)(nil)

// NewReader opens the ZIP archive held in the size bytes of ra. The whole
// file is given, including any prefix (a self-extractor stub): the reader
// finds the end of central directory record itself and computes the
// prefix from it, as Info-ZIP does. A .zip.001 raw split is passed as one
// ReaderAt over the concatenated parts.
func NewReader(ra io.ReaderAt, size int64, opts *archive.Options) (archive.Reader, error) {
	rd, err := newReader(ra, size, nil, opts)
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// NewSplitReader opens a PKWARE split or spanned set (name.z01, name.z02,
// …, name.zip). ra is the concatenation of the parts in that order and
// partSizes their sizes; the disk numbers in the central directory are
// part indexes (disk 0 is name.z01, the last disk is name.zip).
func NewSplitReader(ra io.ReaderAt, partSizes []int64, opts *archive.Options) (archive.Reader, error) {
	if len(partSizes) == 0 {
		return nil, errors.New("zip: NewSplitReader needs the part sizes")
	}
	rd, err := newReader(ra, 0, partSizes, opts)
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// Err reports an archive that ends before its central directory, cut
// short in or after its local entries: its entries before the cut are
// listed and extracted, and a listing must check Err (Entries has no
// error result). nil for a complete archive.
func (rd *Reader) Err() error {
	if rd.cut == nil {
		return nil
	}
	return rd.wrap("", -1, rd.cut)
}

// listMethods fills Info.Methods with the distinct compression methods
// and ciphers of the entries, in order of first use.
func (rd *Reader) listMethods() {
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			rd.info.Methods = append(rd.info.Methods, s)
		}
	}
	for i := range rd.files {
		f := &rd.files[i]
		add(methodName(f.realMethod))
		switch {
		case f.aes.present && f.method == methodAES:
			add(fmt.Sprintf("AES-%d", 64*(int(f.aes.strength)+1)))
		case f.flags&flagEncrypted != 0:
			add("ZipCrypto")
		}
	}
}

func newReader(ra io.ReaderAt, size int64, partSizes []int64, opts *archive.Options) (*Reader, error) {
	if opts == nil {
		opts = &archive.Options{}
	}
	rd := &Reader{size: size, opts: opts}
	if partSizes != nil {
		rd.size = 0
		for _, s := range partSizes {
			if s < 0 {
				return nil, fmt.Errorf("zip: negative part size %d", s)
			}
			rd.disks = append(rd.disks, rd.size)
			rd.size += s
		}
	}
	rd.ra = &readCache{ra: ra, size: rd.size}
	rd.info.Format = Format
	if err := rd.readDirectory(); err != nil {
		return nil, rd.wrap("", -1, err)
	}
	rd.listMethods()
	rd.info.Details = &Details{rd: rd}
	return rd, nil
}

// wrap locates an error in the archive.
func (rd *Reader) wrap(entry string, off int64, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) {
		// Errors made by corrupt carry an offset only.
		if ae.Archive == "" {
			ae.Archive = rd.opts.Name
		}
		if ae.Entry == "" {
			ae.Entry = entry
		}
		return err
	}
	return &archive.Error{Archive: rd.opts.Name, Entry: entry, Offset: off, Err: err}
}

// corrupt returns an ErrFormat error naming what is wrong and where.
func corrupt(off int64, format string, args ...any) error {
	return &archive.Error{Offset: off, Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), archive.ErrFormat)}
}

// readAt reads exactly len(p) bytes at off.
func (rd *Reader) readAt(p []byte, off int64) error {
	if off < 0 || off > rd.size || int64(len(p)) > rd.size-off {
		return corrupt(off, "%d bytes beyond the end of the archive", len(p))
	}
	n, err := rd.ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading at offset %d: %w", off, err)
}

// abs turns a (disk, offset) pair of the central directory into an offset
// in ra.
func (rd *Reader) abs(disk uint32, off int64) (int64, error) {
	if rd.disks == nil {
		return rd.base + off, nil
	}
	if int(disk) >= len(rd.disks) {
		return 0, corrupt(-1, "disk %d of a set of %d parts", disk, len(rd.disks))
	}
	start := rd.disks[disk]
	if disk == 0 {
		start += rd.base
	}
	return start + off, nil
}

// endRecord is the end of central directory, from the classic record and
// the Zip64 one.
type endRecord struct {
	pos      int64 // absolute offset of the classic record
	disk     uint32
	cdDisk   uint32
	count    uint64
	cdSize   uint64
	cdOffset uint64
	comment  []byte
	pos64    int64 // absolute offset of the Zip64 record; -1 when absent
}

// findEnd locates the end of central directory record: the last signature
// within the final 64 KiB + 22 bytes whose comment length reaches (or,
// for comments cut short, does not exceed) the end of the file.
func (rd *Reader) findEnd() (*endRecord, error) {
	n := min(rd.size, endLen+maxCommentLen)
	if n < endLen {
		return nil, &archive.Error{Offset: -1, Err: fmt.Errorf("%d bytes: %w", rd.size, archive.ErrNotArchive)}
	}
	buf := make([]byte, n)
	start := rd.size - n
	if err := rd.readAt(buf, start); err != nil {
		return nil, err
	}
	fallback := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) != sigEnd {
			continue
		}
		clen := int(binary.LittleEndian.Uint16(buf[i+20:]))
		if i+endLen+clen == len(buf) {
			return rd.parseEnd(buf[i:], start+int64(i), clen)
		}
		if fallback < 0 && i+endLen+clen <= len(buf) {
			// Trailing data after the comment: accepted when nothing
			// better is found, as Info-ZIP and 7-Zip do.
			fallback = i
		}
	}
	if fallback >= 0 {
		clen := int(binary.LittleEndian.Uint16(buf[fallback+20:]))
		return rd.parseEnd(buf[fallback:], start+int64(fallback), clen)
	}
	// A comment length that overshoots the file (a truncated comment).
	for i := len(buf) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == sigEnd {
			return rd.parseEnd(buf[i:], start+int64(i), len(buf)-i-endLen)
		}
	}
	return nil, &archive.Error{Offset: -1, Err: fmt.Errorf("no end of central directory record: %w", archive.ErrNotArchive)}
}

func (rd *Reader) parseEnd(b []byte, pos int64, clen int) (*endRecord, error) {
	le := binary.LittleEndian
	e := &endRecord{
		pos:      pos,
		pos64:    -1,
		disk:     uint32(le.Uint16(b[4:])),
		cdDisk:   uint32(le.Uint16(b[6:])),
		count:    uint64(le.Uint16(b[10:])),
		cdSize:   uint64(le.Uint32(b[12:])),
		cdOffset: uint64(le.Uint32(b[16:])),
		comment:  append([]byte(nil), b[endLen:endLen+clen]...),
	}
	// The Zip64 locator sits right before the classic record.
	if pos < end64LocLen {
		return e, nil
	}
	var loc [end64LocLen]byte
	if err := rd.readAt(loc[:], pos-end64LocLen); err != nil {
		return nil, err
	}
	if le.Uint32(loc[:]) != sigEnd64Locator {
		return e, nil
	}
	// The locator's offset is relative to its disk; without a prefix the
	// record sits right before the locator, which is where we look first
	// (Info-ZIP computes the prefix from this difference).
	stored := int64(le.Uint64(loc[8:]))
	cands := []int64{pos - end64LocLen - end64Len}
	if disk := le.Uint32(loc[4:]); rd.disks != nil && int(disk) < len(rd.disks) {
		cands = append(cands, rd.disks[disk]+stored)
	} else if rd.disks == nil && stored >= 0 && stored != cands[0] {
		cands = append(cands, stored)
	}
	for _, p := range cands {
		if p < 0 {
			continue
		}
		var r [end64Len]byte
		if rd.readAt(r[:], p) != nil || le.Uint32(r[:]) != sigEnd64 {
			continue
		}
		e.pos64 = p
		e.disk = le.Uint32(r[16:])
		e.cdDisk = le.Uint32(r[20:])
		e.count = le.Uint64(r[32:])
		e.cdSize = le.Uint64(r[40:])
		e.cdOffset = le.Uint64(r[48:])
		return e, nil
	}
	// A locator without its record (the signature bytes inside a name,
	// as zip2's zip64_magic_in_filename tests have): the classic record
	// stands.
	return e, nil
}

// readDirectory reads the end record, the central directory and every
// local header, and builds the entries.
func (rd *Reader) readDirectory() error {
	end, err := rd.findEnd()
	if err != nil {
		var sig [4]byte
		if rd.disks == nil && errors.Is(err, archive.ErrNotArchive) && rd.readAt(sig[:], 0) == nil &&
			binary.LittleEndian.Uint32(sig[:]) == sigLocal {
			return rd.scanLocals()
		}
		return err
	}
	rd.info.Comment = decodeName(end.comment, false, true)
	rd.zip64 = end.pos64 >= 0
	if end.cdSize > uint64(rd.size) || end.cdOffset > uint64(rd.size) {
		return corrupt(end.pos, "central directory of %d bytes at %d in %d bytes", end.cdSize, end.cdOffset, rd.size)
	}
	if rd.opts.Limit() < int64(end.cdSize) {
		return &archive.LimitError{What: "ZIP central directory size", Need: int64(end.cdSize), Limit: rd.opts.Limit()}
	}
	maxEntries := rd.opts.Limit() / bytesPerEntry
	if end.count > uint64(maxEntries) {
		return &archive.LimitError{What: "ZIP entry count (memory)", Need: int64(min(end.count, 1<<62)) * bytesPerEntry, Limit: rd.opts.Limit()}
	}
	// Where the central directory ends if nothing precedes the archive.
	dirEnd := end.pos
	if end.pos64 >= 0 {
		dirEnd = end.pos64
	}
	if rd.disks != nil {
		if int(end.disk) != len(rd.disks)-1 {
			return corrupt(end.pos, "end record on disk %d of a set of %d parts", end.disk, len(rd.disks))
		}
		if int(end.cdDisk) >= len(rd.disks) {
			return corrupt(end.pos, "central directory on disk %d of a set of %d parts", end.cdDisk, len(rd.disks))
		}
		// A spanned set's first part starts with a split signature that
		// the stored offsets count.
		cdStart := rd.disks[end.cdDisk] + int64(end.cdOffset)
		cdEnd := dirEnd
		if end.cdDisk != end.disk {
			cdEnd = rd.size
		}
		if err := rd.readCentral(cdStart, cdEnd, end.count, maxEntries); err != nil {
			return err
		}
		rd.info.PhysicalSize = rd.size
		return rd.checkLocals(cdStart)
	}
	if err := rd.readSingle(end, dirEnd, maxEntries); err != nil {
		if end.disk > 0 {
			// The last part of a split set, opened alone.
			return &SplitSetError{Parts: int(end.disk) + 1, Err: err}
		}
		return err
	}
	return nil
}

// SplitSetError reports that the file opened is the last part of a PKWARE
// split or spanned set (name.zip of name.z01, name.z02, …): its end record
// is on disk Parts-1 and the directory could not be read from this file
// alone. Open the set with NewSplitReader on all Parts parts. It wraps
// archive.ErrFormat.
type SplitSetError struct {
	Parts int   // number of parts of the set, this one included
	Err   error // why the file alone could not be read
}

func (e *SplitSetError) Error() string {
	return fmt.Sprintf("last part of a split set of %d parts (open it with the .z01 … parts): %v", e.Parts, e.Err)
}

// Unwrap returns archive.ErrFormat.
func (e *SplitSetError) Unwrap() error { return archive.ErrFormat }

// readSingle reads the directory of an archive that is one file, finding
// the prefix before it.
func (rd *Reader) readSingle(end *endRecord, dirEnd, maxEntries int64) error {
	// Info-ZIP: the prefix is the distance between where the directory
	// ends and where its stored offset and size say it should end. When
	// the directory is not found there, the stored offsets are tried as
	// they are (Go's test-badbase and test-baddirsz have a wrong size or
	// offset in the end record).
	bases := []int64{dirEnd - int64(end.cdSize) - int64(end.cdOffset)}
	if bases[0] != 0 {
		bases = append(bases, 0)
	}
	var err0 error
	for _, base := range bases {
		cdStart := base + int64(end.cdOffset)
		if base < 0 || cdStart > dirEnd {
			if err0 == nil {
				err0 = corrupt(end.pos, "central directory offset %d beyond its end %d", end.cdOffset, dirEnd)
			}
			continue
		}
		rd.base = base
		rd.files, rd.entries = rd.files[:0], rd.entries[:0]
		if err := rd.readCentral(cdStart, dirEnd, end.count, maxEntries); err != nil {
			if err0 == nil {
				err0 = err
			}
			continue
		}
		rd.info.SFXOffset = base
		// The archive ends with its end record's comment; what follows
		// (a writer's block padding, appended data) is a tail, as 7-Zip
		// reports it.
		archiveEnd := min(end.pos+endLen+int64(len(end.comment)), rd.size)
		rd.info.PhysicalSize = archiveEnd - base
		rd.tail = rd.size - archiveEnd
		return rd.checkLocals(cdStart)
	}
	return err0
}

// readCentral reads and parses the central directory records between
// cdStart and cdEnd. Records are read up to the end record whatever the
// stored directory size says; the record count decides.
func (rd *Reader) readCentral(cdStart, cdEnd int64, count uint64, maxEntries int64) error {
	if cdStart > cdEnd {
		return corrupt(cdStart, "central directory starts after the end record")
	}
	if count > 0 && !rd.hasSig(cdStart, sigCentral, count) {
		return corrupt(cdStart, "no central directory record")
	}
	cdLen := cdEnd - cdStart
	if err := rd.opts.CheckLimit("ZIP central directory size", cdLen); err != nil {
		return err
	}
	cd := make([]byte, cdLen)
	if err := rd.readAt(cd, cdStart); err != nil {
		return err
	}
	return rd.parseCentral(cd, cdStart, count, maxEntries)
}

// hasSig reports whether a record with signature sig starts at off (or,
// for an empty directory, whether off is plausible).
func (rd *Reader) hasSig(off int64, sig uint32, count uint64) bool {
	if count == 0 {
		return off >= 0 && off <= rd.size
	}
	var b [4]byte
	return off >= 0 && rd.readAt(b[:], off) == nil && binary.LittleEndian.Uint32(b[:]) == sig
}

// parseCentral parses the central directory records in cd, which starts
// at offset cdStart.
func (rd *Reader) parseCentral(cd []byte, cdStart int64, count uint64, maxEntries int64) error {
	le := binary.LittleEndian
	pos := 0
	// Room for the records the end record announces (as many as the
	// directory can hold, within the limit): thousands of entries then
	// cost no regrowth of the slices, and the entries are one slab.
	n := int(min(count, uint64(len(cd)/centralLen), uint64(max(maxEntries, 0))))
	rd.files = slices.Grow(rd.files, n)
	rd.entries = slices.Grow(rd.entries, n)
	slab, first := make([]archive.Entry, n), len(rd.entries)
	for {
		if len(cd)-pos < 4 || le.Uint32(cd[pos:]) != sigCentral {
			break
		}
		off := cdStart + int64(pos)
		if len(cd)-pos < centralLen {
			return corrupt(off, "central directory record cut short")
		}
		h := cd[pos : pos+centralLen]
		nlen, xlen, clen := int(le.Uint16(h[28:])), int(le.Uint16(h[30:])), int(le.Uint16(h[32:]))
		if centralLen+nlen+xlen+clen > len(cd)-pos {
			return corrupt(off, "central directory record cut short")
		}
		if int64(len(rd.files)) >= maxEntries {
			return &archive.LimitError{What: "ZIP entry count (memory)", Need: (int64(len(rd.files)) + 1) * bytesPerEntry, Limit: rd.opts.Limit()}
		}
		name := cd[pos+centralLen : pos+centralLen+nlen]
		extra := cd[pos+centralLen+nlen : pos+centralLen+nlen+xlen]
		comment := cd[pos+centralLen+nlen+xlen : pos+centralLen+nlen+xlen+clen]
		pos += centralLen + nlen + xlen + clen

		f := file{
			flags:    le.Uint16(h[8:]),
			method:   le.Uint16(h[10:]),
			dosTime:  le.Uint16(h[12:]),
			dosDate:  le.Uint16(h[14:]),
			crc:      le.Uint32(h[16:]),
			csize:    int64(le.Uint32(h[20:])),
			usize:    int64(le.Uint32(h[24:])),
			disk:     uint32(le.Uint16(h[34:])),
			localOff: int64(le.Uint32(h[42:])),
			rawName:  name,
		}
		f.realMethod = f.method
		madeBy := le.Uint16(h[4:])
		ext := le.Uint32(h[38:])
		var e *archive.Entry
		if i := len(rd.entries) - first; i < len(slab) {
			e = &slab[i]
		} else {
			e = new(archive.Entry)
		}
		e.Index, e.Block = int32(len(rd.entries)), -1
		x, err := parseExtra(extra, &f, true)
		if err != nil {
			return &archive.Error{Offset: off, Err: err}
		}
		if f.csize < 0 || f.usize < 0 || f.localOff < 0 {
			return corrupt(off, "Zip64 size or offset above 2^63")
		}
		utf8Flag := f.flags&flagUTF8 != 0
		host := byte(madeBy >> 8)
		f.unixHost = host == hostUnix || host == hostOSX
		e.Name = decodeName(name, utf8Flag, f.unixHost)
		if x.unicodePath != "" {
			e.Name = x.unicodePath
		}
		switch {
		case len(comment) == 0:
		case f.flags&flagUTF8 != 0 || utf8Valid(comment):
			e.MutableExtra().Comment = string(comment)
		default:
			e.MutableExtra().Comment = decodeName(comment, false, false)
		}
		rd.fillEntry(e, &f, &x, host, ext)
		f.ntfsTimes, f.host, f.version, f.external = x.ntfs, host, le.Uint16(h[6:]), ext
		f.characts = rd.characteristics(extra, f.flags)
		rd.files = append(rd.files, f)
		rd.entries = append(rd.entries, e)
	}
	if n := uint64(len(rd.files)); n != count && n&0xFFFF != count&0xFFFF {
		return corrupt(cdStart, "central directory holds %d records, the end record says %d", n, count)
	}
	return nil
}

// checkLocals reads every local header, checks it against the central
// directory and finds where each entry's data begins and ends; then it
// refuses entries whose local records overlap (several directory entries
// sharing one stream is the "better zip bomb" construction).
func (rd *Reader) checkLocals(cdStart int64) error {
	le := binary.LittleEndian
	var h [localLen]byte
	var scratch []byte
	order := make([]int, 0, len(rd.files))
	for i := range rd.files {
		f := &rd.files[i]
		e := rd.entries[i]
		hoff, err := rd.abs(f.disk, f.localOff)
		if err != nil {
			return rd.wrap(e.Name, -1, err)
		}
		f.headerOff = hoff
		if err := rd.readAt(h[:], hoff); err != nil {
			return rd.wrap(e.Name, hoff, fmt.Errorf("local header: %w", archive.ErrFormat))
		}
		if le.Uint32(h[:]) != sigLocal {
			return rd.wrap(e.Name, hoff, fmt.Errorf("no local header signature: %w", archive.ErrFormat))
		}
		flags := le.Uint16(h[6:])
		method := le.Uint16(h[8:])
		crc := le.Uint32(h[14:])
		csize, usize := le.Uint32(h[18:]), le.Uint32(h[22:])
		nlen, xlen := int(le.Uint16(h[26:])), int(le.Uint16(h[28:]))
		if method != f.method {
			return rd.wrap(e.Name, hoff, fmt.Errorf("local header method %d, central directory %d: %w", method, f.method, archive.ErrFormat))
		}
		if cap(scratch) < nlen+xlen {
			scratch = make([]byte, nlen+xlen)
		}
		vb := scratch[:nlen+xlen] // nothing keeps it past this entry
		if err := rd.readAt(vb, hoff+localLen); err != nil {
			return rd.wrap(e.Name, hoff, fmt.Errorf("local header: %w", archive.ErrFormat))
		}
		lf := file{csize: int64(csize), usize: int64(usize), method: method, rawName: vb[:nlen]}
		lx, err := parseExtra(vb[nlen:], &lf, false)
		if err != nil {
			return rd.wrap(e.Name, hoff, fmt.Errorf("local header: %w", err))
		}
		if string(vb[:nlen]) != string(f.rawName) {
			if !f.unicodeX && !lf.unicodeX {
				return rd.wrap(e.Name, hoff, fmt.Errorf("local header name %q differs from the central directory's: %w", vb[:nlen], archive.ErrFormat))
			}
			// A writer that recodes names (the Info-ZIP Unicode Path
			// field is there) stored other bytes in the two headers:
			// the local header's name is used, with its own Unicode
			// Path field when that matches it, as bsdtar does (7-Zip
			// warns and keeps the directory's).
			e.Name = localName(&lf, &lx, flags, f.unixHost, e.Type == archive.TypeDir)
		}
		if flags&flagDescriptor == 0 && f.flags&flagDescriptor == 0 {
			// Sizes of all ones stand for Zip64 values, which some
			// writers leave wrong in the local header (SharpCompress's
			// zip64.compressedonly): only the 32-bit ones are compared.
			if csize != 0xFFFFFFFF && usize != 0xFFFFFFFF && (int64(csize) != f.csize || int64(usize) != f.usize) {
				return rd.wrap(e.Name, hoff, fmt.Errorf("local header sizes %d/%d, central directory %d/%d: %w",
					csize, usize, f.csize, f.usize, archive.ErrFormat))
			}
			if crc != f.crc && crc != 0 && f.flags&flagEncrypted == 0 {
				return rd.wrap(e.Name, hoff, fmt.Errorf("local header CRC %08x, central directory %08x: %w", crc, f.crc, archive.ErrFormat))
			}
		}
		f.dataOff = hoff + localLen + int64(nlen) + int64(xlen)
		if f.csize > rd.size-f.dataOff {
			return rd.wrap(e.Name, f.dataOff, fmt.Errorf("%d bytes of data beyond the end of the archive: %w", f.csize, archive.ErrFormat))
		}
		f.dataEnd = f.dataOff + f.csize
		if f.flags&flagDescriptor != 0 {
			f.dataEnd += rd.descriptorLen(f)
		}
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool { return rd.files[order[a]].headerOff < rd.files[order[b]].headerOff })
	for k := 1; k < len(order); k++ {
		p, q := &rd.files[order[k-1]], &rd.files[order[k]]
		if q.headerOff < p.dataEnd {
			return rd.wrap(rd.entries[order[k]].Name, q.headerOff,
				fmt.Errorf("local header overlaps the data of %q: %w", rd.entries[order[k-1]].Name, archive.ErrFormat))
		}
	}
	if len(order) > 0 {
		if last := &rd.files[order[len(order)-1]]; last.dataOff+last.csize > cdStart && rd.disks == nil {
			return rd.wrap(rd.entries[order[len(order)-1]].Name, last.dataOff,
				fmt.Errorf("data overlaps the central directory: %w", archive.ErrFormat))
		}
	}
	return nil
}

// localName is the name of an entry as its local header gives it, decoded
// and normalised as the directory's names are.
func localName(lf *file, lx *extraInfo, flags uint16, unixHost, dir bool) string {
	name := decodeName(lf.rawName, flags&flagUTF8 != 0, unixHost)
	if lx.unicodePath != "" {
		name = lx.unicodePath
	}
	if !unixHost {
		name = strings.ReplaceAll(name, "\\", "/")
	}
	if dir {
		name = strings.TrimRight(name, "/")
	}
	return name
}

// descriptorLen returns the length of the data descriptor following an
// entry's data (APPNOTE 4.3.9): an optional signature, the CRC, and the
// sizes as 4 or, for Zip64 entries, 8 bytes each. The form is the one
// whose sizes match the central directory's, so that a writer's choice of
// 32-bit descriptors for Zip64 entries (or the reverse) does not make
// neighbouring entries look overlapped. Unreadable or unmatched
// descriptors count as absent.
func (rd *Reader) descriptorLen(f *file) int64 {
	b := rd.descBuf[:]
	n, _ := rd.ra.ReadAt(b, f.dataEnd)
	d := b[:n]
	le := binary.LittleEndian
	off := 0
	if len(d) >= 4 && le.Uint32(d) == sigDescriptor {
		off = 4
	}
	d = d[off:]
	if len(d) >= 20 && int64(le.Uint64(d[4:])) == f.csize && int64(le.Uint64(d[12:])) == f.usize {
		return int64(off + 20)
	}
	if len(d) >= 12 && int64(le.Uint32(d[4:])) == f.csize&0xFFFFFFFF && int64(le.Uint32(d[8:])) == f.usize&0xFFFFFFFF {
		return int64(off + 12)
	}
	return int64(off)
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

// Info describes the archive.
func (rd *Reader) Info() *archive.Info { return &rd.info }

// Entries lists the entries in central directory order. The first call
// outside Extract fills the targets of small symbolic links (see
// fillLinkTargets).
func (rd *Reader) Entries() []*archive.Entry {
	if !rd.linksListed && !rd.extracting {
		rd.linksListed = true
		rd.fillLinkTargets()
	}
	return rd.entries
}

// Close releases pooled decoders. The ReaderAt belongs to the caller.
func (rd *Reader) Close() error {
	rd.dec.close()
	if rd.ra != nil {
		rd.ra.buf, rd.ra.n = nil, 0
	}
	return nil
}
