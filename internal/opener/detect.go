package opener

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// MaxSFXScan is how far into a file the opener looks for an archive
// signature behind a self-extractor stub or other prefix: 4 MiB, as unrar.
const MaxSFXScan = 4 << 20

// Signatures of the formats garc reads.
var (
	sig7z    = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}
	sigRAR5  = []byte("Rar!\x1a\x07\x01\x00")
	sigRAR4  = []byte("Rar!\x1a\x07\x00")
	sigRAR14 = []byte("RE~^")
)

// sevenZipStartHeader is the size of the 7z signature header.
const sevenZipStartHeader = 32

// Detection is where a signature was found and which format it names.
type Detection struct {
	Format archive.Format
	Offset int64
}

// Detect looks for the first archive signature in the first MaxSFXScan
// bytes of r (of the given size). ok is false when there is none.
func Detect(r io.ReaderAt, size int64) (d Detection, ok bool, err error) {
	// Most archives start with their signature: look at a small head
	// first and read the whole scan window only when that fails.
	var head [64]byte
	n, err := r.ReadAt(head[:min(int64(len(head)), max(size, 0))], 0)
	if err != nil && err != io.EOF {
		return Detection{}, false, err
	}
	if d, ok := detectAtStart(head[:n]); ok {
		return d, true, nil
	}
	limit := min(size, MaxSFXScan+sevenZipStartHeader)
	if limit <= int64(n) {
		d, ok = detectIn(head[:n])
		return d, ok, nil
	}
	buf := make([]byte, limit)
	n, err = r.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return Detection{}, false, err
	}
	d, ok = detectIn(buf[:n])
	return d, ok, nil
}

// detectAtStart recognises a signature at offset 0.
func detectAtStart(head []byte) (Detection, bool) {
	switch {
	case bytes.HasPrefix(head, sig7z):
		return Detection{archive.Format7z, 0}, true
	case bytes.HasPrefix(head, sigRAR5):
		return Detection{archive.FormatRAR5, 0}, true
	case bytes.HasPrefix(head, sigRAR4):
		return Detection{archive.FormatRAR4, 0}, true
	case bytes.HasPrefix(head, sigRAR14):
		return Detection{archive.FormatRAR14, 0}, true
	}
	return Detection{}, false
}

// detectIn scans head, the first bytes of a file, for a signature.
func detectIn(head []byte) (Detection, bool) {
	// Signatures at offset 0 are taken without further checks, so that
	// a damaged archive is reported by its format reader.
	if d, ok := detectAtStart(head); ok {
		return d, true
	}
	scan := min(len(head), MaxSFXScan)
	// Jump between the candidate first bytes '7' and 'R' with
	// bytes.IndexByte rather than looking at every byte.
	next := func(c byte, from int) int {
		if from >= scan {
			return scan
		}
		if k := bytes.IndexByte(head[from:scan], c); k >= 0 {
			return from + k
		}
		return scan
	}
	n7, nR := next('7', 1), next('R', 1)
	for {
		i := min(n7, nR)
		if i >= scan {
			return Detection{}, false
		}
		rest := head[i:]
		if i == n7 {
			if bytes.HasPrefix(rest, sig7z) && valid7zStart(rest) {
				return Detection{archive.Format7z, int64(i)}, true
			}
			n7 = next('7', i+1)
			continue
		}
		switch {
		case bytes.HasPrefix(rest, sigRAR5):
			return Detection{archive.FormatRAR5, int64(i)}, true
		case bytes.HasPrefix(rest, sigRAR4):
			return Detection{archive.FormatRAR4, int64(i)}, true
		case bytes.HasPrefix(rest, sigRAR14) && len(head) >= 32 && string(head[28:32]) == "RSFX":
			return Detection{archive.FormatRAR14, int64(i)}, true
		}
		nR = next('R', i+1)
	}
}

// valid7zStart reports whether b starts with a 7z signature header whose
// CRC (bytes 8..11) matches bytes 12..31.
func valid7zStart(b []byte) bool {
	if len(b) < sevenZipStartHeader {
		return false
	}
	return crc32.ChecksumIEEE(b[12:32]) == binary.LittleEndian.Uint32(b[8:12])
}
