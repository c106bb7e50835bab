package cli

import (
	"github.com/garc-dev/garc/internal/extract"
)

// Short names for the extract API used by the commands.
type (
	overwriteMode  = extract.OverwriteMode
	linkPolicy     = extract.LinkPolicy
	extractOptions = extract.Options
)

const (
	overwriteAsk    = extract.OverwriteAsk
	overwriteAll    = extract.OverwriteAll
	overwriteSkip   = extract.OverwriteSkip
	overwriteRename = extract.OverwriteRename
	overwriteNever  = extract.OverwriteNever

	linksSafe   = extract.LinksSafe
	linksSkip   = extract.LinksSkip
	linksUnsafe = extract.LinksUnsafe
)

var (
	errRefused = extract.ErrRefused
	errSkipped = extract.ErrSkipped
	errCreate  = extract.ErrCreate
)

func newExtractor(o extractOptions) (*extract.Extractor, error) { return extract.New(o) }
