package cli

import (
	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/sevenzip"
)

// sevenZipArchiveMethods is the Method line of `l -slt` for a 7z archive.
func sevenZipArchiveMethods(all []*archive.Entry) string { return sevenzip.ArchiveMethods(all) }
