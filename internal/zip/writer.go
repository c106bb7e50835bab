package zip

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/bzip2"
	"github.com/garc-dev/garc/internal/deflate"
	"github.com/garc-dev/garc/internal/lzma"
	"github.com/garc-dev/garc/internal/xz"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// Output is where an archive is written: sequentially with Write, and
// each local header completed with WriteAt once its entry's sizes and
// CRC are known. *os.File and archivefile.File satisfy it.
type Output interface {
	io.Writer
	WriteAt(p []byte, off int64) (int, error)
}

// cutter is an Output that can drop what was written from an offset on,
// so that the next Write continues there; it returns false, changing
// nothing, where it cannot (archivefile.File in a finished volume). The
// writer uses it to store an entry whose compressed data came out no
// smaller than the input, as 7-Zip does.
type cutter interface {
	CutBack(size int64) (bool, error)
}

// Target is an Output that Update commits once the archive is complete,
// or aborts, leaving any previous archive as it was.
type Target interface {
	Output
	Commit() error
	Abort() error
}

// WriteItem is one entry to add.
type WriteItem struct {
	// Name is the stored path, '/'-separated and relative.
	Name string
	// Type is TypeFile, TypeDir or TypeSymlink; a link's LinkTarget is
	// stored as its data, as Info-ZIP stores it.
	Type       archive.EntryType
	LinkTarget string
	// Size is the expected content size (-1 unknown); it decides
	// whether the local header makes room for Zip64 sizes, and the
	// update rule. The bytes read are what is stored.
	Size int64
	// ModTime and AccessTime go into the DOS time and the extended
	// timestamp field (0x5455); zero values are not stored (the DOS time
	// is then 1980-01-01).
	ModTime, AccessTime time.Time
	// Mode is the Unix st_mode (type and permission bits) stored in the
	// high 16 bits of the external attributes; 0 gives 0644 or 0755.
	Mode uint32
	// Open returns a file's content; it is called once. When the content
	// does not compress and the archive can be cut back (see Update), it
	// is read again if it implements io.Seeker, or taken from a copy when
	// it is at most 256 KiB.
	Open func() (io.ReadCloser, error)
}

// WriteOptions configure Update.
type WriteOptions struct {
	// Method is Store (or Copy), Deflate (the default), BZip2, LZMA,
	// ZSTD (Zstandard) or XZ, in any letter case.
	Method string
	// Level is 0 (Store) to 9; -1 means 5.
	Level int
	// Password encrypts the new entries: with WinZip AES-256 (AE-2)
	// unless Encryption is "ZipCrypto".
	Password   string
	Encryption string
	// Threads compress the BZip2 and XZ blocks of an entry in parallel;
	// the output does not depend on it.
	Threads int
	// ForceZip64 writes Zip64 fields and end records even where the
	// classic ones would do (for tests of the Zip64 path).
	ForceZip64 bool
	// Streamed writes an archive that is never written back into: every
	// entry with content ends with a data descriptor giving its CRC and
	// sizes (Zip64 sizes where the entry's are), as Info-ZIP's `zip -`
	// does, and the Output's WriteAt is not called, so that it can be a
	// pipe (-so).
	Streamed bool
	// Location is the time zone of the DOS times (nil: local time, as
	// Info-ZIP writes them).
	Location *time.Location
	// Progress, when set, is called with the content bytes read so far
	// and the current entry name.
	Progress func(done int64, name string)
	// Name names the archive in error messages; MaxDict and Memory bound
	// reading the base archive of an update.
	Name    string
	MaxDict int64
	Memory  *archive.MemoryBudget
	// rand is the source of salts and encryption headers (crypto/rand
	// when nil).
	rand io.Reader
}

// Existing is an archive being updated.
type Existing struct {
	R    io.ReaderAt
	Size int64
}

// Changes say what Update does to an archive.
type Changes struct {
	// Add are new entries. One whose name the archive has replaces that
	// entry by 7-Zip's default update rule (archive.UpdateReplaces, at a
	// second's precision); otherwise the item is skipped.
	Add []WriteItem
	// AddFrom, when set, gives more new entries one at a time, after Add,
	// as it finds them (a walk of the inputs), so that no list of them
	// is kept: it calls add with each and returns the first error add
	// returns (or its own). Only for a new archive: Update refuses it
	// with a base.
	AddFrom func(add func(*WriteItem) error) error
	// Delete selects the archive's entries to remove; nil removes none.
	Delete func(e *archive.Entry) bool
}

// WriteStats summarise a written archive.
type WriteStats struct {
	Files, Dirs  int   // entries in the new archive
	Added        int   // items compressed from the inputs
	Kept         int   // entries copied from the base archive
	Skipped      int   // items not added because the base had them unchanged
	Deleted      int   // base entries deleted
	BytesIn      int64 // content bytes read
	BytesOut     int64 // size of the archive
	UnpackedSize int64 // total size of the entries
}

// Errors of Update.
var (
	// ErrNoMatch: Changes.Delete selected nothing and there is
	// nothing to add; the archive is left as it was.
	ErrNoMatch = errors.New("no entries matched")
	// ErrMethod wraps an unknown method or encryption name.
	ErrMethod = errors.New("unknown ZIP method")
	// ErrTooLarge: an entry grew past 4 GiB while it was read, after
	// its local header was written without room for Zip64 sizes.
	ErrTooLarge = errors.New("entry grew beyond 4 GiB while it was compressed")
)

// zip64Threshold is the size from which an entry's local header makes
// room for Zip64 sizes: below 4 GiB with a margin for compressed data
// that grows.
const zip64Threshold = 0xF0000000

// needsZip64 reports whether an entry of the expected size (-1 unknown)
// gets a Zip64 local header.
func needsZip64(size int64) bool { return size < 0 || size >= zip64Threshold }

// Versions needed to extract (APPNOTE 4.4.3.2).
const (
	versionStore   = 10
	versionDeflate = 20
	versionZip64   = 45
	versionBZip2   = 46
	versionAES     = 51
	versionLZMA    = 63
	versionMadeBy  = hostUnix<<8 | 63
)

// Method parameters of the writer.
type methodSpec struct {
	id      uint16
	version uint16
}

// parseMethod returns the method named s ("" is Deflate).
func parseMethod(s string) (methodSpec, error) {
	switch strings.ToLower(s) {
	case "", "deflate":
		return methodSpec{methodDeflate, versionDeflate}, nil
	case "store", "copy":
		return methodSpec{methodStore, versionStore}, nil
	case "bzip2":
		return methodSpec{methodBZip2, versionBZip2}, nil
	case "lzma":
		return methodSpec{methodLZMA, versionLZMA}, nil
	case "zstd", "zstandard":
		return methodSpec{methodZstd, versionLZMA}, nil
	case "xz":
		return methodSpec{methodXZ, versionLZMA}, nil
	}
	return methodSpec{}, fmt.Errorf("%w %q (Store, Deflate, BZip2, LZMA, ZSTD or XZ)", ErrMethod, s)
}

// CheckOptions reports whether Update accepts the method and encryption
// of opts, without writing anything.
func CheckOptions(opts *WriteOptions) error {
	if _, err := parseMethod(opts.Method); err != nil {
		return err
	}
	switch strings.ToLower(opts.Encryption) {
	case "", "aes256", "zipcrypto":
		return nil
	}
	return fmt.Errorf("%w: encryption %q (AES256 or ZipCrypto)", ErrMethod, opts.Encryption)
}

// record is what the central directory needs of a written entry.
type record struct {
	name      string
	flags     uint16
	method    uint16 // as stored (99 for AES)
	version   uint16
	dosTime   uint16
	dosDate   uint16
	crc       uint32
	csize     int64
	usize     int64
	offset    int64
	external  uint32
	zip64     bool   // sizes in a Zip64 field (the local header has one)
	extra     []byte // central extra fields other than Zip64
	comment   string
	madeBy    uint16
	isDir     bool
	unpacked  int64
	fromInput bool
}

// writer is one Update call.
type writer struct {
	ctx    context.Context
	out    Output
	opts   WriteOptions
	method methodSpec
	level  int
	pos    int64
	cd     centralDir
	st     WriteStats
	done   int64
	buf    []byte
	// hdr (the local header), local (its extra fields), extra (the
	// central directory's), fix (a data descriptor, or the CRC and sizes
	// written back into the local header) and store (the encoder of
	// Store) are reused for each entry, so that an entry allocates
	// nothing of its own.
	hdr, local, extra []byte
	fix               [24]byte
	store             nopWriteCloser
	// rewriting is set while an entry is written again stored, which
	// reports no progress.
	rewriting bool
	optW      *deflate.Writer
	zstdW     zstdEncoder
	bzW       *bzip2.Writer
}

// Update writes to out the archive base (nil: a new one) with the
// changes applied: kept entries are copied as they are stored (local
// header, data and descriptor), new ones compressed with opts. It commits
// out when the archive is complete and aborts it on any error,
// cancellation included.
func Update(ctx context.Context, out Target, base *Existing, ch *Changes, opts *WriteOptions) (st *WriteStats, err error) {
	defer func() {
		if err != nil {
			out.Abort()
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if ch == nil {
		ch = &Changes{}
	}
	w := &writer{ctx: ctx, out: out, opts: *opts}
	if err := CheckOptions(&w.opts); err != nil {
		return nil, err
	}
	w.method, _ = parseMethod(w.opts.Method)
	w.level = w.opts.Level
	if w.level < 0 || w.level > 9 {
		w.level = 5
	}
	if w.level == 0 {
		w.method = methodSpec{methodStore, versionStore}
	}
	if w.opts.Location == nil {
		w.opts.Location = time.Local
	}
	if w.opts.rand == nil {
		w.opts.rand = rand.Reader
	}
	defer w.closeEncoders()
	var skip []bool // items of ch.Add the base has unchanged
	if base != nil {
		if skip, err = w.copyBase(base, ch); err != nil {
			return nil, err
		}
	} else if ch.Delete != nil && len(ch.Add) == 0 {
		return nil, ErrNoMatch
	}
	for i := range ch.Add {
		if skip != nil && skip[i] {
			continue
		}
		if err := w.addNew(&ch.Add[i]); err != nil {
			return nil, err
		}
	}
	if ch.AddFrom != nil {
		if base != nil {
			return nil, errors.New("zip: Changes.AddFrom adds to a new archive only")
		}
		if err := ch.AddFrom(w.addNew); err != nil {
			return nil, err
		}
	}
	if err := w.writeDirectory(); err != nil {
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	w.st.BytesOut = w.pos
	w.st.Files, w.st.Dirs, w.st.UnpackedSize = w.cd.files, w.cd.dirs, w.cd.unpacked
	return &w.st, nil
}

// addNew adds one new entry unless the context is done.
func (w *writer) addNew(it *WriteItem) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if err := w.addItem(it); err != nil {
		return fmt.Errorf("%s: %w", it.Name, err)
	}
	return nil
}

func (w *writer) closeEncoders() {
	// klauspost/compress's encoder ends its goroutines when closed again;
	// garc's own keeps nothing running and would start another frame.
	if z, ok := w.zstdW.(*zstd.Encoder); ok {
		z.Close()
	}
}

func (w *writer) write(p []byte) error {
	n, err := w.out.Write(p)
	w.pos += int64(n)
	return err
}

// dosDateTime converts t to MS-DOS date and time in loc (1980-01-01 for
// earlier times and the zero time, 2107-12-31 for later ones).
func dosDateTime(t time.Time, loc *time.Location) (uint16, uint16) {
	if t.IsZero() {
		return 0, 1<<5 | 1
	}
	t = t.In(loc)
	switch {
	case t.Year() < 1980:
		return 0, 1<<5 | 1
	case t.Year() > 2107:
		return 23<<11 | 59<<5 | 29, 127<<9 | 12<<5 | 31
	}
	return uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2),
		uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
}

// appendUT appends the extended timestamp field (0x5455) to b: the flags
// and the times in the local header, the modification time alone in the
// central directory. Times outside 32 bits are left out.
func appendUT(b []byte, mtime, atime time.Time, central bool) []byte {
	ok := func(t time.Time) bool { return !t.IsZero() && t.Unix() >= 0 && t.Unix() <= 0xFFFFFFFF }
	var flags byte
	var times [8]byte
	n := 0
	if ok(mtime) {
		flags |= 1
		binary.LittleEndian.PutUint32(times[:], uint32(mtime.Unix()))
		n = 4
	}
	if ok(atime) {
		flags |= 2
		if !central {
			binary.LittleEndian.PutUint32(times[n:], uint32(atime.Unix()))
			n += 4
		}
	}
	if flags == 0 {
		return b
	}
	b = binary.LittleEndian.AppendUint16(b, extraExtTime)
	b = binary.LittleEndian.AppendUint16(b, uint16(1+n))
	b = append(b, flags)
	return append(b, times[:n]...)
}

// appendAES appends the WinZip AES field to b: AE-2, vendor "AE",
// AES-256, the compression method.
func appendAES(b []byte, method uint16) []byte {
	b = append(b, 0x01, 0x99, 7, 0, 2, 0, 'A', 'E', 3)
	return binary.LittleEndian.AppendUint16(b, method)
}

// isASCII reports whether s needs no UTF-8 flag.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// addItem compresses one item after the entries written so far.
func (w *writer) addItem(it *WriteItem) error {
	r := record{name: it.Name, offset: w.pos, madeBy: versionMadeBy, fromInput: true}
	mode := it.Mode
	var data io.Reader
	switch it.Type {
	case archive.TypeDir:
		r.isDir = true
		if !strings.HasSuffix(r.name, "/") {
			r.name += "/"
		}
		if mode == 0 {
			mode = sIFDIR | 0o755
		}
		mode = mode&^sIFMT | sIFDIR
	case archive.TypeSymlink:
		if mode == 0 {
			mode = sIFLNK | 0o777
		}
		mode = mode&^sIFMT | sIFLNK
		data = strings.NewReader(it.LinkTarget)
	default:
		if mode == 0 {
			mode = 0o644
		}
		mode = mode&^sIFMT | 0o100000
	}
	r.external = mode << 16
	if r.isDir {
		r.external |= archive.AttrDirectory
	}
	if !isASCII(r.name) {
		r.flags |= flagUTF8
	}
	r.dosTime, r.dosDate = dosDateTime(it.ModTime, w.opts.Location)
	method := w.method
	if it.Type != archive.TypeFile {
		method = methodSpec{methodStore, versionStore}
	}
	if r.isDir {
		method = methodSpec{methodStore, versionDeflate} // Info-ZIP: 2.0 for directories
	}
	r.method, r.version = method.id, method.version
	encrypt := w.opts.Password != "" && !r.isDir
	aes := encrypt && !strings.EqualFold(w.opts.Encryption, "zipcrypto")
	if encrypt && !aes {
		r.flags |= flagEncrypted | flagDescriptor
		r.version = max(r.version, versionDeflate)
	}
	if w.opts.Streamed && !r.isDir {
		r.flags |= flagDescriptor
		r.version = max(r.version, versionDeflate) // descriptors came with 2.0
	}
	if aes {
		r.flags |= flagEncrypted
		r.method = methodAES
		r.version = max(r.version, versionAES)
	}
	if method.id == methodDeflate {
		switch {
		case w.level >= 8:
			r.flags |= 2
		case w.level == 2:
			r.flags |= 4
		case w.level == 1:
			r.flags |= 6
		}
	}
	if method.id == methodLZMA {
		r.flags |= flagLZMAEOS
	}
	size := it.Size
	if it.Type != archive.TypeFile {
		size = int64(len(it.LinkTarget))
	}
	r.zip64 = w.opts.ForceZip64 || (!r.isDir && needsZip64(size))
	if r.zip64 {
		r.version = max(r.version, versionZip64)
	}
	// The local header's extra fields: Zip64 sizes (filled in after the
	// data), the times, AES; the central directory's in w.extra.
	var z64 [20]byte
	extra := w.local[:0]
	if r.zip64 {
		z64[0], z64[2] = 0x01, 16
		extra = append(extra, z64[:]...)
	}
	extra = appendUT(extra, it.ModTime, it.AccessTime, false)
	w.extra = appendUT(w.extra[:0], it.ModTime, it.AccessTime, true)
	if aes {
		extra = appendAES(extra, method.id)
		w.extra = appendAES(w.extra, method.id)
	}
	r.extra, w.local = w.extra, extra
	w.hdr = w.localHeader(w.hdr[:0], &r, extra)
	if err := w.write(w.hdr); err != nil {
		return err
	}
	dataStart := w.pos
	if it.Type == archive.TypeFile {
		rc, err := it.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		data = rc
	}
	if data != nil {
		whole, err := w.compress(&r, data, nil, size, method.id, encrypt, aes, it.Name)
		if err != nil {
			return err
		}
		if method.id != methodStore && w.pos-dataStart >= r.usize+cryptOverhead(encrypt, aes) {
			if err := w.storeInstead(&r, data, whole, dataStart, encrypt, aes, it.Name); err != nil {
				return err
			}
		}
	}
	r.csize = w.pos - dataStart
	r.unpacked = r.usize
	if !r.zip64 && (r.csize >= 0xFFFFFFFF || r.usize >= 0xFFFFFFFF) {
		return ErrTooLarge
	}
	if r.flags&flagDescriptor != 0 {
		d := binary.LittleEndian.AppendUint32(w.fix[:0], sigDescriptor)
		d = binary.LittleEndian.AppendUint32(d, r.crc)
		if r.zip64 {
			d = binary.LittleEndian.AppendUint64(d, uint64(r.csize))
			d = binary.LittleEndian.AppendUint64(d, uint64(r.usize))
		} else {
			d = binary.LittleEndian.AppendUint32(d, uint32(r.csize))
			d = binary.LittleEndian.AppendUint32(d, uint32(r.usize))
		}
		if err := w.write(d); err != nil {
			return err
		}
	} else if !w.opts.Streamed { // streamed: a directory, whose zeros are right
		// Complete the local header: CRC and sizes.
		p := w.fix[:12]
		binary.LittleEndian.PutUint32(p, r.crc)
		if r.zip64 {
			binary.LittleEndian.PutUint32(p[4:], 0xFFFFFFFF)
			binary.LittleEndian.PutUint32(p[8:], 0xFFFFFFFF)
		} else {
			binary.LittleEndian.PutUint32(p[4:], uint32(r.csize))
			binary.LittleEndian.PutUint32(p[8:], uint32(r.usize))
		}
		if _, err := w.out.WriteAt(p, r.offset+14); err != nil {
			return err
		}
		if r.zip64 {
			s := w.fix[:16]
			binary.LittleEndian.PutUint64(s, uint64(r.usize))
			binary.LittleEndian.PutUint64(s[8:], uint64(r.csize))
			if _, err := w.out.WriteAt(s, r.offset+localLen+int64(len(r.name))+4); err != nil {
				return err
			}
		}
	}
	if it.Type == archive.TypeFile {
		w.st.Added++
		w.st.BytesIn += r.usize
	}
	w.cd.add(&r, w.opts.ForceZip64)
	return nil
}

// localHeader appends to b the local file header of r with the extra
// fields; CRC and sizes are filled in after the data (zero with a
// descriptor).
func (w *writer) localHeader(b []byte, r *record, extra []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, sigLocal)
	b = le.AppendUint16(b, r.version)
	b = le.AppendUint16(b, r.flags)
	b = le.AppendUint16(b, r.method)
	b = le.AppendUint16(b, r.dosTime)
	b = le.AppendUint16(b, r.dosDate)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	b = le.AppendUint16(b, uint16(len(r.name)))
	b = le.AppendUint16(b, uint16(len(extra)))
	b = append(b, r.name...)
	return append(b, extra...)
}

// cryptOverhead is what encryption adds to an entry's data: the salt,
// password verifier and authentication code of AES, the header of
// ZipCrypto.
func cryptOverhead(encrypt, aes bool) int64 {
	switch {
	case aes:
		return int64(aesSaltLen(aes256Strength) + aesPVLen + aesMACLen)
	case encrypt:
		return zipCryptoHeaderLen
	}
	return 0
}

// storeInstead writes the entry r again, Stored, over its compressed
// data from dataStart, which came out no smaller than the input: as
// 7-Zip does, the archive is cut back to dataStart, the local header
// rewritten with method 0 and the content read again (data from its
// start, or whole, the content when it was read whole into one buffer).
// It does nothing where the archive cannot be cut back (a pipe, a
// finished volume) or the content cannot be read again (a FIFO,
// standard input past one buffer): the compressed entry stays, which
// Deflate's stored blocks keep within 5 bytes per 64 KiB of the input.
func (w *writer) storeInstead(r *record, data io.Reader, whole []byte, dataStart int64, encrypt, aes bool, name string) error {
	c, ok := w.out.(cutter)
	if w.opts.Streamed || !ok {
		return nil
	}
	if whole == nil {
		s, ok := data.(io.Seeker)
		if !ok {
			return nil
		}
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return nil // not a regular file: keep what was written
		}
	}
	if ok, err := c.CutBack(dataStart); !ok || err != nil {
		return err
	}
	w.pos = dataStart
	// The header of a Stored entry: no level or EOS flags, version
	// 1.0 unless encryption, a descriptor or Zip64 needs more; AES's
	// field names the method in its last two bytes.
	r.flags &^= 6
	version := uint16(versionStore)
	if encrypt || r.flags&flagDescriptor != 0 {
		version = versionDeflate
	}
	if r.zip64 {
		version = max(version, versionZip64)
	}
	if aes {
		version = versionAES
		binary.LittleEndian.PutUint16(w.local[len(w.local)-2:], methodStore)
		binary.LittleEndian.PutUint16(r.extra[len(r.extra)-2:], methodStore)
	} else {
		r.method = methodStore
	}
	r.version = version
	w.hdr = w.localHeader(w.hdr[:0], r, w.local)
	if _, err := w.out.WriteAt(w.hdr, r.offset); err != nil {
		return err
	}
	w.rewriting = true
	defer func() { w.rewriting = false }()
	_, err := w.compress(r, data, whole, -1, methodStore, encrypt, aes, name)
	return err
}

// countingWriter counts what passes to the archive.
type countingWriter struct{ w *writer }

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.out.Write(p)
	c.w.pos += int64(n)
	return n, err
}

// compress reads data (or takes whole, when not nil, as all of it) and
// writes it compressed (and encrypted) to the archive, setting r's CRC
// and uncompressed size. When the content fit in one buffer it returns
// that buffer's bytes.
func (w *writer) compress(r *record, data io.Reader, whole []byte, size int64, method uint16, encrypt, aes bool, name string) ([]byte, error) {
	var sink io.Writer = countingWriter{w}
	var finish func() error
	switch {
	case aes:
		a, err := newAESWriter(sink, w.opts.Password, w.opts.rand)
		if err != nil {
			return nil, err
		}
		sink, finish = a, a.close
	case encrypt:
		z, err := newZipCryptoWriter(sink, w.opts.Password, byte(r.dosTime>>8), w.opts.rand)
		if err != nil {
			return nil, err
		}
		sink = z
	}
	enc, err := w.encoder(sink, method, size)
	if err != nil {
		return nil, err
	}
	if w.buf == nil {
		w.buf = make([]byte, 256<<10)
	}
	crc := uint32(0)
	var n int64
	for first := true; ; first = false {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		chunk, rerr := whole, error(io.EOF)
		if whole == nil {
			var k int
			k, rerr = readFull(data, w.buf)
			chunk = w.buf[:k]
			if rerr == io.EOF && first {
				whole = chunk
			}
		}
		if len(chunk) > 0 {
			crc = crc32.Update(crc, crc32.IEEETable, chunk)
			n += int64(len(chunk))
			if _, err := enc.Write(chunk); err != nil {
				return nil, err
			}
			if !w.rewriting {
				w.done += int64(len(chunk))
				if w.opts.Progress != nil {
					w.opts.Progress(w.done, name)
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, rerr
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if finish != nil {
		if err := finish(); err != nil {
			return nil, err
		}
	}
	r.crc, r.usize = crc, n
	if aes {
		r.crc = 0 // AE-2: no CRC, the authentication code checks the data
	}
	return whole, nil
}

// readFull reads into p until it is full or the input ends: io.EOF
// when the input ended, with the bytes before it.
func readFull(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := r.Read(p[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// nopWriteCloser is a WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// encoder returns a compressor for method writing to dst, reusing the
// encoders of earlier entries.
func (w *writer) encoder(dst io.Writer, method uint16, size int64) (io.WriteCloser, error) {
	switch method {
	case methodStore:
		w.store.Writer = dst
		return &w.store, nil
	case methodDeflate:
		if w.optW == nil {
			d, err := deflate.NewWriter(dst, w.level)
			if err != nil {
				return nil, err
			}
			w.optW = d
		} else {
			w.optW.Reset(dst)
		}
		return w.optW, nil
	case methodBZip2:
		level := 9
		if w.level < 5 {
			level = 2*w.level - 1
		}
		if w.bzW == nil {
			b, err := bzip2.NewWriterThreads(dst, level, w.opts.Threads)
			if err != nil {
				return nil, err
			}
			w.bzW = b
		} else {
			w.bzW.Reset(dst)
		}
		return w.bzW, nil
	case methodLZMA:
		lo := w.lzmaOptions(size)
		lo.EOSMarker = true
		z, err := lzma.NewWriter(dst, lo)
		if err != nil {
			return nil, err
		}
		// APPNOTE 5.8.8: LZMA SDK version (9.20), properties size, properties.
		hdr := append([]byte{9, 20, 5, 0}, z.Props()...)
		if _, err := dst.Write(hdr); err != nil {
			return nil, err
		}
		return z, nil
	case methodZstd:
		if w.zstdW == nil {
			w.zstdW = newZstdEncoder(w.level)
		}
		w.zstdW.Reset(dst)
		return w.zstdW, nil
	case methodXZ:
		return xz.NewWriter(dst, w.lzmaOptions(size))
	}
	return nil, fmt.Errorf("%w %d", ErrMethod, method)
}

// lzmaOptions returns the LZMA options of the level for an entry of the
// expected size (-1 unknown): the dictionary no larger than the power of
// two that holds the entry, as 7-Zip reduces it, so that small entries do
// not allocate the level's whole dictionary and match finder.
func (w *writer) lzmaOptions(size int64) lzma.WriterOptions {
	lo := lzma.LevelOptions(w.level)
	if size >= 0 {
		d := uint32(lzma.MinDictSize)
		for int64(d) < size && d < lo.DictSize {
			d <<= 1
		}
		lo.DictSize = min(d, lo.DictSize)
	}
	lo.Threads = max(w.opts.Threads, 1)
	lo.Context = w.ctx
	return lo
}

// zstdEncoder is what an entry of method 93 needs of its encoder.
type zstdEncoder interface {
	Reset(w io.Writer)
	Write(p []byte) (int, error)
	Close() error
}

// zstdWindow is the window of garc's own zstd encoder in an entry: 4 MiB,
// as the stream package's .zst frames.
const zstdWindow = 4 << 20

// newZstdEncoder returns the encoder of method 93 at level: garc's own
// (internal/zstd) at the default levels -mx3…-mx5, where it is smaller
// and faster than klauspost/compress's, that one at the others.
func newZstdEncoder(level int) zstdEncoder {
	l := zstdLevel(level)
	if l == zstd.SpeedDefault {
		return ownzstd.NewEncoder(zstdWindow)
	}
	// The options are valid, so NewWriter cannot fail.
	z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	return z
}

// zstdLevel maps -mx1 … -mx9 to klauspost/compress's encoder levels, as
// the stream package does for .zst.
func zstdLevel(level int) zstd.EncoderLevel {
	switch {
	case level <= 2:
		return zstd.SpeedFastest
	case level <= 5:
		return zstd.SpeedDefault
	case level <= 7:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}
