package lzcore

import (
	"errors"
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// CorruptInputError reports corrupt packed data and where it was found,
// as compress/flate.CorruptInputError does: Offset is the byte of the
// decoder's input (the file's packed stream since Reset) being decoded
// when the damage showed. It wraps Err, which wraps archive.ErrFormat.
type CorruptInputError struct {
	Offset int64
	Err    error
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("packed offset %d: %v", e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *CorruptInputError) Unwrap() error { return e.Err }

// Locate returns err located at packed offset off when it reports corrupt
// data (wraps archive.ErrFormat) and is not located yet; any other error,
// nil included, is returned as it is.
func Locate(err error, off int64) error {
	if err == nil || !errors.Is(err, archive.ErrFormat) {
		return err
	}
	if ce := (*CorruptInputError)(nil); errors.As(err, &ce) {
		return err
	}
	return &CorruptInputError{Offset: off, Err: err}
}

// DataError is the error of damaged packed data of one of RAR's methods:
// "<Method> data: <What>: " and archive.ErrFormat, which it wraps. It is
// a plain struct, so that the unpackers' package-level errors are static
// data rather than fmt.Errorf calls run at every garc process's start.
type DataError struct {
	Method string // "rar1.5", "rar2", "rar3", "rar5"
	What   string // what is wrong
}

func (e *DataError) Error() string {
	return e.Method + " data: " + e.What + ": " + archive.ErrFormat.Error()
}

// Unwrap returns archive.ErrFormat.
func (e *DataError) Unwrap() error { return archive.ErrFormat }
