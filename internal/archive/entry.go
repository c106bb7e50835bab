package archive

import (
	"io/fs"
	"time"
)

// Format names an archive format.
type Format string

// The formats garc reads.
const (
	Format7z    Format = "7z"
	FormatRAR5  Format = "rar5"   // RAR 5.0 container, including RAR 7 dictionaries
	FormatRAR4  Format = "rar4"   // RAR 1.5–4.x container (block format)
	FormatRAR14 Format = "rar1.4" // RAR 1.4 ("RE~^") container
)

// EntryType says what an entry is.
type EntryType uint8

// Entry types.
const (
	TypeFile     EntryType = iota // regular file
	TypeDir                       // directory
	TypeSymlink                   // symbolic link; LinkTarget is the stored target
	TypeHardlink                  // hard link to the earlier entry named by LinkTarget
	TypeCopy                      // RAR5 file copy: content equals the earlier entry named by LinkTarget
)

// String returns "file", "dir", "symlink", "hardlink" or "copy".
func (t EntryType) String() string {
	switch t {
	case TypeDir:
		return "dir"
	case TypeSymlink:
		return "symlink"
	case TypeHardlink:
		return "hardlink"
	case TypeCopy:
		return "copy"
	}
	return "file"
}

// HostOS is the operating system family that created an entry, which
// decides how Attributes are interpreted.
type HostOS uint8

// Host systems.
const (
	HostUnknown HostOS = iota
	HostWindows        // Attributes are Windows/DOS attribute bits
	HostUnix           // Attributes hold a unix mode (st_mode)
)

// Windows attribute bits used in Entry.Attributes.
const (
	AttrReadOnly  = 0x01
	AttrHidden    = 0x02
	AttrSystem    = 0x04
	AttrDirectory = 0x10
	AttrArchive   = 0x20
	AttrReparse   = 0x400
	// AttrUnixExtension marks 7-Zip's convention of a unix mode stored in
	// the high 16 bits of the Windows attributes.
	AttrUnixExtension = 0x8000
)

// Entry is the metadata of one archive member. Format readers fill every
// field they know; zero values mean "not recorded". Fields are ordered so
// that the small ones share words: archives list millions of entries.
type Entry struct {
	// Index is the entry's position in Reader.Entries.
	Index int
	// Name is the stored path with '/' as the separator. It is not
	// sanitised: safe extraction cleans it.
	Name string
	// LinkTarget is the symlink target as stored, or for hard links and
	// copies the Name of the entry linked to. For formats that store
	// symlink targets as entry data (7z, ZIP, RAR 1.5–4.x) it may be
	// empty in the listing (readers fill small unencrypted ones);
	// Reader.Extract fills it before calling back.
	LinkTarget string

	Size       int64  // unpacked size; -1 when unknown
	PackedSize int64  // packed bytes attributed to this entry; 0 inside solid blocks beyond the first
	Method     string // human-readable method, e.g. "LZMA2:24 BCJ", "RAR5 m3:128K"

	ModTime    time.Time // zero when absent
	CreateTime time.Time
	AccessTime time.Time

	UID, GID     int    // -1 when absent
	Owner, Group string // names, when recorded

	BLAKE2sp []byte // 32 bytes, RAR5 only; nil when absent

	// Version is the RAR file version number (name;N); 0 when absent.
	Version int

	// Comment is a per-entry comment, when the format has one.
	Comment string

	// Block is the index of the 7z folder (solid block) holding the
	// entry's data, as 7-Zip's -slt "Block" shows it; -1 when the entry
	// has no data stream or the format has no blocks (RAR).
	Block int

	// Attributes are the raw attributes as stored (Windows bits, or a unix
	// mode for unix hosts; 7z may combine both, see AttrUnixExtension).
	Attributes uint32
	// Mode is the Go file mode derived from the attributes (permission
	// bits and type). HasUnixMode says whether the permission bits come
	// from a stored unix mode rather than being synthesised.
	Mode  fs.FileMode
	CRC32 uint32 // valid when HasCRC32

	Type   EntryType
	HostOS HostOS

	HasUnixMode bool
	HasCRC32    bool
	// LinkToDir is set for Windows symlinks and junctions to directories.
	LinkToDir bool
	// Junction is set for RAR5 Windows junction points.
	Junction  bool
	Encrypted bool
	// Solid says the entry continues a solid stream from earlier entries.
	Solid bool
	// Anti marks a 7z anti-item (a deletion marker); it is listed, never
	// extracted.
	Anti bool
	// SplitBefore/SplitAfter say the entry continues from the previous
	// volume or into the next one.
	SplitBefore, SplitAfter bool
}

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.Type == TypeDir }

// Info summarises a whole archive.
type Info struct {
	Format           Format
	Solid            bool
	Volumes          []string // paths of the volumes read, in order; one for single archives
	EncryptedHeaders bool
	Locked           bool   // RAR: archive is locked against modification
	Comment          string // archive comment, decoded to UTF-8
	RecoveryRecord   bool   // RAR: a recovery record is present
	SFXOffset        int64  // bytes of self-extractor stub before the signature
	PhysicalSize     int64  // bytes of archive data, all volumes
	// Methods lists the compression methods used, for display.
	Methods []string
	// Details gives what a format records beyond Entry and Info, for
	// listings that show it (7-Zip's format-specific -slt keys): for
	// example *zip.Details or *tar.Details. nil when the format has none.
	Details any
}
