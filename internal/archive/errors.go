package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Sentinel errors shared by all formats. Format packages wrap them with
// context (archive, entry, offset) using *Error or fmt.Errorf("...: %w");
// callers test them with errors.Is.
var (
	// ErrFormat reports input that is not a valid archive of the format, or
	// that is corrupt or truncated.
	ErrFormat = errors.New("corrupt or invalid archive")
	// ErrChecksum reports an entry or header whose checksum does not match.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrWrongPassword reports a password that does not decrypt the archive.
	ErrWrongPassword = errors.New("wrong password")
	// ErrPasswordRequired reports an encrypted archive or entry opened
	// without a password.
	ErrPasswordRequired = errors.New("password required")
	// ErrUnsupported reports a method, version or feature garc does not
	// implement. Use UnsupportedError to name it.
	ErrUnsupported = errors.New("unsupported")
	// ErrLimit reports a size from the archive (dictionary, model memory,
	// header count, key-derivation cost) above the configured limit.
	ErrLimit = errors.New("limit exceeded")
	// ErrNotArchive reports input in which no known archive signature was
	// found.
	ErrNotArchive = errors.New("not an archive")
)

// Error is an error located in an archive: which archive, which entry and,
// when known, at which byte offset. It wraps the cause, usually one of the
// sentinels above.
type Error struct {
	Archive string // archive path or display name; may be empty
	Entry   string // entry path; empty for archive-level errors
	Offset  int64  // byte offset in the archive; -1 when unknown
	Err     error
}

func (e *Error) Error() string {
	s := ""
	if e.Archive != "" {
		s = e.Archive + ": "
	}
	if e.Entry != "" {
		s += e.Entry + ": "
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf("at offset %d: ", e.Offset)
	}
	return s + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// UnsupportedError names the method or feature that is not supported. It
// wraps ErrUnsupported.
type UnsupportedError struct {
	What string // e.g. "7z method Brotli", "RAR 1.4 archive"
}

func (e *UnsupportedError) Error() string { return "unsupported " + e.What }

// Unwrap returns ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// LimitError reports which limit was hit and by how much. It wraps ErrLimit.
type LimitError struct {
	What  string // e.g. "dictionary size", "PPMd memory"
	Need  int64
	Limit int64
	// Fixed marks a limit that --max-dict does not move (key-derivation
	// cost, salt counts, header sizes); the message then gives no advice.
	Fixed bool
}

func (e *LimitError) Error() string {
	if e.Fixed {
		return fmt.Sprintf("%s %d exceeds the fixed limit %d", e.What, e.Need, e.Limit)
	}
	return fmt.Sprintf("%s %d exceeds the limit %d (raise it with --max-dict)", e.What, e.Need, e.Limit)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// sentinels are the errors every failure a format reader reports must wrap
// (context cancellation aside).
var sentinels = []error{ErrFormat, ErrChecksum, ErrWrongPassword, ErrPasswordRequired, ErrUnsupported, ErrLimit, ErrNotArchive}

// HasSentinel reports whether err wraps one of the package's sentinel
// errors.
func HasSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// AsFormatError is how a format reader passes on an error from a decoder:
// err itself when it already wraps a sentinel or is a cancellation,
// "data ends early" wrapping ErrFormat for io.ErrUnexpectedEOF, and
// otherwise err's text wrapping ErrFormat.
func AsFormatError(err error) error {
	switch {
	case err == nil, HasSentinel(err), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: data ends early", ErrFormat)
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}
