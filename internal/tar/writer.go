package tar

import (
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// WriteHeader is one entry for Writer.WriteHeader.
type WriteHeader struct {
	// Name is the stored path, '/'-separated; a directory's gets a
	// trailing '/'.
	Name string
	// Type is TypeFile, TypeDir, TypeSymlink or TypeHardlink (a second
	// name of a file already written: Linkname names it).
	Type     archive.EntryType
	Linkname string
	// Mode holds the permission bits with setuid, setgid and sticky
	// (07777).
	Mode         int64
	UID, GID     int
	Uname, Gname string
	// Size is the content's size: the bytes Write takes for a file,
	// or the real size of a sparse one.
	Size int64
	// ModTime is stored in whole seconds; AccessTime and ChangeTime,
	// when not zero, as pax records.
	ModTime, AccessTime, ChangeTime time.Time
	// Sparse, when not nil, are the data segments of a sparse file in
	// increasing order (the rest is holes): Write takes only their
	// bytes, and the entry is written in the pax 1.0 sparse format.
	Sparse []SparseSegment
}

// SparseSegment is one data segment of a sparse file.
type SparseSegment struct{ Offset, Length int64 }

// Writer writes a tar archive as a stream: POSIX ustar headers, with a
// pax extended header before an entry whose name, link target, size,
// time, IDs or owner names ustar cannot hold, or that is sparse. Its
// memory does not depend on the entries' sizes.
type Writer struct {
	w       io.Writer
	left    int64 // bytes of the current entry's data still to come
	pad     int64 // zero bytes after them
	written int64
	err     error
	closed  bool
	// blk is the header block WriteHeader fills: one for the Writer,
	// not one on the heap per entry.
	blk [blockSize]byte
}

// zeroBlock is what pads an entry's data to a whole block.
var zeroBlock [blockSize]byte

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// ErrWriteTooLong is returned by Write beyond the entry's size.
var ErrWriteTooLong = errors.New("tar: write beyond the entry's size")

// ErrShort is wrapped when an entry is ended before its size was written.
var ErrShort = errors.New("tar: entry shorter than its header says")

// Limits of the ustar fields.
const (
	maxOctal11 = 1<<33 - 1 // 11 octal digits: sizes and times
	maxOctal7  = 1<<21 - 1 // 7 octal digits: IDs
	nameLen    = 100
	prefixLen  = 155
	ownerLen   = 32
)

// recordSize is the unit GNU tar and bsdtar pad an archive to (20 blocks).
const recordSize = 20 * blockSize

func (tw *Writer) write(p []byte) error {
	if tw.err != nil {
		return tw.err
	}
	n, err := tw.w.Write(p)
	tw.written += int64(n)
	tw.err = err
	return err
}

// WriteHeader ends the previous entry and writes h's headers.
func (tw *Writer) WriteHeader(h *WriteHeader) error {
	if err := tw.endEntry(); err != nil {
		return err
	}
	pax := map[string]string{}
	name := h.Name
	if h.Type == archive.TypeDir && !strings.HasSuffix(name, "/") {
		name += "/"
	}
	tw.blk = [blockSize]byte{}
	blk := &tw.blk
	typ := byte(typeReg)
	data := h.Size
	switch h.Type {
	case archive.TypeDir:
		typ, data = typeDir, 0
	case archive.TypeSymlink:
		typ, data = typeSymlink, 0
	case archive.TypeHardlink:
		typ, data = typeLink, 0
	case archive.TypeFile:
	default:
		return fmt.Errorf("tar: cannot write an entry of type %v", h.Type)
	}
	var sparseMap []byte
	if h.Sparse != nil && h.Type == archive.TypeFile {
		if err := checkSparse(h.Sparse, h.Size); err != nil {
			return err
		}
		sparseMap, data = sparseData(h.Sparse, h.Size)
		pax["GNU.sparse.major"] = "1"
		pax["GNU.sparse.minor"] = "0"
		pax["GNU.sparse.name"] = name
		pax["GNU.sparse.realsize"] = strconv.FormatInt(h.Size, 10)
		dir, base := path.Split(name)
		name = dir + "GNUSparseFile.0/" + base
	}
	if !setName(blk[:], name) {
		pax["path"] = name
	}
	if h.Linkname != "" && !putString(blk[157:157+nameLen], h.Linkname) {
		pax["linkpath"] = h.Linkname
	}
	putOctal(blk[100:108], h.Mode&0o7777)
	if !putID(blk[108:116], h.UID) {
		pax["uid"] = strconv.Itoa(h.UID)
	}
	if !putID(blk[116:124], h.GID) {
		pax["gid"] = strconv.Itoa(h.GID)
	}
	if data > maxOctal11 {
		pax["size"] = strconv.FormatInt(data, 10)
		putOctal(blk[124:136], 0)
	} else {
		putOctal(blk[124:136], data)
	}
	mt := h.ModTime.Unix()
	if h.ModTime.IsZero() {
		mt = 0
	}
	if mt < 0 || mt > maxOctal11 {
		pax["mtime"] = strconv.FormatInt(mt, 10)
		putOctal(blk[136:148], max(0, min(mt, maxOctal11)))
	} else {
		putOctal(blk[136:148], mt)
	}
	if !h.AccessTime.IsZero() {
		pax["atime"] = paxTimeString(h.AccessTime)
	}
	if !h.ChangeTime.IsZero() {
		pax["ctime"] = paxTimeString(h.ChangeTime)
	}
	blk[156] = typ
	copy(blk[257:265], "ustar\x0000")
	if !putString(blk[265:265+ownerLen], h.Uname) {
		pax["uname"] = h.Uname
	}
	if !putString(blk[297:297+ownerLen], h.Gname) {
		pax["gname"] = h.Gname
	}
	putOctal(blk[329:337], 0)
	putOctal(blk[337:345], 0)
	if len(pax) > 0 {
		if err := tw.writePAX(name, mt, pax); err != nil {
			return err
		}
	}
	setChecksum(blk[:])
	if err := tw.write(blk[:]); err != nil {
		return err
	}
	if sparseMap != nil {
		if err := tw.write(sparseMap); err != nil {
			return err
		}
		data -= int64(len(sparseMap))
	}
	tw.left = data
	tw.pad = (blockSize - data%blockSize) % blockSize
	return nil
}

// ErrSparseMap is wrapped when a sparse map is out of order, outside the
// size, or not aligned to blocks.
var ErrSparseMap = errors.New("tar: invalid sparse map")

// checkSparse checks that the segments are in order, inside size and
// start and end on a 512-byte boundary (the last may end at size): GNU
// tar reads each segment's data from a block of its own.
func checkSparse(segs []SparseSegment, size int64) error {
	var end int64
	for i, s := range segs {
		e := s.Offset + s.Length
		switch {
		case s.Offset < end || s.Length < 0 || e > size:
			return fmt.Errorf("%w: segment %d (%d+%d) out of order or beyond %d", ErrSparseMap, i, s.Offset, s.Length, size)
		case s.Offset%blockSize != 0 || e%blockSize != 0 && e != size:
			return fmt.Errorf("%w: segment %d (%d+%d) not on 512-byte boundaries", ErrSparseMap, i, s.Offset, s.Length)
		}
		end = e
	}
	return nil
}

// AlignSparse returns the data segments segs (in order, inside size)
// widened to 512-byte boundaries as WriteHeader wants them, joining those
// that then touch.
func AlignSparse(segs []SparseSegment, size int64) []SparseSegment {
	out := []SparseSegment{}
	for _, s := range segs {
		off := s.Offset &^ (blockSize - 1)
		end := min((s.Offset+s.Length+blockSize-1)&^(blockSize-1), size)
		if n := len(out); n > 0 && out[n-1].Offset+out[n-1].Length >= off {
			out[n-1].Length = max(out[n-1].Offset+out[n-1].Length, end) - out[n-1].Offset
			continue
		}
		out = append(out, SparseSegment{off, end - off})
	}
	return out
}

// sparseData returns the pax 1.0 sparse map (the segment count, then
// offset and length of each, one decimal number a line, padded to whole
// blocks) and the entry's stored size: the map and the segments. A file
// that ends in a hole gets a last, empty segment at its size, as GNU tar
// writes it, so that readers make the file as long as it was.
func sparseData(segs []SparseSegment, size int64) ([]byte, int64) {
	if n := len(segs); n == 0 || segs[n-1].Offset+segs[n-1].Length < size {
		segs = append(segs[:n:n], SparseSegment{size, 0})
	}
	b := strconv.AppendInt(nil, int64(len(segs)), 10)
	b = append(b, '\n')
	var n int64
	for _, s := range segs {
		b = strconv.AppendInt(b, s.Offset, 10)
		b = append(b, '\n')
		b = strconv.AppendInt(b, s.Length, 10)
		b = append(b, '\n')
		n += s.Length
	}
	b = append(b, make([]byte, (blockSize-len(b)%blockSize)%blockSize)...)
	return b, int64(len(b)) + n
}

// paxTimeString formats a time as pax does: seconds, and a fraction
// without trailing zeros.
func paxTimeString(t time.Time) string {
	s := strconv.FormatInt(t.Unix(), 10)
	if ns := t.Nanosecond(); ns != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
	}
	return s
}

// writePAX writes a pax extended header of the records, sorted by key,
// named after the entry in a PaxHeaders directory as GNU tar names it
// (without its process ID, so that the archive is reproducible).
func (tw *Writer) writePAX(name string, mtime int64, recs map[string]string) error {
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var data []byte
	for _, k := range keys {
		data = append(data, paxRecordOf(k, recs[k])...)
	}
	dir, base := path.Split(strings.TrimSuffix(name, "/"))
	pname := asciiOnly(dir + "PaxHeaders/" + base)
	if len(pname) > nameLen {
		pname = pname[:nameLen]
	}
	var blk [blockSize]byte
	copy(blk[:nameLen], pname)
	putOctal(blk[100:108], 0o644)
	putOctal(blk[108:116], 0)
	putOctal(blk[116:124], 0)
	putOctal(blk[124:136], int64(len(data)))
	putOctal(blk[136:148], max(0, min(mtime, maxOctal11)))
	blk[156] = typePAX
	copy(blk[257:265], "ustar\x0000")
	putOctal(blk[329:337], 0)
	putOctal(blk[337:345], 0)
	setChecksum(blk[:])
	if err := tw.write(blk[:]); err != nil {
		return err
	}
	data = append(data, make([]byte, (blockSize-len(data)%blockSize)%blockSize)...)
	return tw.write(data)
}

// paxRecordOf formats "LEN key=value\n", LEN counting itself.
func paxRecordOf(k, v string) string {
	n := len(k) + len(v) + 3
	n += len(strconv.Itoa(n))
	rec := strconv.Itoa(n) + " " + k + "=" + v + "\n"
	if len(rec) != n { // the length gained a digit
		rec = strconv.Itoa(len(rec)) + " " + k + "=" + v + "\n"
	}
	return rec
}

// asciiOnly replaces the bytes outside printable ASCII by '_'.
func asciiOnly(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c >= 0x7f {
			b[i] = '_'
		}
	}
	return string(b)
}

// setName stores name in the name field, or split at a '/' between the
// prefix and name fields; false when it does not fit or is not ASCII (a
// pax path record then holds it, and the fields a truncated copy).
func setName(blk []byte, name string) bool {
	if !isASCII(name) || strings.IndexByte(name, 0) >= 0 {
		copy(blk[:nameLen], asciiOnly(name))
		return false
	}
	if len(name) <= nameLen {
		copy(blk[:nameLen], name)
		return true
	}
	// The longest prefix that fits, ending at a '/', with the rest
	// (not empty) fitting the name field.
	for i := min(len(name)-1, prefixLen); i > 0; i-- {
		if name[i] == '/' && len(name)-i-1 <= nameLen && len(name)-i-1 > 0 {
			copy(blk[345:345+prefixLen], name[:i])
			copy(blk[:nameLen], name[i+1:])
			return true
		}
	}
	copy(blk[:nameLen], name)
	return false
}

// putString stores s in a NUL-padded field; false when it does not fit
// or is not ASCII (the field then holds what fits).
func putString(field []byte, s string) bool {
	if len(s) <= len(field) && isASCII(s) && strings.IndexByte(s, 0) < 0 {
		copy(field, s)
		return true
	}
	copy(field, asciiOnly(s))
	return false
}

// putOctal stores v as zero-padded octal digits ending in NUL.
func putOctal(field []byte, v int64) {
	n := len(field) - 1
	u := uint64(v) // the fields' values are never negative
	for i := n - 1; i >= 0; i-- {
		field[i] = byte('0' + u&7)
		u >>= 3
	}
	field[n] = 0
}

// putID stores a user or group ID; false when it does not fit.
func putID(field []byte, id int) bool {
	if id < 0 || id > maxOctal7 {
		putOctal(field, 0)
		return false
	}
	putOctal(field, int64(id))
	return true
}

// setChecksum fills the checksum field: the sum of the block's bytes
// with the field taken as spaces, six octal digits, NUL, space.
func setChecksum(blk []byte) {
	copy(blk[148:156], "        ")
	sum := 0
	for _, c := range blk {
		sum += int(c)
	}
	putOctal(blk[148:155], int64(sum))
	blk[155] = ' '
}

// Write writes the current entry's data (for a sparse file, the bytes of
// its data segments in order).
func (tw *Writer) Write(p []byte) (int, error) {
	if tw.err != nil {
		return 0, tw.err
	}
	if int64(len(p)) > tw.left {
		n, _ := tw.Write(p[:tw.left])
		return n, ErrWriteTooLong
	}
	n, err := tw.w.Write(p)
	tw.written += int64(n)
	tw.left -= int64(n)
	tw.err = err
	return n, err
}

// endEntry pads the current entry's data to a block.
func (tw *Writer) endEntry() error {
	if tw.err != nil {
		return tw.err
	}
	if tw.left > 0 {
		return fmt.Errorf("%w (%d bytes missing)", ErrShort, tw.left)
	}
	if tw.pad > 0 {
		if err := tw.write(zeroBlock[:tw.pad]); err != nil {
			return err
		}
		tw.pad = 0
	}
	return nil
}

// Close ends the last entry and writes the two zero blocks that end the
// archive, padded to whole 10 KiB records as tar pads it. It does not
// close the underlying writer.
func (tw *Writer) Close() error {
	if tw.closed {
		return tw.err
	}
	tw.closed = true
	if err := tw.endEntry(); err != nil {
		return err
	}
	end := 2 * blockSize
	if r := (tw.written + int64(end)) % recordSize; r != 0 {
		end += int(recordSize - r)
	}
	return tw.write(make([]byte, end))
}
