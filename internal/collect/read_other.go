//go:build !linux

package collect

import (
	"io"
	"os"
)

// openFile opens the file at path for reading.
func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }
