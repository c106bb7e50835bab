package opener

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Stand-ins for the format packages until they land in the tree; replaced
// by direct calls of sevenzip.NewReader, rar.Open and rar.NewReader.
var (
	newSevenZip = func(r io.ReaderAt, size int64, opts *archive.Options) (archive.Reader, error) {
		return nil, &archive.UnsupportedError{What: "7z archive (reader not built yet)"}
	}
	openRAR = func(path string, opts *archive.Options) (archive.Reader, error) {
		return nil, &archive.UnsupportedError{What: "RAR archive (reader not built yet)"}
	}
	newRAR = func(r io.ReaderAt, size int64, opts *archive.Options) (archive.Reader, error) {
		return nil, &archive.UnsupportedError{What: "RAR archive (reader not built yet)"}
	}
)
