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
// field they know; zero values mean "not recorded". Archives list millions
// of entries, so an Entry is kept at 128 bytes: what few entries record
// lives in Extra, and the small fields share words.
type Entry struct {
	// Name is the stored path with '/' as the separator. Readers turn a
	// '\' into '/' where the format and the host that wrote the entry
	// use it as a separator (ZIP and RAR from DOS and Windows hosts, RAR
	// 1.4–4.x, 7z entries with Windows attributes only); any other '\'
	// is a character of the name (tar, entries written on Unix). It is
	// not sanitised: safe extraction cleans it.
	Name string
	// LinkTarget is the symlink target as stored, or for hard links and
	// copies the Name of the entry linked to. For formats that store
	// symlink targets as entry data (7z, ZIP, RAR 1.5–4.x) it may be
	// empty in the listing (readers fill small unencrypted ones);
	// Reader.Extract fills it before calling back.
	LinkTarget string
	Method     string // human-readable method, e.g. "LZMA2:24 BCJ", "RAR5 m3:128K"

	Size       int64 // unpacked size; -1 when unknown
	PackedSize int64 // packed bytes attributed to this entry; 0 inside solid blocks beyond the first

	ModTime time.Time // zero when absent

	// Extra holds the metadata few entries record (other times, owner,
	// BLAKE2sp, comment, …); nil when the entry records none of it. Read
	// it through the accessor methods (CreateTime, UID, …), which give the
	// "absent" values for a nil Extra; readers fill it through
	// MutableExtra.
	Extra *EntryExtra

	// Index is the entry's position in Reader.Entries.
	Index int32
	// Block is the index of the 7z folder (solid block) holding the
	// entry's data, as 7-Zip's -slt "Block" shows it; -1 when the entry
	// has no data stream or the format has no blocks (RAR).
	Block int32

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
	Encrypted   bool
	// Solid says the entry continues a solid stream from earlier entries.
	Solid bool
	// Anti marks a 7z anti-item (a deletion marker); it is listed, never
	// extracted.
	Anti bool
	// SplitBefore/SplitAfter say the entry continues from the previous
	// volume or into the next one.
	SplitBefore, SplitAfter bool
}

// EntryExtra is the part of an Entry's metadata that few entries record.
// A new EntryExtra should come from Entry.MutableExtra, which marks UID
// and GID absent.
type EntryExtra struct {
	CreateTime time.Time // zero when absent
	AccessTime time.Time // zero when absent

	UID, GID     int    // -1 when absent
	Owner, Group string // names, when recorded

	BLAKE2sp []byte // 32 bytes, RAR5 only; nil when absent

	// Version is the RAR file version number (name;N); 0 when absent.
	Version int

	// Comment is a per-entry comment, when the format has one.
	Comment string

	// LinkToDir is set for Windows symlinks and junctions to directories.
	LinkToDir bool
	// Junction is set for RAR5 Windows junction points.
	Junction bool
	// Sparse marks an entry whose data has holes (tar's GNU and pax
	// sparse files): the runs of zeros read from it may be left as
	// holes rather than written.
	Sparse bool
}

// MutableExtra returns e.Extra for a reader to fill, first allocating it
// (with UID and GID absent) when the entry has none.
func (e *Entry) MutableExtra() *EntryExtra {
	if e.Extra == nil {
		e.Extra = &EntryExtra{UID: -1, GID: -1}
	}
	return e.Extra
}

// CreateTime returns the creation time; zero when absent.
func (e *Entry) CreateTime() time.Time {
	if e.Extra == nil {
		return time.Time{}
	}
	return e.Extra.CreateTime
}

// AccessTime returns the last access time; zero when absent.
func (e *Entry) AccessTime() time.Time {
	if e.Extra == nil {
		return time.Time{}
	}
	return e.Extra.AccessTime
}

// UID returns the owner's user id; -1 when absent.
func (e *Entry) UID() int {
	if e.Extra == nil {
		return -1
	}
	return e.Extra.UID
}

// GID returns the owner's group id; -1 when absent.
func (e *Entry) GID() int {
	if e.Extra == nil {
		return -1
	}
	return e.Extra.GID
}

// Owner returns the owner's user name; empty when absent.
func (e *Entry) Owner() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.Owner
}

// Group returns the owner's group name; empty when absent.
func (e *Entry) Group() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.Group
}

// BLAKE2sp returns the stored BLAKE2sp digest (RAR5); nil when absent.
func (e *Entry) BLAKE2sp() []byte {
	if e.Extra == nil {
		return nil
	}
	return e.Extra.BLAKE2sp
}

// Comment returns the entry's comment; empty when absent.
func (e *Entry) Comment() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.Comment
}

// IsSparse reports whether the entry is a sparse file (EntryExtra.Sparse).
func (e *Entry) IsSparse() bool { return e.Extra != nil && e.Extra.Sparse }

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
