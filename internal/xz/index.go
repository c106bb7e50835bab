package xz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// maxIndexedStreams bounds the streams UncompressedSize walks: a file of
// many tiny streams is left without a listed size rather than read in
// millions of small pieces.
const maxIndexedStreams = 1 << 12

// maxIndexSize and maxIndexedPadding bound the index bytes read per
// stream and the stream padding skipped in all: real files have a few
// bytes of index per block and little padding, while a hostile one could
// make UncompressedSize read the whole file a few bytes at a time.
const (
	maxIndexSize      = 16 << 20
	maxIndexedPadding = 1 << 20
)

// UncompressedSize returns the uncompressed size of the xz file held in
// the size bytes of ra, read from its indexes without decoding: from the
// end, each stream footer leads to the stream's index, whose records give
// the uncompressed sizes and locate the stream header (multi-stream files
// sum their streams; stream padding is skipped). It returns false when
// anything is inconsistent (a footer or index CRC, a header that is not
// where the index puts it, flags that differ), or the file has more than
// maxIndexedStreams streams, an index above maxIndexSize or more than
// maxIndexedPadding of padding: the size is for listings, and decoding checks
// everything again. It reads the indexes through a small buffer, whatever
// their declared size.
func UncompressedSize(ra io.ReaderAt, size int64) (int64, bool) {
	return readIndexes(ra, size, nil)
}

// readIndexes reads the indexes of the xz file held in the size bytes of
// ra as UncompressedSize does and returns the same; each record's
// uncompressed size is given to record, when not nil, stream by stream
// from the last.
func readIndexes(ra io.ReaderAt, size int64, record func(uncomp uint64)) (int64, bool) {
	var total int64
	end := size
	var br *bufio.Reader
	var padding int64
	if size <= 0 {
		return 0, false
	}
	for streams := 0; end > 0; streams++ {
		if streams == maxIndexedStreams {
			return 0, false
		}
		// Stream padding: zero bytes in multiples of four, read backwards
		// in chunks, at most maxIndexedPadding in all.
		var chunk [512]byte
		for end >= 4 {
			n := min(int64(len(chunk)), end&^3)
			if _, err := ra.ReadAt(chunk[:n], end-n); err != nil {
				return 0, false
			}
			zeros := int64(0)
			for zeros+4 <= n && binary.LittleEndian.Uint32(chunk[n-zeros-4:]) == 0 {
				zeros += 4
			}
			end -= zeros
			if padding += zeros; padding > maxIndexedPadding {
				return 0, false
			}
			if zeros < n {
				break
			}
		}
		if end == 0 && streams > 0 {
			break
		}
		if end < 2*streamHeaderSize || end%4 != 0 {
			return 0, false
		}
		var foot [streamHeaderSize]byte
		if _, err := ra.ReadAt(foot[:], end-streamHeaderSize); err != nil {
			return 0, false
		}
		if !bytes.Equal(foot[10:12], footerMagic) || crc32.ChecksumIEEE(foot[4:10]) != binary.LittleEndian.Uint32(foot[:4]) {
			return 0, false
		}
		indexSize := (int64(binary.LittleEndian.Uint32(foot[4:8])) + 1) * 4
		indexAt := end - streamHeaderSize - indexSize
		if indexAt < streamHeaderSize || indexSize > maxIndexSize {
			return 0, false
		}
		sr := io.NewSectionReader(ra, indexAt, indexSize)
		if br == nil {
			br = bufio.NewReaderSize(sr, 4096)
		} else {
			br.Reset(sr)
		}
		blocks, usize, ok := parseIndex(br, indexSize, record)
		if !ok || usize > uint64(1<<63-1-total) {
			return 0, false
		}
		start := indexAt - blocks - streamHeaderSize
		if blocks > indexAt || start < 0 {
			return 0, false
		}
		var head [streamHeaderSize]byte
		if _, err := ra.ReadAt(head[:], start); err != nil {
			return 0, false
		}
		if !bytes.Equal(head[:6], Magic) || head[6] != foot[8] || head[7] != foot[9] ||
			crc32.ChecksumIEEE(head[6:8]) != binary.LittleEndian.Uint32(head[8:12]) {
			return 0, false
		}
		total += int64(usize)
		end = start
	}
	return total, true
}

// streamHeaderSize is the size of a stream header and of a stream footer.
const streamHeaderSize = 12

// parseIndex reads an index of n bytes (indicator, record count,
// records, padding, CRC32) and returns the bytes its blocks take in the
// stream (unpadded sizes rounded up to four) and their uncompressed size,
// giving each record's uncompressed size to record when it is not nil.
func parseIndex(br *bufio.Reader, n int64, record func(uncomp uint64)) (blocks int64, usize uint64, ok bool) {
	// The bytes read are checksummed in batches of len(seen).
	var crc uint32
	var seen [64]byte
	var nseen int
	var read int64
	next := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9; i++ {
			b, err := br.ReadByte()
			if err != nil {
				return 0, false
			}
			read++
			if nseen == len(seen) {
				crc = crc32.Update(crc, crc32.IEEETable, seen[:])
				nseen = 0
			}
			seen[nseen] = b
			nseen++
			v |= uint64(b&0x7F) << (7 * i)
			if b&0x80 == 0 {
				return v, i == 0 || b != 0
			}
		}
		return 0, false
	}
	indicator, ok := next()
	if !ok || indicator != 0 {
		return 0, 0, false
	}
	count, ok := next()
	// A record takes at least two bytes.
	if !ok || count > uint64(n)/2 {
		return 0, 0, false
	}
	for range count {
		unpadded, ok1 := next()
		uncomp, ok2 := next()
		if !ok1 || !ok2 || unpadded == 0 || unpadded > 1<<62 || uncomp > 1<<62 {
			return 0, 0, false
		}
		blocks += int64((unpadded + 3) &^ 3)
		usize += uncomp
		if record != nil {
			record(uncomp)
		}
		if blocks > 1<<62 || usize > 1<<62 {
			return 0, 0, false
		}
	}
	var pad [4]byte
	np := (4 - read%4) % 4
	if _, err := io.ReadFull(br, pad[:np]); err != nil || pad != [4]byte{} {
		return 0, 0, false
	}
	crc = crc32.Update(crc, crc32.IEEETable, seen[:nseen])
	crc = crc32.Update(crc, crc32.IEEETable, pad[:np])
	var stored [4]byte
	if _, err := io.ReadFull(br, stored[:]); err != nil || crc != binary.LittleEndian.Uint32(stored[:]) {
		return 0, 0, false
	}
	return blocks, usize, read+np+4 == n
}
