package rar

import (
	"github.com/garc-dev/garc/internal/archive"
)

// Open is OpenFile of the file at path, for the tests: garc itself opens
// RAR archives through internal/opener, which hands over the file it
// opened to recognise them.
func Open(path string, opts *archive.Options) (archive.Reader, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	return OpenFile(f, size, path, opts)
}
