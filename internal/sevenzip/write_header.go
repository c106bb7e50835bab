package sevenzip

// The archive header: its records, its compression and encryption, and
// the signature header that points to it.

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
	"time"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/lzma"
)

// headerWriter serialises 7z header structures (7zFormat.txt) into a byte
// slice. It is the mirror image of byteReader.
type headerWriter struct {
	b []byte
}

func (w *headerWriter) byte(c byte) { w.b = append(w.b, c) }

// number appends 7z's variable-length number: n leading one bits in the
// first byte announce n little-endian bytes that follow, and the rest of
// the first byte holds the most significant bits.
func (w *headerWriter) number(v uint64) {
	for n := 0; n < 8; n++ {
		if v < 1<<(7*uint(n+1)) {
			mask := byte(0xFF << (8 - uint(n)))
			w.b = append(w.b, mask|byte(v>>(8*uint(n))))
			for i := 0; i < n; i++ {
				w.b = append(w.b, byte(v>>(8*uint(i))))
			}
			return
		}
	}
	w.b = append(w.b, 0xFF)
	w.b = binary.LittleEndian.AppendUint64(w.b, v)
}

func (w *headerWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *headerWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

// bits appends a bit vector, most significant bit first.
func (w *headerWriter) bits(v []bool) {
	var c byte
	for i, b := range v {
		if b {
			c |= 0x80 >> uint(i%8)
		}
		if i%8 == 7 {
			w.b = append(w.b, c)
			c = 0
		}
	}
	if len(v)%8 != 0 {
		w.b = append(w.b, c)
	}
}

// optionalBits appends the AllAreDefined byte and, unless all are set, the
// vector.
func (w *headerWriter) optionalBits(v []bool) {
	if allTrue(v) {
		w.byte(1)
		return
	}
	w.byte(0)
	w.bits(v)
}

func allTrue(v []bool) bool {
	for _, b := range v {
		if !b {
			return false
		}
	}
	return true
}

func anyTrue(v []bool) bool {
	for _, b := range v {
		if b {
			return true
		}
	}
	return false
}

// digests appends optional CRCs.
func (w *headerWriter) digests(defined []bool, crcs []uint32) {
	w.optionalBits(defined)
	for i, d := range defined {
		if d {
			w.u32(crcs[i])
		}
	}
}

// folder appends one Folder record.
func (w *headerWriter) folder(f *folder) {
	w.number(uint64(len(f.coders)))
	for i := range f.coders {
		c := &f.coders[i]
		idSize := c.idSize
		if idSize == 0 {
			idSize = methodIDSize(c.id)
		}
		flags := byte(idSize)
		simple := c.numIn == 1 && c.numOut == 1
		if !simple {
			flags |= 0x10
		}
		if len(c.props) > 0 {
			flags |= 0x20
		}
		w.byte(flags)
		for k := idSize - 1; k >= 0; k-- {
			w.byte(byte(c.id >> (8 * uint(k))))
		}
		if !simple {
			w.number(uint64(c.numIn))
			w.number(uint64(c.numOut))
		}
		if len(c.props) > 0 {
			w.number(uint64(len(c.props)))
			w.b = append(w.b, c.props...)
		}
	}
	for _, bp := range f.bindPairs {
		w.number(uint64(bp.inIndex))
		w.number(uint64(bp.outIndex))
	}
	if len(f.packed) > 1 {
		for _, p := range f.packed {
			w.number(uint64(p))
		}
	}
}

// methodIDSize is the number of big-endian bytes of a method ID.
func methodIDSize(id uint64) int {
	n := 1
	for id > 0xFF {
		id >>= 8
		n++
	}
	return n
}

// streamsInfo appends a StreamsInfo record (after its property ID). The
// folders' numSub and the substream vectors must be filled.
func (w *headerWriter) streamsInfo(si *streamsInfo) {
	w.byte(idPackInfo)
	w.number(si.packPos)
	w.number(uint64(len(si.packSizes)))
	w.byte(idSize)
	for _, s := range si.packSizes {
		w.number(s)
	}
	w.byte(idEnd)

	w.byte(idUnpackInfo)
	w.byte(idFolder)
	w.number(uint64(len(si.folders)))
	w.byte(0) // not external
	for i := range si.folders {
		w.folder(&si.folders[i])
	}
	w.byte(idCodersUnpackSize)
	for i := range si.folders {
		for _, s := range si.folders[i].unpackSizes {
			w.number(s)
		}
	}
	fdef := make([]bool, len(si.folders))
	fcrc := make([]uint32, len(si.folders))
	for i := range si.folders {
		fdef[i], fcrc[i] = si.folders[i].hasCRC(), si.folders[i].crc
	}
	if anyTrue(fdef) {
		w.byte(idCRC)
		w.digests(fdef, fcrc)
	}
	w.byte(idEnd)

	if si.subSizes != nil {
		w.byte(idSubStreamsInfo)
		needCount, needSizes := false, false
		for i := range si.folders {
			if si.folders[i].numSub != 1 {
				needCount = true
			}
			if si.folders[i].numSub > 1 {
				needSizes = true
			}
		}
		if needCount {
			w.byte(idNumUnpackStream)
			for i := range si.folders {
				w.number(uint64(si.folders[i].numSub))
			}
		}
		if needSizes {
			w.byte(idSize)
			for i := range si.folders {
				f := &si.folders[i]
				for j := int32(0); j < f.numSub-1; j++ {
					w.number(si.subSizes[f.firstSub+j])
				}
			}
		}
		var def []bool
		var crcs []uint32
		for i := range si.folders {
			f := &si.folders[i]
			if f.numSub == 1 && f.hasCRC() {
				continue
			}
			for j := int32(0); j < f.numSub; j++ {
				def = append(def, si.subHasCRC[f.firstSub+j])
				crcs = append(crcs, si.subCRCs[f.firstSub+j])
			}
		}
		if anyTrue(def) {
			w.byte(idCRC)
			w.digests(def, crcs)
		}
		w.byte(idEnd)
	}
	w.byte(idEnd)
}

// property appends a FilesInfo property: ID, size, data.
func (w *headerWriter) property(id byte, data []byte) {
	w.number(uint64(id))
	w.number(uint64(len(data)))
	w.b = append(w.b, data...)
}

// timeToFiletime converts a time to Windows FILETIME ticks.
func timeToFiletime(t time.Time) uint64 {
	const epochDiff = 11644473600
	return uint64(t.Unix()+epochDiff)*10_000_000 + uint64(t.Nanosecond()/100)
}

// filesInfo appends the FilesInfo record (after its ID).
func (w *headerWriter) filesInfo(files []fileInfo) {
	n := len(files)
	w.number(uint64(n))
	var sub headerWriter
	empty := make([]bool, n)
	var emptyFile []bool
	for i := range files {
		if !files[i].hasStream {
			empty[i] = true
			emptyFile = append(emptyFile, files[i].isEmptyFile)
		}
	}
	if anyTrue(empty) {
		sub.b = sub.b[:0]
		sub.bits(empty)
		w.property(idEmptyStream, sub.b)
		if anyTrue(emptyFile) {
			sub.b = sub.b[:0]
			sub.bits(emptyFile)
			w.property(idEmptyFile, sub.b)
		}
	}
	// Names: external flag, then zero-terminated UTF-16LE strings.
	sub.b = slices.Grow(sub.b[:0], namesSize(files))
	sub.byte(0)
	for i := range files {
		sub.b = append(appendNameUTF16(sub.b, files[i].name), 0, 0)
	}
	w.property(idName, sub.b)
	timeProp := func(id byte, has func(*fileInfo) (bool, uint64)) {
		def := make([]bool, n)
		for i := range files {
			def[i], _ = has(&files[i])
		}
		if !anyTrue(def) {
			return
		}
		sub.b = sub.b[:0]
		sub.optionalBits(def)
		sub.byte(0)
		for i := range files {
			if ok, v := has(&files[i]); ok {
				sub.u64(v)
			}
		}
		w.property(id, sub.b)
	}
	timeProp(idCTime, func(f *fileInfo) (bool, uint64) { return f.hasCTime, f.ctime })
	timeProp(idATime, func(f *fileInfo) (bool, uint64) { return f.hasATime, f.atime })
	timeProp(idMTime, func(f *fileInfo) (bool, uint64) { return f.hasMTime, f.mtime })
	def := make([]bool, n)
	for i := range files {
		def[i] = files[i].hasAttrib
	}
	if anyTrue(def) {
		sub.b = sub.b[:0]
		sub.optionalBits(def)
		sub.byte(0)
		for i := range files {
			if files[i].hasAttrib {
				sub.u32(files[i].attrib)
			}
		}
		w.property(idWinAttributes, sub.b)
	}
	w.byte(idEnd)
}

// namesSize bounds the size of the names property: UTF-16 takes at most
// two bytes per byte of UTF-8, plus the terminators and the external flag.
func namesSize(files []fileInfo) int {
	n := 1
	for i := range files {
		n += 2*len(files[i].name) + 2
	}
	return n
}

// plainHeader serialises a complete kHeader.
func plainHeader(si *streamsInfo, files []fileInfo) []byte {
	// Room for the usual properties (names, one time, attributes) and the
	// streams, so that the header is not copied as it grows.
	w := &headerWriter{b: make([]byte, 0, 64+namesSize(files)+13*len(files)+16*len(si.subSizes)+32*len(si.folders))}
	w.byte(idHeader)
	if len(si.folders) > 0 {
		w.byte(idMainStreamsInfo)
		w.streamsInfo(si)
	}
	if len(files) > 0 {
		w.byte(idFilesInfo)
		w.filesInfo(files)
	}
	w.byte(idEnd)
	return w.b
}

// finish writes the header and the signature header.
func (w *writer) finish(files []fileInfo) error {
	si := &w.si
	var next []byte
	if len(files) > 0 {
		plain := plainHeader(si, files)
		next = plain
		if !w.opts.NoHeaderCompression || w.opts.EncryptHeaders {
			packed, enc, err := w.encodeHeader(plain)
			if err != nil {
				return err
			}
			// An encrypted header is always encoded; a compressed one only
			// when it is smaller than the plain header, as 7-Zip decides
			// (a header of one or two entries compresses to more bytes
			// than it has).
			if w.opts.EncryptHeaders || len(packed)+len(enc) < len(plain) {
				if err := w.write(packed); err != nil {
					return err
				}
				next = enc
			}
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
// stream, to be written at the archive's current end, and returns it with
// the kEncodedHeader record that describes it.
func (w *writer) encodeHeader(plain []byte) (packed, record []byte, err error) {
	var buf bytes.Buffer
	var mid io.Writer = &buf
	var aw *aes.EncryptWriter
	var midCount *countWriter
	var aesCoder coder
	if w.opts.EncryptHeaders {
		if aw, aesCoder, err = w.newAES(&buf); err != nil {
			return nil, nil, err
		}
		defer aw.Close() // returns the pooled buffer on errors; no-op after Close
		midCount = &countWriter{w: aw}
		mid = midCount
	}
	// 7-Zip's header coder: LZMA level 5 with 273 fast bytes and a 1 MiB
	// dictionary, reduced for a smaller header.
	lo := lzma.LevelOptions(5)
	lo.DictSize = reducedDictSize(1<<20, int64(len(plain)))
	lo.FastBytes = 273
	lo.Context = w.ctx
	z, err := lzma.NewWriter(mid, lo)
	if err != nil {
		return nil, nil, err
	}
	if _, err := z.Write(plain); err != nil {
		return nil, nil, err
	}
	if err := z.Close(); err != nil {
		return nil, nil, err
	}
	f := folder{folderGraph: &folderGraph{coders: []coder{{id: methodLZMA, numIn: 1, numOut: 1, props: z.Props()}}},
		unpackSizes: []uint64{uint64(len(plain))}}
	f.setCRC(true, crc32.ChecksumIEEE(plain))
	if aw != nil {
		if err := aw.Close(); err != nil {
			return nil, nil, err
		}
		f.coders = append(f.coders, aesCoder)
		f.unpackSizes = append(f.unpackSizes, uint64(midCount.n))
	}
	chainFolder(&f)
	si := streamsInfo{packPos: uint64(w.pos - signatureHeaderSize), packSizes: []uint64{uint64(buf.Len())},
		folders: []folder{f}}
	hw := &headerWriter{}
	hw.byte(idEncodedHeader)
	hw.streamsInfo(&si)
	return buf.Bytes(), hw.b, nil
}
