package conformance

// Temporary stand-in until internal/extract lands: the harness extracts
// through this small interface.

import (
	"errors"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

type sink interface {
	Write(e *archive.Entry, r io.Reader) error
	Finish() error
	Abort()
}

var errRefused = errors.New("refused")

func newSink(dest string, warn func(entry string, err error)) (sink, error) {
	return nil, &archive.UnsupportedError{What: "extraction (internal/extract not built yet)"}
}
