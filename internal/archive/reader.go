package archive

import (
	"context"
	"io"
	"math"
)

// ExtractFunc receives one wanted entry and a reader over its contents.
// The reader yields exactly e.Size bytes (when known) and then io.EOF, or an
// error wrapping ErrChecksum if the stored checksum does not match, or the
// decoding error. The reader is only valid until the callback returns;
// unread bytes are skipped. Directories, links and anti-items get a reader
// at EOF.
//
// Returning a non-nil error stops Extract, which returns that error.
// Per-entry failures that should not stop the run (a checksum mismatch, a
// refused link) are recorded by the callback and nil is returned.
type ExtractFunc func(e *Entry, r io.Reader) error

// HoleSkipper is implemented by the readers Extract hands out for sparse
// entries (Entry.IsSparse: tar's GNU and pax sparse files), whose holes
// the archive does not store. SkipHole passes over the hole that starts
// at the reader's position and returns its length: 0 when data or the
// end comes next. A reader that is not asked reads a hole as zeros, so
// that a caller that skips the holes (making them holes in a file, or
// only counting them) spends no time on them, whatever the entry's size.
type HoleSkipper interface {
	SkipHole() (int64, error)
}

// ChunkReader is implemented by content readers that lend their own
// buffer (a compressed tar entry's, read ahead by the decoder): ReadChunk
// returns the next bytes of the content, valid until its next call (or
// the next Read), and io.EOF after the last, so that a caller writing
// them to a file needs no buffer of its own and makes no copy.
type ChunkReader interface {
	ReadChunk() ([]byte, error)
}

// Reader is an opened archive.
type Reader interface {
	// Info describes the archive as a whole.
	Info() *Info
	// Entries lists every entry in archive order. The slice and the
	// entries are owned by the Reader and must not be modified, except
	// that Extract may fill in LinkTarget.
	Entries() []*Entry
	// Extract visits, in archive order, every entry for which want returns
	// true (want == nil selects all) and calls fn with its contents. A
	// solid block is decoded at most once per call. The context cancels
	// a long run between and within entries.
	Extract(ctx context.Context, want func(*Entry) bool, fn ExtractFunc) error
	// Close releases files, pooled buffers and decoder memory.
	Close() error
}

// PasswordFunc returns the password to use. It is called lazily, only
// when the archive turns out to need one, and at most once per Reader.
// Returning an error (e.g. ErrPasswordRequired) aborts the operation.
type PasswordFunc func() (string, error)

// DefaultMaxDict is the default limit on decoder memory (dictionary,
// window or model size) taken from untrusted input: 4 GiB, as unrar.
const DefaultMaxDict = 4 << 30

// Options configure how a Reader is opened.
type Options struct {
	// Name is the display name used in errors (usually the path).
	Name string
	// Password supplies the password on demand; nil means none is known
	// and encrypted content fails with ErrPasswordRequired.
	Password PasswordFunc
	// MaxDict bounds the decoder memory sized by the archive (dictionary,
	// window, PPMd memory) that a reader holds at once, over all its
	// blocks and threads. 0 means DefaultMaxDict.
	MaxDict int64
	// Memory, when set, is the budget readers opened with these options
	// share (so that several archives open at once stay within one
	// limit); nil gives each reader its own budget of Limit() bytes.
	Memory *MemoryBudget
	// Threads bounds parallel decoding of independent blocks; 0 or 1
	// decodes sequentially.
	Threads int
	// MaxKDFCost bounds key-derivation work. Its meaning is per scheme
	// (7z: cycles power, RAR5: log2 iterations); 0 means the package
	// default.
	MaxKDFCost int
}

// Limit returns the effective dictionary limit.
func (o *Options) Limit() int64 {
	if o == nil || o.MaxDict <= 0 {
		return DefaultMaxDict
	}
	return o.MaxDict
}

// CheckLimit returns a *LimitError if need exceeds the dictionary limit.
func (o *Options) CheckLimit(what string, need int64) error {
	if need < 0 || need > o.Limit() || need > math.MaxInt {
		return &LimitError{What: what, Need: need, Limit: o.Limit()}
	}
	return nil
}
