package zip

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

func newShrinkReader(r io.ByteReader) io.Reader {
	return &errReader{err: &archive.UnsupportedError{What: "ZIP method Shrink"}}
}

func newReduceReader(r io.ByteReader, factor int, size int64) io.Reader {
	return &errReader{err: &archive.UnsupportedError{What: "ZIP method Reduce"}}
}

func newImplodeReader(r io.ByteReader, flags uint16, size int64) io.Reader {
	return &errReader{err: &archive.UnsupportedError{What: "ZIP method Implode"}}
}
