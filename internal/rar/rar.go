package rar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sfxscan"
)

// Bounds on header fields taken from the input.
const (
	maxHeaderSize  = 2 << 20 // largest header we accept (RAR5 allows 2 MiB)
	maxNameLen     = 64 << 10
	maxExtraCount  = 1 << 10
	maxEntries     = 1 << 22
	maxVolumes     = 1 << 16
	maxCommentSize = 1 << 20
	maxLinkTarget  = 64 << 10
)

var (
	sigRAR5  = sfxscan.SigRAR5
	sigRAR4  = sfxscan.SigRAR4
	sigRAR14 = sfxscan.SigRAR14
)

// encKind says how an entry's data is encrypted.
type encKind uint8

const (
	encNone  encKind = iota
	encRAR5          // AES-256 CBC, PBKDF2-HMAC-SHA256
	encRAR3          // AES-128 CBC, SHA-1 KDF (RAR 2.9–4.x)
	encRAR20         // RAR 2.0 block cipher
	encRAR15         // RAR 1.5 stream cipher
	encRAR13         // RAR 1.3/1.4 byte cipher
)

// algo is the decoder family of an entry.
type algo uint8

const (
	algoStored algo = iota
	algoRAR5
	algoRAR3  // 2.9–4.x LZ + PPMd (UnpVer 29, 36)
	algoRAR20 // 2.0 LZ + audio (UnpVer 20, 26)
	algoRAR15 // 1.5 (UnpVer 15) and 1.4

	numAlgos // the number of decoder families, for arrays indexed by algo
)

// part is one piece of an entry's packed data in one volume (32 bytes:
// an archive may hold millions).
type part struct {
	offset int64
	size   int64
	vol    int32
	// crypt holds the encryption parameters recorded with the piece, nil
	// when it has none; the cipher uses the first piece's and runs on
	// across the following ones.
	crypt *partCrypt
}

// partCrypt is the encryption parameters of an encrypted piece.
type partCrypt struct {
	salt []byte
	iv   []byte // RAR5
}

// salt returns the piece's salt, nil if none.
func (p *part) salt() []byte {
	if p.crypt == nil {
		return nil
	}
	return p.crypt.salt
}

// iv returns the piece's RAR5 IV, nil if none.
func (p *part) iv() []byte {
	if p.crypt == nil {
		return nil
	}
	return p.crypt.iv
}

// fileInfo is the reader's view of one entry (184 bytes). Its one-byte
// fields come last, packed together (an archive of many entries keeps
// many).
type fileInfo struct {
	e     archive.Entry
	parts []part

	dictSize int64     // bytes
	pswCheck *[12]byte // RAR5 check value and its checksum, nil when absent

	unpVer    uint8 // RAR4 UnpVer or RAR5 algorithm version (0/1)
	method    uint8 // 0..5
	lg2Count  uint8 // RAR5 key derivation cost
	algo      algo
	enc       encKind
	solid     bool // continues the solid stream
	sizeKnown bool
	useMAC    bool // RAR5: checksums are MAC'd with the hash key

	linkData  bool // RAR4 unix symlink: target is the data
	rar14     bool // RAR 1.4 entry: 16-bit checksum in e.CRC32
	badMethod bool // unknown method or version: refuse to extract
}

// reader implements archive.Reader.
type reader struct {
	opts    archive.Options
	name    string
	info    archive.Info
	files   []*fileInfo
	entries []*archive.Entry
	vols    []io.ReaderAt
	sizes   []int64
	closers []io.Closer

	pwOnce sync.Once
	pw     string
	pwErr  error

	keys keyCache
	decs decoderSet

	// tailErr is damage found after the last readable header; Extract
	// reports it after the entries before it.
	tailErr error
	// missing is the error naming the next volume of the set when it is
	// missing or cannot be opened: the entries of the volumes before it
	// are read, and Err and Extract report it (see ErrMissingVolume).
	missing error

	commentWork int64 // bytes decoded for comments so far

	// hdr is the window the headers are read through while the archive
	// is opened, hdrPlain the buffer of a decrypted header and hdrCipher
	// the headers' cipher; all are dropped once it is open.
	hdr       volWindow
	hdrPlain  []byte
	hdrCipher headerCipher

	// alloc hands out the entry records; lastMethod and lastMethodName
	// are methodName's last string.
	alloc          entryAlloc
	entryMem       entryMemory
	lastMethod     methodKey
	lastMethodName string

	// linksListed says whether Entries filled the link targets;
	// extracting, whether an Extract runs (Entries then leaves them).
	linksListed, extracting bool

	// seq is the stream a Stream reads (its only volume), nil for
	// files; yield hands each entry to the Stream's reading as its header
	// is read (nil for files); volNumber is the volume's number from a
	// RAR5 main header (0 for the first), which names the next volume.
	seq       *seqSource
	yield     func(*fileInfo) bool
	volNumber int64

	// minWindow is, per decoder family, the largest window the entries
	// of the running Extract need (lzcore.Params.MinWindow).
	minWindow [numAlgos]int64
}

func (r *reader) Info() *archive.Info { return &r.info }

// Err reports a volume set cut short: the next volume is missing or
// cannot be opened (an error wrapping ErrMissingVolume and
// archive.ErrFormat that names it). The entries of the volumes before it
// are listed and extracted, the one continuing into it fails, and a
// listing must check Err (Entries has no error result). nil for a
// complete set.
func (r *reader) Err() error { return r.missing }

// Entries returns the entries. The first call outside Extract fills the
// targets of small RAR 1.5–4.x symbolic links (see fillLinkTargets).
func (r *reader) Entries() []*archive.Entry {
	if !r.linksListed && !r.extracting {
		r.linksListed = true
		r.fillLinkTargets()
	}
	return r.entries
}

// Close releases the volume files and decoder memory.
func (r *reader) Close() error {
	var first error
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	r.decs.close()
	r.entryMem.Release()
	return first
}

// password returns the password, asking the callback at most once.
func (r *reader) password() (string, error) {
	r.pwOnce.Do(func() {
		if r.opts.Password == nil {
			r.pwErr = archive.ErrPasswordRequired
			return
		}
		r.pw, r.pwErr = r.opts.Password()
	})
	return r.pw, r.pwErr
}

func (r *reader) errf(entry string, off int64, err error) error {
	return &archive.Error{Archive: r.name, Entry: entry, Offset: off, Err: err}
}

func newReader(opts *archive.Options) *reader {
	r := &reader{}
	if opts != nil {
		r.opts = *opts
	}
	r.name = r.opts.Name
	r.entryMem.Budget = r.opts.Memory
	if r.entryMem.Budget == nil {
		r.entryMem.Budget = archive.NewMemoryBudget(r.opts.Limit())
	}
	return r
}

// NewReader reads a single-stream RAR archive whose signature is at offset 0
// of r (raw splits already concatenated by the caller); no further volumes
// are looked up.
func NewReader(ra io.ReaderAt, size int64, opts *archive.Options) (archive.Reader, error) {
	r := newReader(opts)
	if err := r.openVolumes(ra, size, 0, "", nil); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// OpenFile reads the RAR archive in f, an open file of size bytes whose
// path is path: it finds an SFX stub's end by scanning for the signature
// and follows volume sets by path's name in the same directory. OpenFile
// takes f over: the Reader's Close closes it, and so does OpenFile when it
// fails. Given a volume other than the first, OpenFile reads the set from
// its first volume when that file exists (Info().Volumes[0] is then not
// path) and otherwise returns an error wrapping archive.ErrFormat that
// names the missing first volume. internal/opener, which has opened the
// file to recognise it, hands it over here rather than have it opened
// again.
func OpenFile(f *os.File, size int64, path string, opts *archive.Options) (archive.Reader, error) {
	r, err := openFile(f, size, path, opts)
	var later *laterVolumeError
	if errors.As(err, &later) {
		// The first volume's own headers decide; should it claim to be
		// a later volume too, the second attempt reports that.
		r, err = openPath(later.first, opts)
		if errors.As(err, &later) {
			err = &archive.Error{Archive: path, Offset: -1, Err: later}
		}
	}
	return r, err
}

// openPath opens the file at path and reads the archive in it, as
// openFile does.
func openPath(path string, opts *archive.Options) (archive.Reader, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	return openFile(f, size, path, opts)
}

// openSized opens the file at path and returns it with its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// openFile reads the archive in f (size bytes, named path) and follows its
// volumes; a later volume gives a *laterVolumeError. f is closed when it
// fails.
func openFile(f *os.File, size int64, path string, opts *archive.Options) (archive.Reader, error) {
	r := newReader(opts)
	if r.name == "" {
		r.name = path
	}
	r.closers = append(r.closers, f)
	off, err := findSignature(f, size, 0)
	if err != nil {
		r.Close()
		return nil, r.errf("", -1, err)
	}
	// A signature inside an SFX stub is not the archive: try the next
	// candidate when the first does not parse.
	for try := 0; ; try++ {
		err = r.openVolumes(f, size, off, path, openVolumeFile)
		var later *laterVolumeError
		if err == nil || off == 0 || errors.As(err, &later) || try >= 8 || errors.Is(err, archive.ErrPasswordRequired) || errors.Is(err, archive.ErrWrongPassword) {
			break
		}
		next, ferr := findSignature(f, size, off+1)
		if ferr != nil {
			break
		}
		r.resetParse()
		off = next
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// resetParse forgets what a failed parse attempt collected, keeping the
// first volume's file open.
func (r *reader) resetParse() {
	r.info = archive.Info{}
	r.files, r.entries = nil, nil
	r.entryMem.Release()
	r.vols, r.sizes = nil, nil
	for _, c := range r.closers[1:] {
		c.Close()
	}
	r.closers = r.closers[:1]
	r.tailErr, r.missing = nil, nil
	r.hdr.reset()
}

// openVolumeFile opens a later volume, found by name. Only regular files
// are volumes: opening a FIFO blocks until a writer appears and a device
// never ends, so anything else is refused before it is opened.
func openVolumeFile(path string) (io.ReaderAt, int64, io.Closer, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, 0, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, 0, nil, fmt.Errorf("volume %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, nil, fmt.Errorf("volume %s is not a regular file", path)
	}
	return f, st.Size(), f, nil
}

// findSignature returns the offset of the first RAR signature at or after
// from, by the rules of internal/sfxscan (the same as the opener's
// detection). A file starting with "Rar!\x1a\x07" and any version byte
// is taken at offset 0, so that openVolumes names an unknown version.
func findSignature(f io.ReaderAt, size, from int64) (int64, error) {
	if from == 0 {
		var head [6]byte
		if n, _ := f.ReadAt(head[:], 0); n == len(head) && bytes.Equal(head[:], sigRAR4[:6]) {
			return 0, nil
		}
	}
	m, ok, err := sfxscan.Find(f, size, from, sfxscan.RAR)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, archive.ErrNotArchive
	}
	return m.Offset, nil
}

// readFull reads len(p) bytes at off, reporting truncation as ErrFormat.
func readFull(ra io.ReaderAt, p []byte, off int64) error {
	n, err := ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return fmt.Errorf("%w: truncated at offset %d", archive.ErrFormat, off+int64(n))
	}
	return err
}

var _ archive.Reader = (*reader)(nil)
