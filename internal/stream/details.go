package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/xz"
)

// Details is what a single-stream file records beyond archive.Info and
// its entry, read from its headers, trailer and (xz) indexes without
// decoding: the facts 7-Zip's technical listing shows for the format. A
// File's Info().Details is a *Details; only the part of its Kind is set.
type Details struct {
	Kind Kind
	Gzip GzipDetails
	XZ   XZDetails
	LZMA LZMADetails
	Zstd ZstdDetails
}

// GzipDetails is what the first member's header and the file's last
// eight bytes (the last member's trailer) say.
type GzipDetails struct {
	HeaderSize int64  // bytes of the first member's header (10 and its optional fields)
	HostOS     byte   // the OS byte: 0 FAT, 3 Unix, 11 NTFS, 255 unknown, …
	CRC32      uint32 // the last member's CRC-32
}

// XZDetails is what the stream indexes and the first block header say.
type XZDetails struct {
	// Indexed says the indexes were read consistently (xz.UncompressedSize
	// succeeded): Streams, Blocks, MaxBlockSize and Checks are known.
	Indexed      bool
	Streams      int64
	Blocks       int64
	MaxBlockSize uint64 // the largest uncompressed block size
	// Checks has bit n set when some stream's check type is n (0 none,
	// 1 CRC32, 4 CRC64, 10 SHA-256).
	Checks uint16
	// Filters are the first block's filter chain, in header order;
	// FirstBlockFlags is that block header's flags byte (0x40: compressed
	// size recorded, 0x80: uncompressed size recorded). Both are empty
	// when the file has no block.
	Filters         []XZFilter
	FirstBlockFlags byte
}

// XZFilter is one filter of an xz block header.
type XZFilter struct {
	ID    uint64 // 0x21 LZMA2, 0x03 Delta, 0x04 x86 BCJ, …
	Props []byte
}

// LZMADetails is the .lzma header: the lc/lp/pb properties byte and the
// dictionary size.
type LZMADetails struct {
	Props    byte
	DictSize uint32
}

// ZstdDetails is what 7-Zip reads of a zstd file when it opens it: the
// first data frame's header; and when a skippable frame comes before it,
// every frame's header, block headers and checksum (Parsed), without
// decoding. The fields aggregate the frame headers read.
type ZstdDetails struct {
	Parsed       bool  // all frames were walked
	DataFrames   int64 // data frame headers read
	SkipFrames   int64
	SkipBytes    uint64 // payload bytes of the skippable frames
	Blocks       int64  // blocks walked (Parsed)
	PhysicalSize int64  // bytes the frames walked take (Parsed)
	// DescriptorOR and DescriptorNOTOR are the Frame_Header_Descriptors
	// ORed, and their complements ORed: a flag is in every frame when it
	// is set in the first and clear in the second.
	DescriptorOR, DescriptorNOTOR byte
	DictionaryID                  uint32 // the first nonzero dictionary ID
	DictionaryIDsDiffer           bool
	WindowDescriptorMax           byte   // of the frames that are not single-segment
	WindowMax                     uint64 // window sizes, single-segment frames' being their content size
	WindowAllocMax                uint64 // the window a decoder needs: no larger than the content
	ContentSizeMax                uint64
	ContentSizeTotal              uint64
	ContentSizeUnknown            bool   // some frame does not record its content size
	Checksum                      uint32 // the last frame's XXH64 bits (ChecksumKnown)
	ChecksumKnown                 bool
}

// readDetails reads the details of a file of kind k held in the size
// bytes of src. What cannot be read stays zero.
func readDetails(src io.ReaderAt, size int64, k Kind) *Details {
	d := &Details{Kind: k}
	switch k {
	case Gzip:
		d.Gzip = gzipDetails(src, size)
	case XZ:
		d.XZ = xzDetails(src, size)
	case LZMA:
		var h [lzmaHeaderSize]byte
		if _, err := src.ReadAt(h[:], 0); err == nil {
			d.LZMA = LZMADetails{Props: h[0], DictSize: binary.LittleEndian.Uint32(h[1:5])}
		}
	case Zstd:
		d.Zstd = zstdDetails(src, size)
	}
	return d
}

// hostOS is the host family a gzip OS byte names (Unix; FAT, NTFS and
// VFAT as Windows), unknown for the other bytes and formats.
func (d *Details) hostOS() archive.HostOS {
	if d.Kind != Gzip || d.Gzip.HeaderSize == 0 {
		return archive.HostUnknown
	}
	switch d.Gzip.HostOS {
	case 3:
		return archive.HostUnix
	case 0, 11, 14:
		return archive.HostWindows
	}
	return archive.HostUnknown
}

// Bounds of the gzip header's optional fields as 7-Zip reads them.
const (
	gzipMaxName    = 1 << 12
	gzipMaxComment = 1 << 16
)

// gzipDetails reads the first member's header size and OS byte and the
// last trailer's CRC.
func gzipDetails(src io.ReaderAt, size int64) GzipDetails {
	var g GzipDetails
	if size >= minGzipSize {
		var t [4]byte
		if _, err := src.ReadAt(t[:], size-8); err == nil {
			g.CRC32 = binary.LittleEndian.Uint32(t[:])
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(src, 0, size), 4096)
	var h [10]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return g
	}
	g.HostOS = h[9]
	n := int64(10)
	flags := h[3]
	if flags&0x04 != 0 { // FEXTRA
		var x [2]byte
		if _, err := io.ReadFull(br, x[:]); err != nil {
			return g
		}
		xlen := int64(binary.LittleEndian.Uint16(x[:]))
		if m, _ := br.Discard(int(xlen)); int64(m) != xlen {
			return g
		}
		n += 2 + xlen
	}
	for _, f := range []struct {
		flag  byte
		limit int
	}{{0x08, gzipMaxName}, {0x10, gzipMaxComment}} { // FNAME, FCOMMENT
		if flags&f.flag == 0 {
			continue
		}
		i := 0
		for ; i < f.limit; i++ {
			c, err := br.ReadByte()
			if err != nil {
				return g
			}
			if c == 0 {
				break
			}
		}
		if i == f.limit {
			return g
		}
		n += int64(i) + 1
	}
	if flags&0x02 != 0 { // FHCRC
		n += 2
	}
	g.HeaderSize = n
	return g
}

// xzDetails reads the first block header and walks the indexes from the
// end of the file.
func xzDetails(src io.ReaderAt, size int64) XZDetails {
	var x XZDetails
	x.Filters, x.FirstBlockFlags = xzFirstBlock(src, size)
	if _, ok := xz.UncompressedSize(src, size); ok {
		x.Streams, x.Blocks, x.MaxBlockSize, x.Checks, x.Indexed = xzIndexes(src, size)
	}
	return x
}

// xzFirstBlock parses the block header that follows the first stream
// header.
func xzFirstBlock(src io.ReaderAt, size int64) ([]XZFilter, byte) {
	const at = 12
	var first [1]byte
	if size < at+1 {
		return nil, 0
	}
	if _, err := src.ReadAt(first[:], at); err != nil || first[0] == 0 { // 0: the index
		return nil, 0
	}
	hs := (int64(first[0]) + 1) * 4
	if at+hs > size {
		return nil, 0
	}
	h := make([]byte, hs)
	if _, err := src.ReadAt(h, at); err != nil || crc32.ChecksumIEEE(h[:hs-4]) != binary.LittleEndian.Uint32(h[hs-4:]) {
		return nil, 0
	}
	flags := h[1]
	r := bytes.NewReader(h[2 : hs-4])
	for _, bit := range []byte{0x40, 0x80} {
		if flags&bit != 0 {
			if _, err := binary.ReadUvarint(r); err != nil {
				return nil, 0
			}
		}
	}
	var filters []XZFilter
	for range int(flags&3) + 1 {
		id, err1 := binary.ReadUvarint(r)
		n, err2 := binary.ReadUvarint(r)
		if err1 != nil || err2 != nil || n > uint64(r.Len()) {
			return nil, 0
		}
		p := make([]byte, n)
		r.Read(p)
		filters = append(filters, XZFilter{ID: id, Props: p})
	}
	return filters, flags
}

// xzIndexes walks the streams from the end: padding, footer, index. The
// file's indexes were already checked by xz.UncompressedSize, which
// bounds the streams and the index sizes; any surprise gives ok false.
func xzIndexes(src io.ReaderAt, size int64) (streams, blocks int64, maxBlock uint64, checks uint16, ok bool) {
	end := size
	br := bufio.NewReaderSize(nil, 4096)
	var chunk [512]byte
	for end > 0 {
		// Stream padding: zero words, read backwards a chunk at a time.
		n := min(int64(len(chunk)), end&^3)
		if _, err := src.ReadAt(chunk[:n], end-n); err != nil || n < 4 {
			return 0, 0, 0, 0, false
		}
		zeros := int64(0)
		for zeros+4 <= n && binary.LittleEndian.Uint32(chunk[n-zeros-4:]) == 0 {
			zeros += 4
		}
		if end -= zeros; zeros > 0 {
			continue
		}
		var foot [12]byte
		if end < 24 {
			return 0, 0, 0, 0, false
		}
		if _, err := src.ReadAt(foot[:], end-12); err != nil {
			return 0, 0, 0, 0, false
		}
		checks |= 1 << (foot[9] & 0x0F)
		indexSize := (int64(binary.LittleEndian.Uint32(foot[4:8])) + 1) * 4
		indexAt := end - 12 - indexSize
		if indexAt < 12 {
			return 0, 0, 0, 0, false
		}
		br.Reset(io.NewSectionReader(src, indexAt, indexSize))
		if c, err := br.ReadByte(); err != nil || c != 0 {
			return 0, 0, 0, 0, false
		}
		count, err := binary.ReadUvarint(br)
		if err != nil || count > uint64(indexSize)/2 {
			return 0, 0, 0, 0, false
		}
		var packed int64
		for range count {
			unpadded, err1 := binary.ReadUvarint(br)
			usize, err2 := binary.ReadUvarint(br)
			if err1 != nil || err2 != nil || unpadded > 1<<62 {
				return 0, 0, 0, 0, false
			}
			packed += int64(unpadded+3) &^ 3
			maxBlock = max(maxBlock, usize)
		}
		streams++
		blocks += int64(count)
		end = indexAt - packed - 12
		if end < 0 {
			return 0, 0, 0, 0, false
		}
	}
	return streams, blocks, maxBlock, checks, true
}

// windowAt reads small pieces of src at increasing offsets through a
// 4 KiB buffer, so walking many tiny frames or blocks costs a read per
// 4 KiB, not one per header.
type windowAt struct {
	src  io.ReaderAt
	size int64
	off  int64 // offset of buf[0]
	buf  []byte
	mem  [4096]byte
}

// at returns up to n bytes at off (fewer at the end of the file).
func (w *windowAt) at(off int64, n int) []byte {
	if off < 0 || off >= w.size {
		return nil
	}
	if off < w.off || off+int64(n) > w.off+int64(len(w.buf)) {
		k, _ := w.src.ReadAt(w.mem[:min(int64(len(w.mem)), w.size-off)], off)
		w.off, w.buf = off, w.mem[:k]
	}
	b := w.buf[off-w.off:]
	return b[:min(n, len(b))]
}

// zstdDetails reads the frames of a zstd file as 7-Zip's handler does
// when it opens one: skippable frames and the first data frame's header;
// it goes on through every frame (block headers and checksums, nothing
// decoded) only when a skippable frame came first.
func zstdDetails(src io.ReaderAt, size int64) ZstdDetails {
	var z ZstdDetails
	w := &windowAt{src: src, size: size}
	var off int64
	for {
		b := w.at(off, 18)
		if len(b) < 4 {
			break
		}
		magic := binary.LittleEndian.Uint32(b)
		if magic != 0xFD2FB528 {
			if magic&0xFFFFFFF0 != 0x184D2A50 {
				break
			}
			z.SkipFrames++
			z.PhysicalSize = off + 8
			if len(b) < 8 {
				break
			}
			n := binary.LittleEndian.Uint32(b[4:])
			z.SkipBytes += uint64(n)
			off += 8 + int64(n)
			z.PhysicalSize = off
			continue
		}
		z.DataFrames++
		h, ok := parseZstdFrameHeader(b[4:])
		if !ok {
			z.PhysicalSize = off + int64(len(b)) + 1
			break
		}
		if h.descriptor&0x08 != 0 { // reserved bit
			break
		}
		off += 4 + int64(h.size)
		z.DescriptorOR |= h.descriptor
		z.DescriptorNOTOR |= ^h.descriptor
		if h.dictID != 0 {
			if z.DictionaryID == 0 {
				z.DictionaryID = h.dictID
			} else if z.DictionaryID != h.dictID {
				z.DictionaryIDsDiffer = true
			}
		}
		win, alloc := h.contentSize, h.contentSize
		if h.descriptor&0x20 == 0 {
			z.WindowDescriptorMax = max(z.WindowDescriptorMax, h.windowDescriptor)
			win = uint64(8+h.windowDescriptor&7) << (h.windowDescriptor>>3 + 10 - 3)
			if !h.contentKnown || h.dictID != 0 || alloc > win {
				alloc = win
			}
		}
		maxBlock := min(uint64(1)<<17, win)
		z.WindowMax = max(z.WindowMax, win)
		z.WindowAllocMax = max(z.WindowAllocMax, alloc)
		if h.contentKnown {
			z.ContentSizeTotal += h.contentSize
			z.ContentSizeMax = max(z.ContentSizeMax, h.contentSize)
		} else {
			z.ContentSizeUnknown = true
		}
		z.ChecksumKnown = false
		if z.DataFrames+z.SkipFrames == 1 {
			break
		}
		z.Parsed = true
		lastBlock := false
		for {
			z.PhysicalSize = off + 3
			bh := w.at(off, 3)
			if len(bh) < 3 {
				break
			}
			off += 3
			z.Blocks++
			v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
			typ, n := v>>1&3, v>>3
			if uint64(n) > maxBlock || typ == 3 {
				break
			}
			if typ == 1 { // RLE: one byte repeated
				n = 1
			}
			off += int64(n)
			z.PhysicalSize = off
			if v&1 != 0 {
				lastBlock = true
				break
			}
		}
		if !lastBlock {
			break
		}
		if h.descriptor&0x04 != 0 {
			z.PhysicalSize = off + 4
			c := w.at(off, 4)
			if len(c) < 4 {
				break
			}
			z.Checksum, z.ChecksumKnown = binary.LittleEndian.Uint32(c), true
			off += 4
		}
	}
	return z
}

// zstdFrameHeader is a parsed Frame_Header after the magic.
type zstdFrameHeader struct {
	size             int // bytes of the header after the magic
	descriptor       byte
	windowDescriptor byte
	dictID           uint32
	contentSize      uint64
	contentKnown     bool
}

// parseZstdFrameHeader parses a frame header from b (the bytes after
// the magic); false when b is too short.
func parseZstdFrameHeader(b []byte) (zstdFrameHeader, bool) {
	var h zstdFrameHeader
	if len(b) < 1 {
		return h, false
	}
	d := b[0]
	h.descriptor = d
	single := d&0x20 != 0
	fcs := 0
	if d>>6 != 0 || single {
		fcs = []int{1, 2, 4, 8}[d>>6]
	}
	nd := []int{0, 1, 2, 4}[d&3]
	n := 1 + nd + fcs
	if !single {
		n++
	}
	if len(b) < n {
		return h, false
	}
	p := 1
	if !single {
		h.windowDescriptor = b[p]
		p++
	}
	var x [8]byte
	copy(x[:], b[p:p+nd])
	h.dictID = binary.LittleEndian.Uint32(x[:4])
	p += nd
	if fcs > 0 {
		x = [8]byte{}
		copy(x[:], b[p:p+fcs])
		h.contentSize = binary.LittleEndian.Uint64(x[:])
		if fcs == 2 {
			h.contentSize += 256
		}
		h.contentKnown = true
	}
	h.size = n
	return h, true
}
