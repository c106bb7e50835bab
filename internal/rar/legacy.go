package rar

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// legacyCipher returns the piece wrapper for the RAR 1.3/1.5/2.0 ciphers.
func (r *reader) legacyCipher(f *fileInfo) (func(*part, io.Reader) (io.Reader, io.Closer, error), error) {
	return nil, &archive.UnsupportedError{What: "legacy RAR encryption"}
}
