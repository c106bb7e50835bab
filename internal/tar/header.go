package tar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
)

const blockSize = 512

// Type flags (POSIX ustar, GNU and Solaris extensions).
const (
	typeReg        = '0'
	typeRegA       = '\x00'
	typeLink       = '1'
	typeSymlink    = '2'
	typeChar       = '3'
	typeBlock      = '4'
	typeDir        = '5'
	typeFifo       = '6'
	typeCont       = '7'
	typePAX        = 'x'
	typeSolarisPAX = 'X' // Solaris tar's pax extended header, read as 'x'
	typePAXGlobal  = 'g'
	typeGNULongN   = 'L'
	typeGNULongL   = 'K'
	typeGNUSparse  = 'S'
	typeGNUDumpDir = 'D'
	typeGNUVolume  = 'V' // volume label
	typeSolarisACL = 'A' // Solaris ACL record, before its entry
	typeSolarisExt = 'E' // Solaris extended attributes, before its entry
)

// maxSpecialSize bounds the data of the records read into memory: pax
// headers, GNU long names and a pax 1.0 sparse map (archive/tar, GNU tar
// and libarchive bound them similarly).
const maxSpecialSize = 1 << 20

// header is one entry as the tar stream describes it, after its pax
// records, GNU long names and sparse map are applied.
type header struct {
	name, linkname string
	uname, gname   string
	typeflag       byte
	mode           int64
	uid, gid       int
	size           int64 // bytes of data that follow in the archive
	realSize       int64 // the entry's size: size, or the expanded size of a sparse file
	mtime, atime   time.Time
	ctime          time.Time // pax ctime only

	magic [8]byte // the magic and version fields (257–264) as stored
	// rawType is the type byte as stored (typeflag is normalised);
	// devMajor and devMinor the device fields, -1 when empty or invalid.
	rawType            byte
	devMajor, devMinor int64
	ext                extFlags // the extended headers that applied

	// prefixUsed says a header block of the entry has a ustar name
	// prefix, as 7-Zip tells it (PrefixUsed); paxDigits are the fraction
	// digits of the pax mtime, atime and ctime, -1 for a time no pax
	// record gave; comment is what 7-Zip shows of the pax header: its
	// name and the records 7-Zip does not read.
	prefixUsed bool
	paxDigits  [3]int8
	comment    string
	fflags     string // the pax SCHILY.fflags record (BSD file flags)
	paxCount   uint8  // pax headers 7-Zip counts (PAX:2)

	isSparse  bool // a sparse file, its map in the pass's sparseMap
	sparse1x0 bool // pax 1.0: the map is at the start of the data, still to be read
}

// sparseEntry is one data segment of a sparse file.
type sparseEntry struct{ off, n int64 }

// hasData reports whether the entry's data follows its header.
// archive/tar and libarchive read no data after links, devices, FIFOs and
// directories whatever their size field says.
func (h *header) hasData() bool {
	switch h.typeflag {
	case typeLink, typeSymlink, typeChar, typeBlock, typeDir, typeFifo:
		return false
	}
	return true
}

// isDevice reports a character or block device or a FIFO, which the
// listing shows and extraction never creates.
func (h *header) isDevice() bool {
	return h.typeflag == typeChar || h.typeflag == typeBlock || h.typeflag == typeFifo
}

// errHeader is a malformed header field.
type errHeader string

func (e errHeader) Error() string { return "tar: " + string(e) }
func (e errHeader) Unwrap() error { return archive.ErrFormat }

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// parseNumber reads a numeric header field as GNU tar does: base-256 when
// the top bit of the first byte is set (0x80 positive, 0xFF negative);
// otherwise octal after leading spaces (and one leading NUL, which some
// writers leave when the previous field overflowed), ending at a NUL or
// space. A field with no digits is 0; a digit run followed by anything but
// a NUL or space is an error.
func parseNumber(b []byte, what string) (int64, error) {
	if len(b) > 0 && b[0]&0x80 != 0 {
		// Two's complement, the sign in bit 6 of the first byte: a
		// negative value is read inverted (^x == -x-1).
		var inv byte
		if b[0]&0x40 != 0 {
			inv = 0xFF
		}
		var v uint64
		for i, c := range b {
			c ^= inv
			if i == 0 {
				c &= 0x7F
			}
			if v>>56 != 0 {
				return 0, errHeader("base-256 " + what + " out of range")
			}
			v = v<<8 | uint64(c)
		}
		if v>>63 != 0 {
			return 0, errHeader("base-256 " + what + " out of range")
		}
		if inv != 0 {
			return ^int64(v), nil
		}
		return int64(v), nil
	}
	i := 0
	if i < len(b) && b[i] == 0 {
		i++
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	var v int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '7'; i++ {
		if v > math.MaxInt64>>3 {
			return 0, errHeader("octal " + what + " out of range")
		}
		v = v<<3 | int64(b[i]-'0')
	}
	if i < len(b) && b[i] != 0 && b[i] != ' ' {
		return 0, errHeader(fmt.Sprintf("invalid %s field %q", what, cString(b)))
	}
	return v, nil
}

// checksumOK reports whether the block's checksum field matches the sum of
// its bytes (with the field read as spaces), unsigned or signed, as
// historic writers computed it. The sums are taken eight bytes at a time:
// the bytes are added in 16-bit lanes (64 words of at most 2·255 a lane
// fit), and the signed sum is the unsigned one less 256 for every byte
// with its top bit set.
func checksumOK(block []byte) bool {
	stored, err := parseNumber(block[148:156], "checksum")
	if err != nil {
		return false
	}
	block = block[:blockSize]
	var lanes, high uint64
	for i := 0; i < blockSize; i += 8 {
		w := binary.LittleEndian.Uint64(block[i:])
		lanes += w&0x00FF00FF00FF00FF + w>>8&0x00FF00FF00FF00FF
		high += uint64(bits.OnesCount64(w & 0x8080808080808080))
	}
	unsigned := int64(lanes&0xFFFF + lanes>>16&0xFFFF + lanes>>32&0xFFFF + lanes>>48)
	// The checksum field counts as eight spaces.
	for _, c := range block[148:156] {
		unsigned -= int64(c)
		high -= uint64(c >> 7)
	}
	unsigned += 8 * ' '
	signed := unsigned - 256*int64(high)
	return stored == unsigned || stored == signed
}

// dialect is the header layout, from the magic at offset 257.
type dialect int

const (
	dialectV7 dialect = iota
	dialectUSTAR
	dialectGNU
	dialectStar
)

func dialectOf(block []byte) dialect {
	switch {
	case string(block[257:265]) == "ustar  \x00":
		return dialectGNU
	case string(block[257:263]) == "ustar\x00":
		if string(block[508:512]) == "tar\x00" {
			return dialectStar
		}
		return dialectUSTAR
	case string(block[257:262]) == "ustar":
		return dialectUSTAR // "ustar" followed by spaces or other versions
	}
	return dialectV7
}

// names makes the strings of the header blocks a pass reads, with fewer
// allocations than one a string: an entry's name and link target are cut
// from an arena of bytes that is only ever appended to (the strings never
// change, and keep their block alive as long as an entry holds them), and
// the owner and group names are the previous header's strings while they
// repeat, as they do in most archives. A nil *names allocates each string.
type names struct {
	arena        []byte
	uname, gname string
}

// arenaSize is the size of a names arena block: some hundred names.
const arenaSize = 16 << 10

// str returns b up to its first NUL; with a prefix other than "" (up to
// its first NUL too), prefix + "/" + that.
func (c *names) str(prefix, b []byte) string {
	b = cBytes(b)
	if prefix = cBytes(prefix); len(prefix) == 0 {
		return c.text(b)
	}
	if c == nil {
		return string(prefix) + "/" + string(b)
	}
	buf := c.grab(len(prefix) + 1 + len(b))
	copy(buf[copy(buf, prefix)+1:], b)
	buf[len(prefix)] = '/'
	return unsafe.String(&buf[0], len(buf))
}

// text returns b as a string.
func (c *names) text(b []byte) string {
	if c == nil || len(b) == 0 {
		return string(b)
	}
	buf := c.grab(len(b))
	copy(buf, b)
	return unsafe.String(&buf[0], len(buf))
}

// grab returns n bytes (n > 0) of the arena for a string to be made of;
// they must not change once it is.
func (c *names) grab(n int) []byte {
	if cap(c.arena)-len(c.arena) < n {
		c.arena = make([]byte, 0, max(arenaSize, n))
	}
	start := len(c.arena)
	c.arena = c.arena[:start+n]
	return c.arena[start : start+n : start+n]
}

// owner returns b up to its first NUL, as the string *last when they are
// equal, else as a new string that *last then holds ("" is never held:
// the headers of extended records often leave the names empty).
func (c *names) owner(last *string, b []byte) string {
	b = cBytes(b)
	if c == nil || len(b) == 0 {
		return string(b)
	}
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

// cBytes returns b up to its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// parseBlock decodes the fields of a header block into h, making its
// strings with c (which may be nil).
func parseBlock(block []byte, h *header, c *names) error {
	*h = header{typeflag: block[156], paxDigits: [3]int8{-1, -1, -1}}
	// 7-Zip reads the prefix field of every header with a "ustar"
	// magic (GNU's too, where it holds times) but a long name's.
	h.prefixUsed = block[345] != 0 && string(block[257:262]) == "ustar" && block[156] != typeGNULongN
	var err error
	num := func(off, n int, what string) int64 {
		v, e := parseNumber(block[off:off+n], what)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	copy(h.magic[:], block[257:265])
	h.mode = num(100, 8, "mode")
	h.uid = int(num(108, 8, "uid"))
	h.gid = int(num(116, 8, "gid"))
	h.size = num(124, 12, "size")
	h.mtime = time.Unix(num(136, 12, "mtime"), 0)
	if block[124]&0x80 != 0 {
		h.ext |= extBinSize
	}
	if block[136]&0x80 != 0 {
		h.ext |= extBinMtime
	}
	h.linkname = c.str(nil, block[157:257])
	d := dialectOf(block)
	if d != dialectV7 {
		if c != nil {
			h.uname = c.owner(&c.uname, block[265:297])
			h.gname = c.owner(&c.gname, block[297:329])
		} else {
			h.uname = cString(block[265:297])
			h.gname = cString(block[297:329])
		}
	}
	var prefix []byte
	switch d {
	case dialectUSTAR, dialectStar:
		end := 500
		if d == dialectStar {
			end = 476
		}
		prefix = block[345:end]
	case dialectGNU:
		// The atime and ctime fields. Go before 1.8 wrote a ustar
		// prefix there; when they do not parse and the bytes are
		// ASCII, they are read as a prefix, as archive/tar does.
		at, err1 := parseNumber(block[345:357], "atime")
		_, err2 := parseNumber(block[357:369], "ctime")
		if err1 == nil && err2 == nil {
			if at != 0 {
				h.atime = time.Unix(at, 0)
			}
		} else if p := cBytes(block[345:500]); isASCII(p) {
			prefix = p
		}
	}
	h.name = c.str(prefix, block[0:100])
	if err != nil {
		return err
	}
	if h.size < 0 {
		return errHeader("negative size")
	}
	h.rawType = h.typeflag
	h.devMajor, h.devMinor = devField(block[329:337]), devField(block[337:345])
	if h.typeflag == typeSolarisPAX {
		// Solaris tar's extended header, which GNU tar, bsdtar, 7-Zip
		// and Python's tarfile read as a pax header.
		h.typeflag = typePAX
	}
	if h.typeflag == typeRegA || h.typeflag == typeCont {
		h.typeflag = typeReg
		if d == dialectV7 && strings.HasSuffix(h.name, "/") {
			h.typeflag = typeDir
		}
	}
	h.realSize = h.size
	return nil
}

func isASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// paxState holds the records of the pax extended headers (and the GNU long
// names) that apply to the next entry.
type paxState struct {
	records map[string]string
	// GNU sparse 0.0 repeats GNU.sparse.offset and GNU.sparse.numbytes;
	// their order is the map.
	sparse00           []int64
	longName, longLink *string
	bytes              int64 // data of the extended headers read for this entry
	// prefixUsed says an extended header block had a ustar prefix;
	// recordPath is the name of the last pax header ('x'), havePAX
	// whether there was one; rawLines are its records 7-Zip does not
	// read, as stored ("key=value\n"), up to maxRawLines.
	prefixUsed bool
	havePAX    bool
	paxCount   int // pax headers of the entry as 7-Zip counts them
	recordPath string
	rawLines   []byte
}

// maxRawLines bounds the pax records kept for 7-Zip's Comment, as 7-Zip
// bounds them.
const maxRawLines = 1<<16 - 1

func (p *paxState) reset() {
	if len(p.records) > 0 {
		clear(p.records)
	}
	p.sparse00 = p.sparse00[:0]
	p.longName, p.longLink = nil, nil
	p.bytes = 0
	p.prefixUsed, p.havePAX, p.recordPath, p.paxCount = false, false, "", 0
	p.rawLines = p.rawLines[:0]
}

// replace forgets the records of an earlier pax header of the entry: of
// consecutive pax headers the last one applies alone, as GNU tar,
// archive/tar and 7-Zip read them (7-Zip still counts both, PAX:2).
func (p *paxState) replace() {
	clear(p.records)
	p.sparse00 = p.sparse00[:0]
	p.rawLines = p.rawLines[:0]
}

// addRawLine keeps a pax record 7-Zip does not read for the entry's
// comment, until the records kept would reach maxRawLines.
func (p *paxState) addRawLine(rec []byte) {
	if len(p.rawLines)+len(rec)+1 <= maxRawLines {
		p.rawLines = append(append(p.rawLines, rec...), '\n')
	}
}

// comment is 7-Zip's Comment of the entry: the pax header's name and the
// records 7-Zip does not read, one a line; "" without a pax header.
func (p *paxState) comment(c *names) string {
	if !p.havePAX {
		return ""
	}
	if p.recordPath == "" {
		return c.text(p.rawLines)
	}
	if c == nil {
		return p.recordPath + "\n" + string(p.rawLines)
	}
	buf := c.grab(len(p.recordPath) + 1 + len(p.rawLines))
	copy(buf[copy(buf, p.recordPath)+1:], p.rawLines)
	buf[len(p.recordPath)] = '\n'
	return unsafe.String(&buf[0], len(buf))
}

// globalComment is 7-Zip's Comment of an archive with a pax global
// header: the header's name and its records ("key=value"), one a line;
// ok is false when the records are malformed (7-Zip's PAX_GLOBAL_ERROR).
// Records after the first NUL (padding) are not read.
func globalComment(name string, data []byte) (comment string, ok bool) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	var b strings.Builder
	if name != "" {
		b.WriteString(name)
		b.WriteByte('\n')
	}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return "", false
		}
		n, err := strconv.Atoi(string(data[:sp]))
		if err != nil || n <= sp+2 || n > len(data) || data[n-1] != '\n' || bytes.IndexByte(data[sp+1:n-1], '=') < 0 {
			return "", false
		}
		if b.Len()+n-sp-1 <= maxRawLines {
			b.Write(data[sp+1 : n])
		}
		data = data[n:]
	}
	return b.String(), true
}

// parsePAX adds the records of a pax extended header, making the path
// and link target with c (which may be nil). A record is
// "LEN KEY=VALUE\n" where LEN counts the whole record. As libarchive and
// GNU tar do, a last record without its newline is accepted, and NUL
// padding after the records is ignored.
func (p *paxState) parsePAX(data []byte, c *names) error {
	if p.records == nil {
		p.records = make(map[string]string)
	}
	for len(data) > 0 {
		if data[0] == 0 {
			for _, c := range data {
				if c != 0 {
					return errHeader("data after the NUL padding of a pax header")
				}
			}
			return nil
		}
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return errHeader("malformed pax record")
		}
		n, err := strconv.Atoi(string(data[:sp]))
		if err != nil || n <= sp+1 || n > len(data) {
			return errHeader("malformed pax record length")
		}
		rec := data[sp+1 : n]
		data = data[n:]
		newline := rec[len(rec)-1] == '\n'
		if newline {
			rec = rec[:len(rec)-1]
		}
		eq := bytes.IndexByte(rec, '=')
		if eq <= 0 {
			return errHeader("pax record without a key")
		}
		key := paxKey(rec[:eq])
		var value string
		switch key {
		case "path", "linkpath":
			value = c.text(rec[eq+1:]) // the entry's name or link target
		default:
			value = string(rec[eq+1:])
		}
		if !paxKeys7Zip[key] && newline {
			p.addRawLine(rec)
		}
		if !newline {
			// libarchive and GNU tar warn and go on; we accept it for
			// a last record whose key garc does not use (x= in
			// libarchive's test), and refuse a damaged field we would
			// apply.
			if len(data) > 0 || paxUsed(key) {
				return errHeader("pax record " + strconv.Quote(key) + " without its newline")
			}
			continue
		}
		switch key {
		case "path", "linkpath", "uname", "gname":
			if strings.IndexByte(value, 0) >= 0 {
				return errHeader("NUL in pax " + key)
			}
		}
		switch key {
		case "GNU.sparse.offset", "GNU.sparse.numbytes":
			v, err := strconv.ParseInt(value, 10, 64)
			if err != nil || v < 0 {
				return errHeader("invalid " + key)
			}
			if (key == "GNU.sparse.offset") != (len(p.sparse00)%2 == 0) {
				return errHeader("GNU.sparse.offset and numbytes out of turn")
			}
			p.sparse00 = append(p.sparse00, v)
		default:
			p.records[key] = value
		}
	}
	return nil
}

// paxKey returns key as a string, the same string every time for the
// keys most headers hold (no allocation).
func paxKey(key []byte) string {
	switch string(key) {
	case "path":
		return "path"
	case "linkpath":
		return "linkpath"
	case "mtime":
		return "mtime"
	case "atime":
		return "atime"
	case "ctime":
		return "ctime"
	case "size":
		return "size"
	case "uid":
		return "uid"
	case "gid":
		return "gid"
	case "uname":
		return "uname"
	case "gname":
		return "gname"
	}
	return string(key)
}

// paxUsed reports whether apply or applyPAXSparse reads the key.
func paxUsed(key string) bool {
	switch key {
	case "path", "linkpath", "uname", "gname", "uid", "gid", "size", "mtime", "atime":
		return true
	}
	return strings.HasPrefix(key, "GNU.sparse.")
}

// apply sets the header fields the pax records and long names override,
// making strings with c (which may be nil). An empty value leaves the
// header's own field in place.
func (p *paxState) apply(h *header, c *names) error {
	if p.longName != nil {
		h.name = *p.longName
		h.ext |= extLongName
	}
	if p.longLink != nil {
		h.linkname = *p.longLink
		h.ext |= extLongLink
	}
	if len(p.records) > 0 || p.paxCount > 0 {
		h.ext |= extPAX
	}
	h.paxCount = uint8(min(p.paxCount, 255))
	h.prefixUsed = h.prefixUsed || p.prefixUsed
	h.comment = p.comment(c)
	if len(p.sparse00) > 0 {
		h.ext |= extPAXUnsupported
	}
	for key, v := range p.records {
		h.ext |= paxKeyFlags[key]
		if !paxKeys7Zip[key] {
			h.ext |= extPAXUnsupported
		}
		if v == "" {
			continue
		}
		switch key {
		case "path":
			h.name = v
		case "linkpath":
			h.linkname = v
		case "uname":
			h.uname = v
		case "gname":
			h.gname = v
		case "uid", "gid":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || n > math.MaxInt32 {
				return errHeader("invalid pax " + key)
			}
			if key == "uid" {
				h.uid = int(n)
			} else {
				h.gid = int(n)
			}
		case "size":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return errHeader("invalid pax size")
			}
			h.size, h.realSize = n, n
		case "mtime", "atime":
			t, digits, ok := paxTime(v)
			if !ok {
				return errHeader("invalid pax " + key)
			}
			if key == "mtime" {
				h.mtime, h.paxDigits[0] = t, int8(digits)
			} else {
				h.atime, h.paxDigits[1] = t, int8(digits)
			}
		case "SCHILY.fflags":
			h.fflags = v
		case "ctime":
			if t, digits, ok := paxTime(v); ok {
				h.ctime, h.paxDigits[2] = t, int8(digits)
			}
		}
	}
	return nil
}

// extFlags say which extended headers and pax keys applied to an entry.
type extFlags uint16

const (
	extPAX extFlags = 1 << iota
	extMtime
	extAtime
	extCtime
	extPath
	extLinkpath
	extLongName
	extLongLink
	extSize           // pax size
	extBinMtime       // base-256 mtime field
	extBinSize        // base-256 size field
	extSparseGNU      // old GNU sparse header (type 'S')
	extPAXUnsupported // a pax record 7-Zip does not read
)

// paxKeyFlags are the pax keys 7-Zip names in an entry's
// Characteristics.
var paxKeyFlags = map[string]extFlags{"mtime": extMtime, "atime": extAtime, "ctime": extCtime,
	"path": extPath, "linkpath": extLinkpath, "size": extSize}

// paxKeys7Zip are the pax keys 7-Zip reads; an entry with any other
// record (xattrs, hdrcharset, GNU.sparse.*) is "PAX_unsupported_line" in
// its Characteristics.
var paxKeys7Zip = map[string]bool{"path": true, "linkpath": true, "size": true, "uid": true, "gid": true,
	"uname": true, "gname": true, "mtime": true, "atime": true, "ctime": true, "SCHILY.fflags": true}

// paxTime parses "SECONDS[.FRACTION]", possibly negative, and returns
// the number of fraction digits (up to 9, the digits read), which 7-Zip
// shows.
func paxTime(s string) (time.Time, int, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, 0, false
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		f, err := strconv.ParseUint(frac, 10, 32)
		if err != nil {
			return time.Time{}, 0, false
		}
		ns = int64(f)
		for i := len(frac); i < 9; i++ {
			ns *= 10
		}
		if strings.HasPrefix(sec, "-") {
			ns = -ns
		}
	}
	return time.Unix(n, ns), min(len(frac), 9), true
}

// readSpecial reads the data of a pax header or GNU long name (size bytes
// and their padding) into *into, which it grows as needed and which the
// next call overwrites.
func readSpecial(in io.Reader, size int64, into *[]byte) ([]byte, error) {
	if size > maxSpecialSize {
		return nil, &archive.LimitError{What: "tar extended header", Need: size, Limit: maxSpecialSize, Fixed: true}
	}
	n := int((size + blockSize - 1) / blockSize * blockSize)
	if cap(*into) < n {
		*into = make([]byte, n)
	}
	buf := (*into)[:n]
	if _, err := io.ReadFull(in, buf); err != nil {
		return nil, truncated(err)
	}
	return buf[:size], nil
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errHeader("unexpected end of data")
	}
	return err
}

// devField reads a device number field for listings: -1 when it holds
// no number (GNU tar leaves it empty for files).
func devField(b []byte) int64 {
	if allZero(b) {
		return -1
	}
	v, err := parseNumber(b, "device")
	if err != nil {
		return -1
	}
	return v
}
