package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
)

// Property IDs of the 7z header (7zFormat.txt, "Property IDs").
const (
	idEnd                   = 0x00
	idHeader                = 0x01
	idArchiveProperties     = 0x02
	idAdditionalStreamsInfo = 0x03
	idMainStreamsInfo       = 0x04
	idFilesInfo             = 0x05
	idPackInfo              = 0x06
	idUnpackInfo            = 0x07
	idSubStreamsInfo        = 0x08
	idSize                  = 0x09
	idCRC                   = 0x0A
	idFolder                = 0x0B
	idCodersUnpackSize      = 0x0C
	idNumUnpackStream       = 0x0D
	idEmptyStream           = 0x0E
	idEmptyFile             = 0x0F
	idAnti                  = 0x10
	idName                  = 0x11
	idCTime                 = 0x12
	idATime                 = 0x13
	idMTime                 = 0x14
	idWinAttributes         = 0x15
	idComment               = 0x16
	idEncodedHeader         = 0x17
	idStartPos              = 0x18
	idDummy                 = 0x19
)

// signature is the first six bytes of every 7z archive.
var signature = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}

// signatureHeaderSize is the size of the fixed header at offset 0.
const signatureHeaderSize = 32

// Structural limits that hold for every archive 7-Zip writes.
const (
	maxCodersPerFolder = 64
	maxStreamsPerCoder = 64
	// maxStreamsPerFolder bounds a folder's coder inputs and outputs
	// together, as 7-Zip does (k_Scan_NumCodersStreams_in_Folder_MAX):
	// the graph walks are quadratic in it.
	maxStreamsPerFolder = 64
	maxPropsSize        = 1 << 16
	maxHeaderSize       = 256 << 20 // a header larger than this is refused
	maxEncodedHeaderNex = 4         // nesting of kEncodedHeader
)

// errHeader is the cause wrapped by header parse errors.
var errHeader = fmt.Errorf("bad header: %w", archive.ErrFormat)

// signatureHeader is the parsed fixed header.
type signatureHeader struct {
	major, minor     byte
	nextHeaderOffset uint64
	nextHeaderSize   uint64
	nextHeaderCRC    uint32
}

// parseSignatureHeader checks the signature and the start-header CRC.
func parseSignatureHeader(b []byte) (signatureHeader, error) {
	var h signatureHeader
	if len(b) < signatureHeaderSize || string(b[:6]) != string(signature) {
		return h, archive.ErrNotArchive
	}
	h.major, h.minor = b[6], b[7]
	if h.major != 0 {
		return h, &archive.UnsupportedError{What: fmt.Sprintf("7z format version %d.%d", h.major, h.minor)}
	}
	if crc32.ChecksumIEEE(b[12:32]) != binary.LittleEndian.Uint32(b[8:12]) {
		return h, fmt.Errorf("start header: %w", archive.ErrChecksum)
	}
	h.nextHeaderOffset = binary.LittleEndian.Uint64(b[12:20])
	h.nextHeaderSize = binary.LittleEndian.Uint64(b[20:28])
	h.nextHeaderCRC = binary.LittleEndian.Uint32(b[28:32])
	return h, nil
}

// coder is one coder of a folder.
type coder struct {
	id       uint64 // method ID, big-endian bytes as a number
	idSize   int
	numIn    int // decoder inputs (packed side)
	numOut   int // decoder outputs (always 1 in practice)
	props    []byte
	inStart  int // index of the first input in the folder's input numbering
	outStart int // index of the first output in the folder's output numbering
}

// bindPair connects a coder output (outIndex) to a coder input (inIndex).
type bindPair struct {
	inIndex, outIndex int
}

// folderGraph is the coders of a folder and how they are bound. Folders
// with the same graph share one (a non-solid archive has a folder per
// file, almost all alike), which is never modified once shared.
type folderGraph struct {
	coders    []coder
	bindPairs []bindPair
	packed    []int // folder input index fed by each of the folder's packed streams
}

// folder is a graph of coders producing one unpacked stream. It is kept
// small (56 bytes): a non-solid archive has one per file. The counts and
// indexes are 31 bits: a header is at most maxHeaderSize bytes, and the
// records it declares are charged to the memory budget, so that they
// cannot come near 2^31.
type folder struct {
	*folderGraph
	unpackSizes []uint64 // per coder output
	crc         uint32
	// packCRC is the index of the folder's first packed stream in
	// streamsInfo.packSizes (filled by the stream layout) << 1, | 1 if
	// crc is defined.
	packCRC uint32

	// filled by the stream layout
	numSub     int32 // number of substreams (files with data)
	firstSub   int32 // index of the first substream in streamsInfo.sub*
	packOffset int64 // offset of the first packed stream, relative to the end of the signature header
}

// hasCRC reports whether the folder's CRC is defined.
func (f *folder) hasCRC() bool { return f.packCRC&1 != 0 }

// setCRC defines (has) or clears the folder's CRC.
func (f *folder) setCRC(has bool, crc uint32) {
	f.crc, f.packCRC = crc, f.packCRC&^1
	if has {
		f.packCRC |= 1
	}
}

// firstPack returns the index of the folder's first packed stream.
func (f *folder) firstPack() int { return int(f.packCRC >> 1) }

// setFirstPack sets the index of the folder's first packed stream, less
// than 2^31.
func (f *folder) setFirstPack(p int) { f.packCRC = uint32(p)<<1 | f.packCRC&1 }

// newFolder returns a folder with an empty graph of its own, to be filled
// by the writer.
func newFolder() folder { return folder{folderGraph: &folderGraph{}} }

// numOutTotal returns the number of coder outputs of the folder.
func (f *folder) numOutTotal() int {
	n := 0
	for i := range f.coders {
		n += f.coders[i].numOut
	}
	return n
}

// mainOutput returns the index of the output no bind pair consumes.
func (f *folder) mainOutput() int {
	for o := 0; o < f.numOutTotal(); o++ {
		bound := false
		for _, bp := range f.bindPairs {
			if bp.outIndex == o {
				bound = true
				break
			}
		}
		if !bound {
			return o
		}
	}
	return -1
}

// unpackSize returns the size of the folder's main output.
func (f *folder) unpackSize() uint64 {
	o := f.mainOutput()
	if o < 0 || o >= len(f.unpackSizes) {
		return 0
	}
	return f.unpackSizes[o]
}

// streamsInfo is PackInfo + UnpackInfo + SubStreamsInfo.
type streamsInfo struct {
	packPos   uint64
	packSizes []uint64
	folders   []folder
	// substreams over all folders, in order
	subSizes  []uint64
	subHasCRC []bool
	subCRCs   []uint32
}

// fileInfo is one entry of FilesInfo with all its properties, as the
// writer keeps it (a parsed header keeps fileRecords).
type fileInfo struct {
	name     string
	comment  string
	ctime    uint64
	atime    uint64
	mtime    uint64
	startPos uint64
	attrib   uint32

	hasStream   bool
	isEmptyFile bool
	isAnti      bool
	hasAttrib   bool
	hasCTime    bool
	hasATime    bool
	hasMTime    bool
	hasStartPos bool
}

// header is the decoded kHeader.
type header struct {
	main  streamsInfo
	files fileRecords
}

// fileRecords is the parsed FilesInfo: a compact record per file with
// the properties most archives give every file, and columns for the
// rare ones, allocated only when the archive has them. Headers hold
// millions of files, and the records stand beside the entries built
// from them while an archive is opened.
type fileRecords struct {
	recs     []fileRecord
	ctime    []uint64 // nil when no file has one
	atime    []uint64
	startPos []uint64
	comment  []string
}

// fileRecord holds a file's name, modification time, attributes and
// flags.
type fileRecord struct {
	name   string
	mtime  uint64
	attrib uint32
	flags  fileFlags
}

// fileFlags are a file's boolean properties.
type fileFlags uint8

const (
	fileHasStream fileFlags = 1 << iota
	fileIsEmptyFile
	fileIsAnti
	fileHasAttrib
	fileHasCTime
	fileHasATime
	fileHasMTime
	fileHasStartPos
)

// set sets or clears the flags f.
func (fl *fileFlags) set(f fileFlags, on bool) {
	if on {
		*fl |= f
	} else {
		*fl &^= f
	}
}

// len returns the number of files.
func (fr *fileRecords) len() int { return len(fr.recs) }

// hasStream reports whether file i has data.
func (fr *fileRecords) hasStream(i int) bool { return fr.recs[i].flags&fileHasStream != 0 }

// info returns file i with all its properties.
func (fr *fileRecords) info(i int) fileInfo {
	r := &fr.recs[i]
	fi := fileInfo{name: r.name, mtime: r.mtime, attrib: r.attrib,
		hasStream: r.flags&fileHasStream != 0, isEmptyFile: r.flags&fileIsEmptyFile != 0, isAnti: r.flags&fileIsAnti != 0,
		hasAttrib: r.flags&fileHasAttrib != 0, hasMTime: r.flags&fileHasMTime != 0,
		hasCTime: r.flags&fileHasCTime != 0, hasATime: r.flags&fileHasATime != 0, hasStartPos: r.flags&fileHasStartPos != 0}
	if fi.hasCTime {
		fi.ctime = fr.ctime[i]
	}
	if fi.hasATime {
		fi.atime = fr.atime[i]
	}
	if fi.hasStartPos {
		fi.startPos = fr.startPos[i]
	}
	if fr.comment != nil {
		fi.comment = fr.comment[i]
	}
	return fi
}

// byteReader parses a header buffer. Every read checks the remaining length.
type byteReader struct {
	b   []byte
	off int
	// mem is charged with every allocation sized by the header before it
	// is made; nil charges nothing (tests).
	mem *headerMemory
	// slabs hold the small per-folder slices (one folder per file in a
	// non-solid archive); nil: allocate each.
	slabs *headerSlabs
}

// sub returns a reader over b sharing r's accounting.
func (r *byteReader) sub(b []byte) *byteReader { return &byteReader{b: b, mem: r.mem, slabs: r.slabs} }

// headerSlabs hand out the small slices of folder records from shared
// chunks, so that a header of 100,000 folders makes a few allocations
// instead of 400,000.
type headerSlabs struct {
	graphs  slab[folderGraph]
	coders  slab[coder]
	ints    slab[int]
	uint64s slab[uint64]
	bytes   slab[byte]
}

// slab hands out slices of a few elements from chunks.
type slab[T any] struct {
	chunk []T
	used  int // elements of chunk handed out
}

// slabChunk is the number of elements allocated at once.
const slabChunk = 1024

// take returns a zeroed slice of n elements (capacity n).
func (s *slab[T]) take(n int) []T {
	if n > slabChunk/8 {
		return make([]T, n)
	}
	if len(s.chunk)-s.used < n {
		s.chunk, s.used = make([]T, slabChunk), 0
	}
	v := s.chunk[s.used : s.used+n : s.used+n]
	s.used += n
	return v
}

// giveBack returns v, the slice the last take handed out, to the slab.
func (s *slab[T]) giveBack(v []T) {
	n := len(v)
	if n == 0 || n > slabChunk/8 || n > s.used || &s.chunk[s.used-n] != &v[0] {
		return
	}
	clear(v)
	s.used -= n
}

// takeGraph, takeCoders, takeInts and takeUint64s use the slabs when r
// has them.
func (r *byteReader) takeGraph() *folderGraph {
	if r.slabs == nil {
		return &folderGraph{}
	}
	return &r.slabs.graphs.take(1)[0]
}

func (r *byteReader) takeCoders(n int) []coder {
	if r.slabs == nil {
		return make([]coder, n)
	}
	return r.slabs.coders.take(n)
}

func (r *byteReader) takeInts(n int) []int {
	if r.slabs == nil {
		return make([]int, n)
	}
	return r.slabs.ints.take(n)
}

func (r *byteReader) takeUint64s(n int) []uint64 {
	if r.slabs == nil {
		return make([]uint64, n)
	}
	return r.slabs.uint64s.take(n)
}

// copyBytes returns a copy of b from the byte slab, so that what the
// parsed header keeps does not hold the whole header buffer.
func (r *byteReader) copyBytes(b []byte) []byte {
	if r.slabs == nil {
		return bytes.Clone(b)
	}
	v := r.slabs.bytes.take(len(b))
	copy(v, b)
	return v
}

// shareCoders makes f use prev's coder graph when the two are the same,
// returning f's copy to the slabs: a non-solid archive has a folder per
// file, almost all with the coders of the folder before.
func (r *byteReader) shareCoders(f, prev *folder) {
	if !sameCoders(f, prev) {
		return
	}
	if r.slabs != nil {
		// Back in the reverse order of the takes.
		r.slabs.ints.giveBack(f.packed)
		for i := len(f.coders) - 1; i >= 0; i-- {
			r.slabs.bytes.giveBack(f.coders[i].props)
		}
		r.slabs.coders.giveBack(f.coders)
		g := f.folderGraph
		*g = folderGraph{}
		r.slabs.graphs.giveBack(unsafe.Slice(g, 1))
	}
	f.folderGraph = prev.folderGraph
}

// sameCoders reports whether two folders have the same coders, bound the
// same way (and so the same method description).
func sameCoders(a, b *folder) bool {
	if a.folderGraph == b.folderGraph {
		return true // shared by shareCoders
	}
	if len(a.coders) != len(b.coders) || !slices.Equal(a.packed, b.packed) || !slices.Equal(a.bindPairs, b.bindPairs) {
		return false
	}
	for i := range a.coders {
		x, y := &a.coders[i], &b.coders[i]
		if x.id != y.id || x.idSize != y.idSize || x.numIn != y.numIn || x.numOut != y.numOut || !bytes.Equal(x.props, y.props) {
			return false
		}
	}
	return true
}

// headerMemory charges the memory of the parsed header — records,
// vectors, names, entries — against the reader's budget before it is
// allocated, so that a small header declaring millions of records cannot
// take more memory than the limit. The charge is held as long as the
// reader is open.
type headerMemory struct {
	archive.MetadataCharge
}

// charge takes n elements of each bytes for what, or returns a
// *archive.LimitError.
func (h *headerMemory) charge(what string, n, each int) error {
	if h == nil || h.Budget == nil || n <= 0 {
		return nil
	}
	limit := h.Budget.Limit()
	if int64(n) > limit/int64(max(each, 1)) {
		return &archive.LimitError{What: "7z header memory (" + what + ")", Need: h.Charged() + int64(min(n, 1<<40))*int64(each), Limit: limit}
	}
	need := int64(n) * int64(each)
	if !h.Charge(need) {
		return &archive.LimitError{What: "7z header memory (" + what + ")", Need: h.Charged() + need, Limit: limit}
	}
	return nil
}

// release gives the whole charge back.
func (h *headerMemory) release() {
	if h != nil {
		h.Release()
	}
}

// charge charges n elements of each bytes to the reader's accounting.
func (r *byteReader) charge(what string, n, each int) error { return r.mem.charge(what, n, each) }

func (r *byteReader) remaining() int { return len(r.b) - r.off }

func (r *byteReader) readByte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, fmt.Errorf("truncated: %w", errHeader)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *byteReader) readBytes(n uint64) ([]byte, error) {
	if n > uint64(r.remaining()) {
		return nil, fmt.Errorf("truncated (need %d bytes, have %d): %w", n, r.remaining(), errHeader)
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// readNumber reads 7z's variable-length number: the count of leading one
// bits of the first byte is the number of little-endian bytes that follow;
// the remaining bits of the first byte are the most significant part.
func (r *byteReader) readNumber() (uint64, error) {
	first, err := r.readByte()
	if err != nil {
		return 0, err
	}
	var v uint64
	mask := byte(0x80)
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			high := uint64(first & (mask - 1))
			return v | high<<(8*uint(i)), nil
		}
		c, err := r.readByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c) << (8 * uint(i))
		mask >>= 1
	}
	return v, nil
}

// readCount reads a number used as an element count and checks that each
// element, taking at least minBytes of header (bits when minBytes==0 count
// as 1/8 byte), fits in the rest of the header.
func (r *byteReader) readCount(what string, minBits int) (int, error) {
	n, err := r.readNumber()
	if err != nil {
		return 0, err
	}
	if n > uint64(r.remaining())*8/uint64(max(minBits, 1))+8 || n > 1<<31 {
		return 0, fmt.Errorf("%s count %d larger than the header: %w", what, n, errHeader)
	}
	return int(n), nil
}

func (r *byteReader) readUint32() (uint32, error) {
	b, err := r.readBytes(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *byteReader) readUint64() (uint64, error) {
	b, err := r.readBytes(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// readBits reads a bit vector of n items, most significant bit first.
func (r *byteReader) readBits(n int) ([]bool, error) {
	b, err := r.readBytes(uint64((n + 7) / 8))
	if err != nil {
		return nil, err
	}
	if err := r.charge("bit vector", n, 1); err != nil {
		return nil, err
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = b[i/8]&(0x80>>uint(i%8)) != 0
	}
	return v, nil
}

// readOptionalBits reads the "AllAreDefined" byte and, when it is zero, a
// bit vector.
func (r *byteReader) readOptionalBits(n int) ([]bool, error) {
	all, err := r.readByte()
	if err != nil {
		return nil, err
	}
	if all == 0 {
		return r.readBits(n)
	}
	if err := r.charge("bit vector", n, 1); err != nil {
		return nil, err
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = true
	}
	return v, nil
}

// readDigests reads n optional CRC32 values.
func (r *byteReader) readDigests(n int) ([]bool, []uint32, error) {
	defined, err := r.readOptionalBits(n)
	if err != nil {
		return nil, nil, err
	}
	if err := r.charge("CRCs", n, 4); err != nil {
		return nil, nil, err
	}
	crcs := make([]uint32, n)
	for i := range crcs {
		if defined[i] {
			if crcs[i], err = r.readUint32(); err != nil {
				return nil, nil, err
			}
		}
	}
	return defined, crcs, nil
}

// skipData skips a property whose size follows as a number.
func (r *byteReader) skipData() error {
	n, err := r.readNumber()
	if err != nil {
		return err
	}
	_, err = r.readBytes(n)
	return err
}

func (r *byteReader) expect(id byte, what string) error {
	c, err := r.readByte()
	if err != nil {
		return err
	}
	if c != id {
		return fmt.Errorf("%s: property 0x%02x where 0x%02x was expected: %w", what, c, id, errHeader)
	}
	return nil
}

// readPackInfo parses PackInfo after its ID.
func (r *byteReader) readPackInfo(si *streamsInfo) error {
	var err error
	if si.packPos, err = r.readNumber(); err != nil {
		return err
	}
	n, err := r.readCount("packed stream", 8)
	if err != nil {
		return err
	}
	if err := r.charge("packed streams", n, 8); err != nil {
		return err
	}
	si.packSizes = make([]uint64, n)
	for {
		id, err := r.readByte()
		if err != nil {
			return err
		}
		switch id {
		case idEnd:
			return nil
		case idSize:
			for i := range si.packSizes {
				if si.packSizes[i], err = r.readNumber(); err != nil {
					return err
				}
				if si.packSizes[i] > 1<<62 {
					return fmt.Errorf("packed size %d: %w", si.packSizes[i], errHeader)
				}
			}
		case idCRC:
			// Packed-stream CRCs: parsed and ignored (7-Zip ignores them too).
			if _, _, err := r.readDigests(n); err != nil {
				return err
			}
		default:
			if err := r.skipData(); err != nil {
				return err
			}
		}
	}
}

// readFolder parses one Folder record.
func (r *byteReader) readFolder(f *folder) error {
	nc, err := r.readNumber()
	if err != nil {
		return err
	}
	if nc == 0 || nc > maxCodersPerFolder {
		return fmt.Errorf("folder with %d coders: %w", nc, errHeader)
	}
	if err := r.charge("coders", int(nc), int(unsafe.Sizeof(coder{}))); err != nil {
		return err
	}
	if err := r.charge("folder graphs", 1, int(unsafe.Sizeof(folderGraph{}))); err != nil {
		return err
	}
	f.folderGraph = r.takeGraph()
	f.coders = r.takeCoders(int(nc))
	nIn, nOut := 0, 0
	for i := range f.coders {
		c := &f.coders[i]
		flags, err := r.readByte()
		if err != nil {
			return err
		}
		c.idSize = int(flags & 0x0F)
		if c.idSize > 8 {
			return fmt.Errorf("method ID of %d bytes: %w", c.idSize, errHeader)
		}
		idb, err := r.readBytes(uint64(c.idSize))
		if err != nil {
			return err
		}
		for _, b := range idb {
			c.id = c.id<<8 | uint64(b)
		}
		c.numIn, c.numOut = 1, 1
		if flags&0x10 != 0 {
			a, err := r.readNumber()
			if err != nil {
				return err
			}
			b, err := r.readNumber()
			if err != nil {
				return err
			}
			if a == 0 || a > maxStreamsPerCoder || b == 0 || b > maxStreamsPerCoder {
				return fmt.Errorf("coder with %d inputs and %d outputs: %w", a, b, errHeader)
			}
			c.numIn, c.numOut = int(a), int(b)
		}
		if flags&0x20 != 0 {
			n, err := r.readNumber()
			if err != nil {
				return err
			}
			if n > maxPropsSize {
				return fmt.Errorf("coder properties of %d bytes: %w", n, errHeader)
			}
			props, err := r.readBytes(n)
			if err != nil {
				return err
			}
			c.props = r.copyBytes(props)
		}
		if flags&0x80 != 0 {
			// Alternative methods were never written by any 7-Zip version.
			return &archive.UnsupportedError{What: "7z alternative coder methods"}
		}
		c.inStart, c.outStart = nIn, nOut
		nIn += c.numIn
		nOut += c.numOut
	}
	if nOut == 0 || nOut > maxStreamsPerFolder || nIn > maxStreamsPerFolder {
		return fmt.Errorf("folder with %d inputs and %d outputs: %w", nIn, nOut, errHeader)
	}
	nbp := nOut - 1
	if nbp > nIn {
		return fmt.Errorf("folder with %d bind pairs and %d inputs: %w", nbp, nIn, errHeader)
	}
	if err := r.charge("bind pairs", nbp+nIn, int(unsafe.Sizeof(bindPair{}))); err != nil {
		return err
	}
	if nbp > 0 {
		f.bindPairs = make([]bindPair, nbp)
	}
	for i := range f.bindPairs {
		in, err := r.readNumber()
		if err != nil {
			return err
		}
		out, err := r.readNumber()
		if err != nil {
			return err
		}
		if in >= uint64(nIn) || out >= uint64(nOut) {
			return fmt.Errorf("bind pair %d->%d out of range: %w", out, in, errHeader)
		}
		for _, bp := range f.bindPairs[:i] {
			if bp.inIndex == int(in) || bp.outIndex == int(out) {
				return fmt.Errorf("bind pair %d->%d used twice: %w", out, in, errHeader)
			}
		}
		f.bindPairs[i] = bindPair{inIndex: int(in), outIndex: int(out)}
	}
	np := nIn - nbp
	if np < 1 {
		return fmt.Errorf("folder without packed streams: %w", errHeader)
	}
	f.packed = r.takeInts(np)
	if np == 1 {
		f.packed[0] = -1
		for i := 0; i < nIn; i++ {
			if f.findBindPairForIn(i) < 0 {
				f.packed[0] = i
				break
			}
		}
		if f.packed[0] < 0 {
			return fmt.Errorf("folder without unbound input: %w", errHeader)
		}
	} else {
		for i := range f.packed {
			v, err := r.readNumber()
			if err != nil {
				return err
			}
			if v >= uint64(nIn) || f.findBindPairForIn(int(v)) >= 0 {
				return fmt.Errorf("packed stream index %d: %w", v, errHeader)
			}
			for _, p := range f.packed[:i] {
				if p == int(v) {
					return fmt.Errorf("packed stream index %d used twice: %w", v, errHeader)
				}
			}
			f.packed[i] = int(v)
		}
	}
	if f.mainOutput() < 0 {
		return fmt.Errorf("folder without a main output: %w", errHeader)
	}
	if nbp == 0 {
		return nil // no edges, no cycle
	}
	return f.checkAcyclic()
}

// checkAcyclic rejects coder graphs with cycles, which would otherwise make
// the recursive decoder construction loop forever.
func (f *folder) checkAcyclic() error {
	state := make([]byte, len(f.coders)) // 0 new, 1 visiting, 2 done
	var visit func(ci int) error
	visit = func(ci int) error {
		switch state[ci] {
		case 1:
			return fmt.Errorf("coder graph has a cycle: %w", errHeader)
		case 2:
			return nil
		}
		state[ci] = 1
		c := &f.coders[ci]
		for k := 0; k < c.numIn; k++ {
			if bp := f.findBindPairForIn(c.inStart + k); bp >= 0 {
				next := f.coderOfOutput(f.bindPairs[bp].outIndex)
				if next < 0 {
					return fmt.Errorf("bind pair to unknown output: %w", errHeader)
				}
				if err := visit(next); err != nil {
					return err
				}
			}
		}
		state[ci] = 2
		return nil
	}
	for i := range f.coders {
		if err := visit(i); err != nil {
			return err
		}
	}
	return nil
}

func (f *folder) findBindPairForIn(in int) int {
	for i, bp := range f.bindPairs {
		if bp.inIndex == in {
			return i
		}
	}
	return -1
}

func (f *folder) coderOfOutput(out int) int {
	for i := range f.coders {
		c := &f.coders[i]
		if out >= c.outStart && out < c.outStart+c.numOut {
			return i
		}
	}
	return -1
}

// readUnpackInfo parses UnpackInfo after its ID.
func (r *byteReader) readUnpackInfo(si *streamsInfo) error {
	if err := r.expect(idFolder, "unpack info"); err != nil {
		return err
	}
	// A folder takes at least 4 bytes: coder count, flags, one ID byte... be
	// generous and require 2.
	n, err := r.readCount("folder", 16)
	if err != nil {
		return err
	}
	ext, err := r.readByte()
	if err != nil {
		return err
	}
	if ext != 0 {
		return &archive.UnsupportedError{What: "7z external folder data"}
	}
	if err := r.charge("folders", n, int(unsafe.Sizeof(folder{}))+32); err != nil {
		return err
	}
	si.folders = make([]folder, n)
	for i := range si.folders {
		if err := r.readFolder(&si.folders[i]); err != nil {
			return err
		}
		if i > 0 {
			r.shareCoders(&si.folders[i], &si.folders[i-1])
		}
	}
	if err := r.expect(idCodersUnpackSize, "unpack info"); err != nil {
		return err
	}
	for i := range si.folders {
		f := &si.folders[i]
		no := f.numOutTotal()
		if no > r.remaining() {
			return fmt.Errorf("unpack sizes: %w", errHeader)
		}
		if err := r.charge("unpack sizes", no, 8); err != nil {
			return err
		}
		f.unpackSizes = r.takeUint64s(no)
		for j := range f.unpackSizes {
			if f.unpackSizes[j], err = r.readNumber(); err != nil {
				return err
			}
			if f.unpackSizes[j] > 1<<62 {
				return fmt.Errorf("unpack size %d: %w", f.unpackSizes[j], errHeader)
			}
		}
	}
	for {
		id, err := r.readByte()
		if err != nil {
			return err
		}
		switch id {
		case idEnd:
			return nil
		case idCRC:
			defined, crcs, err := r.readDigests(n)
			if err != nil {
				return err
			}
			for i := range si.folders {
				si.folders[i].setCRC(defined[i], crcs[i])
			}
		default:
			if err := r.skipData(); err != nil {
				return err
			}
		}
	}
}

// readSubStreamsInfo parses SubStreamsInfo after its ID.
func (r *byteReader) readSubStreamsInfo(si *streamsInfo) error {
	for i := range si.folders {
		si.folders[i].numSub = 1
	}
	id, err := r.readByte()
	if err != nil {
		return err
	}
	if id == idNumUnpackStream {
		total := 0
		for i := range si.folders {
			n, err := r.readNumber()
			if err != nil {
				return err
			}
			// Every substream but the last of a folder needs a size
			// byte; the count is further bounded by the folder size.
			if n > uint64(r.remaining())+1 {
				return fmt.Errorf("%d substreams: %w", n, errHeader)
			}
			si.folders[i].numSub = int32(min(n, 1<<31-1))
			total += int(n)
			if total > 1<<31-1 {
				return fmt.Errorf("%d substreams: %w", total, errHeader)
			}
		}
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	total := 0
	for i := range si.folders {
		total += int(si.folders[i].numSub)
	}
	if total > len(r.b)*8+len(si.folders) {
		return fmt.Errorf("%d substreams: %w", total, errHeader)
	}
	if err := r.charge("substreams", total, 8+1+4+8); err != nil {
		return err
	}
	si.subSizes = make([]uint64, 0, total)
	hasSizes := id == idSize
	for i := range si.folders {
		f := &si.folders[i]
		f.firstSub = int32(len(si.subSizes))
		if f.numSub == 0 {
			continue
		}
		var sum uint64
		if hasSizes {
			for j := int32(1); j < f.numSub; j++ {
				s, err := r.readNumber()
				if err != nil {
					return err
				}
				sum += s
				if s > 1<<62 || sum > f.unpackSize() {
					return fmt.Errorf("substream sizes exceed the folder size: %w", errHeader)
				}
				si.subSizes = append(si.subSizes, s)
			}
		} else if f.numSub > 1 {
			return fmt.Errorf("substream sizes missing: %w", errHeader)
		}
		si.subSizes = append(si.subSizes, f.unpackSize()-sum)
	}
	if hasSizes {
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	si.subHasCRC = make([]bool, total)
	si.subCRCs = make([]uint32, total)
	// Substreams whose CRC is not already known from the folder.
	nUnknown := 0
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub == 1 && f.hasCRC() {
			si.subHasCRC[f.firstSub] = true
			si.subCRCs[f.firstSub] = f.crc
		} else {
			nUnknown += int(f.numSub)
		}
	}
	for id != idEnd {
		if id == idCRC {
			defined, crcs, err := r.readDigests(nUnknown)
			if err != nil {
				return err
			}
			k := 0
			for i := range si.folders {
				f := &si.folders[i]
				if f.numSub == 1 && f.hasCRC() {
					continue
				}
				for j := int32(0); j < f.numSub; j++ {
					si.subHasCRC[f.firstSub+j] = defined[k]
					si.subCRCs[f.firstSub+j] = crcs[k]
					k++
				}
			}
		} else if err := r.skipData(); err != nil {
			return err
		}
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	return nil
}

// readStreamsInfo parses StreamsInfo after its ID and lays out the folders.
func (r *byteReader) readStreamsInfo(si *streamsInfo) error {
	id, err := r.readByte()
	if err != nil {
		return err
	}
	if id == idPackInfo {
		if err := r.readPackInfo(si); err != nil {
			return err
		}
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	if id == idUnpackInfo {
		if err := r.readUnpackInfo(si); err != nil {
			return err
		}
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	subDone := false
	if id == idSubStreamsInfo {
		if si.folders == nil {
			return fmt.Errorf("substreams without unpack info: %w", errHeader)
		}
		if err := r.readSubStreamsInfo(si); err != nil {
			return err
		}
		subDone = true
		if id, err = r.readByte(); err != nil {
			return err
		}
	}
	if id != idEnd {
		return fmt.Errorf("streams info: unexpected property 0x%02x: %w", id, errHeader)
	}
	if !subDone {
		// One substream per folder, carrying the folder CRC.
		n := len(si.folders)
		if err := r.charge("substreams", n, 8+1+4+8); err != nil {
			return err
		}
		si.subSizes = make([]uint64, n)
		si.subHasCRC = make([]bool, n)
		si.subCRCs = make([]uint32, n)
		for i := range si.folders {
			f := &si.folders[i]
			f.numSub, f.firstSub = 1, int32(i)
			si.subSizes[i] = f.unpackSize()
			si.subHasCRC[i], si.subCRCs[i] = f.hasCRC(), f.crc
		}
	}
	return si.layout()
}

// layout assigns packed streams to folders and checks that they fit.
func (si *streamsInfo) layout() error {
	p := 0
	off := si.packPos
	if off > 1<<62 {
		return fmt.Errorf("pack position %d: %w", off, errHeader)
	}
	for i := range si.folders {
		f := &si.folders[i]
		f.setFirstPack(p)
		f.packOffset = int64(off)
		if len(f.packed) > len(si.packSizes)-p {
			return fmt.Errorf("folder %d needs more packed streams than there are: %w", i, errHeader)
		}
		for j := 0; j < len(f.packed); j++ {
			off += si.packSizes[p]
			if off > 1<<62 {
				return fmt.Errorf("packed streams too large: %w", errHeader)
			}
			p++
		}
		if len(f.unpackSizes) != f.numOutTotal() {
			return fmt.Errorf("folder %d without unpack sizes: %w", i, errHeader)
		}
	}
	return nil
}

// readArchiveProperties skips the ArchiveProperties record.
func (r *byteReader) readArchiveProperties() error {
	for {
		id, err := r.readByte()
		if err != nil {
			return err
		}
		if id == idEnd {
			return nil
		}
		if err := r.skipData(); err != nil {
			return err
		}
	}
}

// readFilesInfo parses FilesInfo after its ID.
func (r *byteReader) readFilesInfo(h *header) error {
	n, err := r.readCount("file", 8)
	if err != nil {
		return err
	}
	// Each entry costs its parsed record now and its listed form
	// (archive.Entry, locator) later: both are charged before anything
	// is allocated, so the entry count is bounded by the memory limit.
	if err := r.charge("entries", n, bytesPerEntry); err != nil {
		return err
	}
	fr := fileRecords{recs: make([]fileRecord, n)}
	files := fr.recs
	for i := range files {
		files[i].flags = fileHasStream
	}
	// column returns the column of a rare time property, allocating
	// (and charging) it the first time.
	column := func(c *[]uint64) ([]uint64, error) {
		if *c == nil {
			if err := r.charge("times", n, 8); err != nil {
				return nil, err
			}
			*c = make([]uint64, n)
		}
		return *c, nil
	}
	var emptyStream []bool
	numEmpty := 0
	for {
		id, err := r.readNumber()
		if err != nil {
			return err
		}
		if id == idEnd {
			break
		}
		size, err := r.readNumber()
		if err != nil {
			return err
		}
		data, err := r.readBytes(size)
		if err != nil {
			return err
		}
		p := r.sub(data)
		switch id {
		case idEmptyStream:
			if emptyStream, err = p.readBits(n); err != nil {
				return err
			}
			numEmpty = 0
			for i, e := range emptyStream {
				files[i].flags.set(fileHasStream, !e)
				files[i].flags &^= fileIsEmptyFile | fileIsAnti
				if e {
					numEmpty++
				}
			}
		case idEmptyFile, idAnti:
			v, err := p.readBits(numEmpty)
			if err != nil {
				return err
			}
			flag := fileIsEmptyFile
			if id == idAnti {
				flag = fileIsAnti
			}
			k := 0
			for i := range files {
				if files[i].flags&fileHasStream != 0 {
					continue
				}
				files[i].flags.set(flag, v[k])
				k++
			}
		case idName, idComment:
			ext, err := p.readByte()
			if err != nil {
				return err
			}
			if ext != 0 {
				return &archive.UnsupportedError{What: "7z external file names"}
			}
			// UTF-8 takes at most 3 bytes per UTF-16 unit; each name
			// also has a string header.
			if err := r.charge("names", (len(p.b)-p.off+1)/2, 3); err != nil {
				return err
			}
			if id == idComment && fr.comment == nil {
				if err := r.charge("comments", n, int(unsafe.Sizeof(""))); err != nil {
					return err
				}
				fr.comment = make([]string, n)
			}
			err = decodeNames(p.b[p.off:], n, func(i int, name string) {
				if id == idName {
					files[i].name = name
				} else {
					fr.comment[i] = name
				}
			})
			if err != nil {
				return err
			}
		case idCTime, idATime, idMTime, idStartPos:
			defined, err := p.readOptionalBits(n)
			if err != nil {
				return err
			}
			ext, err := p.readByte()
			if err != nil {
				return err
			}
			if ext != 0 {
				return &archive.UnsupportedError{What: "7z external file times"}
			}
			var col []uint64 // nil: the modification time, in the record
			var flag fileFlags
			switch id {
			case idCTime:
				col, err = column(&fr.ctime)
				flag = fileHasCTime
			case idATime:
				col, err = column(&fr.atime)
				flag = fileHasATime
			case idStartPos:
				col, err = column(&fr.startPos)
				flag = fileHasStartPos
			default:
				flag = fileHasMTime
			}
			if err != nil {
				return err
			}
			for i := range files {
				if !defined[i] {
					continue
				}
				v, err := p.readUint64()
				if err != nil {
					return err
				}
				if col != nil {
					col[i] = v
				} else {
					files[i].mtime = v
				}
				files[i].flags |= flag
			}
		case idWinAttributes:
			defined, err := p.readOptionalBits(n)
			if err != nil {
				return err
			}
			ext, err := p.readByte()
			if err != nil {
				return err
			}
			if ext != 0 {
				return &archive.UnsupportedError{What: "7z external attributes"}
			}
			for i := range files {
				if !defined[i] {
					continue
				}
				if files[i].attrib, err = p.readUint32(); err != nil {
					return err
				}
				files[i].flags |= fileHasAttrib
			}
		default:
			// kDummy and unknown properties are skipped.
		}
	}
	h.files = fr
	return nil
}

// decodeNames splits n zero-terminated UTF-16LE strings and hands each to
// set with its index. The names are decoded into one arena of the exact
// size, which they share: one allocation for all of them. Unpaired
// surrogates become WTF-8 (appendSurrogate), so that names differing only
// there stay distinct.
func decodeNames(b []byte, n int, set func(i int, name string)) error {
	if len(b)%2 != 0 {
		return fmt.Errorf("names of odd length: %w", errHeader)
	}
	if n > len(b)/2 {
		return fmt.Errorf("%d names in %d bytes: %w", n, len(b), errHeader)
	}
	// The first pass measures the names, the second decodes them.
	size, count := 0, 0
	for i := 0; i+1 < len(b) && count < n; i += 2 {
		switch c := rune(binary.LittleEndian.Uint16(b[i:])); {
		case c == 0:
			count++
		case c < utf8.RuneSelf:
			size++
		case surrogatePair(b, i):
			size += 4
			i += 2
		case utf16.IsSurrogate(c):
			size += 3 // an unpaired surrogate in WTF-8 (utf8.RuneLen says -1 for it)
		default:
			size += utf8.RuneLen(c)
		}
	}
	if count != n {
		return fmt.Errorf("%d of %d names: %w", count, n, errHeader)
	}
	arena := make([]byte, 0, size)
	start := 0
	for i, k := 0, 0; k < n; i += 2 {
		c := rune(binary.LittleEndian.Uint16(b[i:]))
		switch {
		case c == 0:
			name := ""
			if len(arena) > start {
				// The arena is not written again: the names share it.
				name = unsafe.String(&arena[start], len(arena)-start)
			}
			set(k, name)
			start, k = len(arena), k+1
			continue
		case c < utf8.RuneSelf:
			arena = append(arena, byte(c))
			continue
		case surrogatePair(b, i):
			c = utf16.DecodeRune(c, rune(binary.LittleEndian.Uint16(b[i+2:])))
			i += 2
		case utf16.IsSurrogate(c):
			arena = appendSurrogate(arena, c)
			continue
		}
		arena = utf8.AppendRune(arena, c)
	}
	return nil
}

// appendSurrogate appends an unpaired UTF-16 surrogate (U+D800–U+DFFF) in
// WTF-8, the three bytes UTF-8's scheme gives the code point (U+D800 is
// ED A0 80), which valid UTF-8 never holds: a name in which Windows or
// 7-Zip keeps such a unit (NTFS names are any 16-bit units) is then
// distinct from every other one, instead of colliding with the name that
// has U+FFFD there. It is what 7-Zip writes for it on Unix, and what Go
// turns back into the unit on Windows (syscall's WTF-16 encoding), so the
// file extracted there has the archive's name; nameUTF16 encodes it back
// for the archives garc writes.
func appendSurrogate(b []byte, c rune) []byte {
	return append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6)&0x3F, 0x80|byte(c)&0x3F)
}

// decodeUTF16 decodes UTF-16 units as decodeNames decodes a name.
func decodeUTF16(u []uint16) string {
	b := make([]byte, 0, 3*len(u))
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		switch {
		case utf16.IsSurrogate(c) && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			c = utf16.DecodeRune(c, rune(u[i+1]))
			i++
		case utf16.IsSurrogate(c):
			b = appendSurrogate(b, c)
			continue
		}
		b = utf8.AppendRune(b, c)
	}
	return string(b)
}

// appendNameUTF16 appends name in UTF-16LE, as 7z headers store names:
// the reverse of decodeNames, a WTF-8 surrogate (ED A0–BF 80–BF) giving
// its unit back; other bytes that are not UTF-8 become U+FFFD.
func appendNameUTF16(b []byte, name string) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c == 0xED && i+2 < len(name) && name[i+1]&0xE0 == 0xA0 && name[i+2]&0xC0 == 0x80 {
			u := 0xD000 | uint16(name[i+1]&0x3F)<<6 | uint16(name[i+2]&0x3F)
			b = binary.LittleEndian.AppendUint16(b, u)
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(name[i:])
		i += size
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			b = binary.LittleEndian.AppendUint16(b, uint16(r1))
			r = r2
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	return b
}

// surrogatePair reports whether b[i:] starts with a high surrogate
// followed by a low one (UTF-16LE).
func surrogatePair(b []byte, i int) bool {
	c := binary.LittleEndian.Uint16(b[i:])
	if c < 0xD800 || c >= 0xDC00 || i+3 >= len(b) {
		return false
	}
	c2 := binary.LittleEndian.Uint16(b[i+2:])
	return c2 >= 0xDC00 && c2 < 0xE000
}

// bytesPerEntry is the memory an entry costs while the archive is opened,
// besides its name: the parsed record (dropped after the opening unless
// the archive is updated; its rare columns are charged when present), the
// archive.Entry and the pointer to it, the entry's locator, and two words
// for the allocator's rounding.
const bytesPerEntry = int(unsafe.Sizeof(fileRecord{}) + unsafe.Sizeof(archive.Entry{}) + unsafe.Sizeof(&archive.Entry{}) +
	unsafe.Sizeof(entryMeta{}) + 2*unsafe.Sizeof(0))

// headerError is a header parse failure at an offset of the header.
type headerError struct {
	off int
	err error
}

func (e *headerError) Error() string { return fmt.Sprintf("at header offset %d: %v", e.off, e.err) }
func (e *headerError) Unwrap() error { return e.err }

// parseHeader parses a plain header (after the kHeader ID), charging its
// memory to mem (nil: no accounting). A corrupt header gives a
// *headerError locating the failure.
func parseHeader(b []byte, mem *headerMemory) (*header, error) {
	r := &byteReader{b: b, mem: mem, slabs: &headerSlabs{}}
	h, err := r.readHeader()
	if err != nil && errors.Is(err, archive.ErrFormat) {
		return nil, &headerError{off: r.off, err: err}
	}
	return h, err
}

// readHeader parses a plain header.
func (r *byteReader) readHeader() (*header, error) {
	h := &header{}
	id, err := r.readByte()
	if err != nil {
		return nil, err
	}
	if id == idArchiveProperties {
		if err := r.readArchiveProperties(); err != nil {
			return nil, err
		}
		if id, err = r.readByte(); err != nil {
			return nil, err
		}
	}
	if id == idAdditionalStreamsInfo {
		var add streamsInfo
		if err := r.readStreamsInfo(&add); err != nil {
			return nil, err
		}
		if id, err = r.readByte(); err != nil {
			return nil, err
		}
	}
	if id == idMainStreamsInfo {
		if err := r.readStreamsInfo(&h.main); err != nil {
			return nil, err
		}
		if id, err = r.readByte(); err != nil {
			return nil, err
		}
	}
	if id == idFilesInfo {
		if err := r.readFilesInfo(h); err != nil {
			return nil, err
		}
		if id, err = r.readByte(); err != nil {
			return nil, err
		}
	}
	if id != idEnd {
		return nil, fmt.Errorf("header: unexpected property 0x%02x: %w", id, errHeader)
	}
	// Files with data must match the substreams one to one.
	nData := 0
	for i := range h.files.len() {
		if h.files.hasStream(i) {
			nData++
		}
	}
	if nData != len(h.main.subSizes) {
		return nil, fmt.Errorf("%d files with data but %d streams: %w", nData, len(h.main.subSizes), errHeader)
	}
	return h, nil
}
