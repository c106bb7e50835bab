package opener

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
)

// IdentifyHead is how many leading bytes Identify needs to see every
// format it knows (ISO 9660 puts its marker at 0x8001).
const IdentifyHead = 0x8006

// Names Identify returns for formats garc does not read (yet).
const (
	KindZIP        = "ZIP"
	KindGzip       = "gzip"
	KindBzip2      = "bzip2"
	KindXz         = "xz"
	KindZstd       = "zstd"
	KindLZMA       = "LZMA (lzma-alone)"
	KindLzip       = "lzip"
	KindLZ4        = "LZ4"
	KindCompress   = "compress (.Z)"
	KindTar        = "tar"
	KindCpio       = "cpio"
	KindAr         = "ar"
	KindDeb        = "Debian package (ar)"
	KindRPM        = "RPM"
	KindISO        = "ISO 9660"
	KindCAB        = "CAB"
	KindARJ        = "ARJ"
	KindLZH        = "LZH"
	KindACE        = "ACE"
	KindDMG        = "DMG"
	KindWIM        = "WIM"
	KindXAR        = "XAR"
	KindSquashFS   = "SquashFS"
	KindCompound   = "Microsoft Compound File (MSI, DOC)"
	KindStuffIt    = "StuffIt"
	KindZPAQ       = "ZPAQ"
	KindExecutable = "executable without an archive inside"
)

// Identify names the format of a file that is neither 7z nor RAR from its
// first bytes (head; IdentifyHead bytes see every format listed, fewer
// see those with early markers), by content only: ZIP ("PK" records),
// gzip, bzip2, xz, zstd, lzma-alone (a plausible properties byte,
// dictionary size and length), lzip, LZ4, compress, tar (the "ustar"
// magic at 257, or a pre-POSIX header whose checksum is right), cpio, ar
// and Debian packages, RPM, ISO 9660 ("CD001" at 0x8001), CAB ("MSCF"),
// ARJ, LZH ("-lh?-" at 2), ACE, WIM, XAR, SquashFS, compound files,
// StuffIt, ZPAQ, DMG (encrypted images, whose marker is at the start;
// IdentifyFile also sees the "koly" trailer of the others). It returns
// one of the Kind names, or "" when it does not know the content.
func Identify(head []byte) string {
	has := func(off int, sig string) bool {
		return len(head) >= off+len(sig) && string(head[off:off+len(sig)]) == sig
	}
	switch {
	case has(0, "PK\x03\x04"), has(0, "PK\x05\x06"), has(0, "PK\x07\x08PK\x03\x04"), has(0, "PK00PK\x03\x04"):
		return KindZIP
	case streamKind(head) != "":
		return streamKind(head)
	case has(0, "LZIP"):
		return KindLzip
	case has(0, "\x04\x22\x4d\x18"):
		return KindLZ4
	case has(0, "\x1f\x9d"):
		return KindCompress
	case has(0, "!<arch>\ndebian"):
		return KindDeb
	case has(0, "!<arch>\n"):
		return KindAr
	case has(0, "070707"), has(0, "070701"), has(0, "070702"), has(0, "\xc7\x71"), has(0, "\x71\xc7"):
		return KindCpio
	case has(0, "\xed\xab\xee\xdb"):
		return KindRPM
	case has(0, "MSCF\x00\x00\x00\x00"):
		return KindCAB
	case has(0, "\x60\xea") && len(head) >= 4 && binary.LittleEndian.Uint16(head[2:]) <= 2600:
		return KindARJ
	case len(head) >= 7 && head[2] == '-' && head[3] == 'l' && (head[4] == 'h' || head[4] == 'z') && head[6] == '-':
		return KindLZH
	case has(7, "**ACE**"):
		return KindACE
	case has(0, "MSWIM\x00\x00\x00"), has(0, "WLPWM\x00\x00\x00"):
		return KindWIM
	case has(0, "xar!"):
		return KindXAR
	case has(0, "hsqs"), has(0, "sqsh"):
		return KindSquashFS
	case has(0, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
		return KindCompound
	case has(0, "SIT!"), has(0, "StuffIt "):
		return KindStuffIt
	case has(0, "7kSt"), has(0, "zPQ"):
		return KindZPAQ
	case has(0, "encrcdsa"), has(0, "cdsaencr"):
		return KindDMG
	case tar.IsHeader(head):
		return KindTar
	case has(0x8001, "CD001"), has(0x8801, "CD001"), has(0x9001, "CD001"):
		return KindISO
	case has(0, "MZ"), has(0, "\x7fELF"), has(0, "\xcf\xfa\xed\xfe"), has(0, "\xce\xfa\xed\xfe"), has(0, "\xca\xfe\xba\xbe"):
		return KindExecutable
	}
	return ""
}

// IdentifyFile is Identify on the first IdentifyHead bytes of r (of the
// given size), and also looks at the end of the file: a ZIP archive
// behind a prefix (a self-extractor, junk) by its end-of-central-directory
// record, a DMG by its 512-byte "koly" trailer, an empty tar archive by
// its zero blocks.
func IdentifyFile(r io.ReaderAt, size int64) string {
	head := make([]byte, min(size, IdentifyHead))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	if k := Identify(head); k != "" && k != KindExecutable {
		return k
	}
	// The end record (22 bytes) with a comment of up to 65,535 bytes.
	tail := make([]byte, min(size, 22+0xFFFF))
	n, _ = r.ReadAt(tail, size-int64(len(tail)))
	tail = tail[:n]
	if zipEnd(tail) {
		return KindZIP
	}
	if len(tail) >= 512 && string(tail[len(tail)-512:len(tail)-508]) == "koly" {
		return KindDMG
	}
	if size >= 1024 && size%512 == 0 && len(head) >= 1024 && allZero(head[:1024]) {
		return KindTar
	}
	return Identify(head)
}

// zipEnd reports whether tail, the end of a file, holds a ZIP end of
// central directory record whose comment reaches exactly to the end.
func zipEnd(tail []byte) bool {
	for i := len(tail) - 22; i >= 0; i-- {
		j := bytes.LastIndex(tail[:i+4], []byte("PK\x05\x06"))
		if j < 0 {
			return false
		}
		if j+22+int(binary.LittleEndian.Uint16(tail[j+20:])) == len(tail) {
			return true
		}
		i = j
	}
	return false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// streamKind names the single-stream compression head starts with, as
// internal/stream recognises it, or "".
func streamKind(head []byte) string {
	k, ok := stream.Identify(head[:min(len(head), stream.HeadSize)])
	if !ok {
		return ""
	}
	switch k {
	case stream.Gzip:
		return KindGzip
	case stream.Bzip2:
		return KindBzip2
	case stream.XZ:
		return KindXz
	case stream.Zstd:
		return KindZstd
	}
	return KindLZMA
}

// UnreadFormatError reports a file of a format Identify recognises but
// garc does not read. It wraps both archive.ErrNotArchive (no archive garc
// can open) and archive.ErrUnsupported.
type UnreadFormatError struct {
	Kind string // one of the Kind names
}

func (e *UnreadFormatError) Error() string {
	return e.Kind + " format, which garc does not read (yet): it reads 7z, RAR, ZIP and tar archives and gzip, bzip2, xz, zstd and lzma files"
}

// Unwrap returns archive.ErrNotArchive and archive.ErrUnsupported.
func (e *UnreadFormatError) Unwrap() []error {
	return []error{archive.ErrNotArchive, archive.ErrUnsupported}
}

// notArchive is the error for a file in which no format garc reads was
// found: it names the format when Identify knows it.
func notArchive(path string, r io.ReaderAt, size int64) error {
	switch k := IdentifyFile(r, size); k {
	case "":
		return fmt.Errorf("%s: %w (tried 7z, RAR, ZIP, tar, gzip, bzip2, xz, zstd and lzma)", path, archive.ErrNotArchive)
	case KindExecutable:
		return fmt.Errorf("%s: %w: an executable without a 7z or RAR archive inside", path, archive.ErrNotArchive)
	default:
		return fmt.Errorf("%s: %w", path, &UnreadFormatError{Kind: k})
	}
}
