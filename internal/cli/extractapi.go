package cli

// Temporary stand-in for internal/extract until it lands; it mirrors the
// agreed API and is replaced by aliases of the real package.

import (
	"errors"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

type overwriteMode int

const (
	overwriteAsk overwriteMode = iota
	overwriteAll
	overwriteSkip
	overwriteRename
	overwriteNever
)

type linkPolicy int

const (
	linksSafe linkPolicy = iota
	linksSkip
	linksUnsafe
)

type extractOptions struct {
	Dest       string
	Flat       bool
	Overwrite  overwriteMode
	Ask        func(path string) (overwrite bool, all bool, err error)
	Links      linkPolicy
	KeepBroken bool
	Warn       func(entry string, err error)
}

var (
	errRefused = errors.New("refused")
	errSkipped = errors.New("skipped")
	errCreate  = errors.New("cannot create output")
)

type extractor interface {
	Write(e *archive.Entry, r io.Reader) error
	Finish() error
	Abort()
}

func newExtractor(o extractOptions) (extractor, error) {
	return nil, &archive.UnsupportedError{What: "extraction (internal/extract not built yet)"}
}
