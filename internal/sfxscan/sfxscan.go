// Package sfxscan finds where a 7z or RAR archive starts inside a file:
// at offset 0, or behind a self-extractor stub (PE, ELF, Mach-O), an image
// or other prefix. It is the one signature scanner of garc; the opener
// and the RAR reader both use it, so they agree on what an archive is.
//
// # Rules
//
//   - A 7z archive starts with 37 7A BC AF 27 1C, a two-byte version, the
//     CRC32 of the next 20 bytes and those 20 bytes (next-header offset,
//     size and CRC). At offset 0 the six signature bytes suffice (a
//     corrupt start header is then the 7z reader's to report); anywhere
//     else the CRC must match, because stubs carry the six bytes in their
//     own code (7-Zip's SFX modules do).
//   - RAR 5.0 starts with "Rar!\x1a\x07\x01\x00", RAR 1.5–4.x with
//     "Rar!\x1a\x07\x00"; both are accepted at any offset, as unrar does.
//   - RAR 1.4 starts with "RE~^"; after offset 0 it also needs the "RSFX"
//     marker that RAR 1.4 self-extractors carry at offset 28.
//   - A signature must start in the first Limit bytes (4 MiB, unrar's
//     bound); the first one found, of the formats asked for, wins.
//
// The scan reads the file in 64 KiB chunks and jumps between candidate
// first bytes with bytes.IndexByte, so its cost is one pass over at most
// Limit bytes with constant memory.
package sfxscan

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Limit is how far into a file a signature may start.
const Limit = 4 << 20

// Formats is a set of formats to look for.
type Formats uint8

// The formats Find recognises.
const (
	SevenZip Formats = 1 << iota
	RAR5
	RAR4
	RAR14
	// RAR is every RAR generation.
	RAR = RAR5 | RAR4 | RAR14
	// All is every format.
	All = SevenZip | RAR
)

// Signatures.
var (
	Sig7z    = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}
	SigRAR5  = []byte("Rar!\x1a\x07\x01\x00")
	SigRAR4  = []byte("Rar!\x1a\x07\x00")
	SigRAR14 = []byte("RE~^")
)

// StartHeader7z is the size of the 7z signature header.
const StartHeader7z = 32

// Match is a signature found: its format and where the archive starts.
type Match struct {
	Format archive.Format
	Offset int64
}

// AtStart recognises a signature of one of formats at the start of head,
// without further checks.
func AtStart(head []byte, formats Formats) (Match, bool) {
	switch {
	case formats&SevenZip != 0 && bytes.HasPrefix(head, Sig7z):
		return Match{archive.Format7z, 0}, true
	case formats&RAR5 != 0 && bytes.HasPrefix(head, SigRAR5):
		return Match{archive.FormatRAR5, 0}, true
	case formats&RAR4 != 0 && bytes.HasPrefix(head, SigRAR4):
		return Match{archive.FormatRAR4, 0}, true
	case formats&RAR14 != 0 && bytes.HasPrefix(head, SigRAR14):
		return Match{archive.FormatRAR14, 0}, true
	}
	return Match{}, false
}

// Valid7zStart reports whether b starts with a 7z signature header whose
// CRC (bytes 8..11) matches bytes 12..31.
func Valid7zStart(b []byte) bool {
	if len(b) < StartHeader7z || !bytes.HasPrefix(b, Sig7z) {
		return false
	}
	return crc32.ChecksumIEEE(b[12:32]) == binary.LittleEndian.Uint32(b[8:12])
}

const chunk = 64 << 10

// Find returns the first signature of one of formats that starts at or
// after from and before Limit in r (of the given size), following the
// rules of the package documentation. ok is false when there is none; err
// is a read error of r.
func Find(r io.ReaderAt, size, from int64, formats Formats) (m Match, ok bool, err error) {
	limit := min(size, Limit)
	if from < 0 || from >= limit {
		return Match{}, false, nil
	}
	buf := make([]byte, min(chunk, limit-from)+StartHeader7z)
	rsfx := false // RAR 1.4 SFX marker at 28, read when a candidate shows up
	rsfxRead := false
	for off := from; off < limit; off += chunk {
		n, err := r.ReadAt(buf, off)
		if n == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return Match{}, false, err
		}
		if err != nil && err != io.EOF {
			return Match{}, false, err
		}
		b := buf[:n]
		end := int(min(int64(n), limit-off, chunk)) // candidates start before end
		// The next candidate '7' and 'R' at or after i, found with
		// bytes.IndexByte and kept until passed.
		next := func(c byte, from int) int {
			if from >= end {
				return end
			}
			if k := bytes.IndexByte(b[from:end], c); k >= 0 {
				return from + k
			}
			return end
		}
		n7, nR := end, end
		if formats&SevenZip != 0 {
			n7 = next('7', 0)
		}
		if formats&RAR != 0 {
			nR = next('R', 0)
		}
		for {
			i := min(n7, nR)
			if i >= end {
				break
			}
			at := off + int64(i)
			rest := b[i:]
			if at == 0 {
				if m, ok := AtStart(rest, formats); ok {
					return m, true, nil
				}
			}
			if i == n7 {
				if Valid7zStart(rest) {
					return Match{archive.Format7z, at}, true, nil
				}
				n7 = next('7', i+1)
				continue
			}
			switch {
			case formats&RAR5 != 0 && bytes.HasPrefix(rest, SigRAR5):
				return Match{archive.FormatRAR5, at}, true, nil
			case formats&RAR4 != 0 && bytes.HasPrefix(rest, SigRAR4):
				return Match{archive.FormatRAR4, at}, true, nil
			case formats&RAR14 != 0 && bytes.HasPrefix(rest, SigRAR14):
				if !rsfxRead {
					var mark [4]byte
					k, _ := r.ReadAt(mark[:], 28)
					rsfx, rsfxRead = k == 4 && string(mark[:]) == "RSFX", true
				}
				if rsfx {
					return Match{archive.FormatRAR14, at}, true, nil
				}
			}
			nR = next('R', i+1)
		}
		if n < len(buf) {
			break // end of file
		}
	}
	return Match{}, false, nil
}
