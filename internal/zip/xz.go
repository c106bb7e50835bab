package zip

import (
	"bufio"

	"github.com/garc-dev/garc/internal/archive"
)

type xzReader struct{}

func (x *xzReader) reset(r *bufio.Reader, limit int64) {}

func (x *xzReader) Read(p []byte) (int, error) {
	return 0, &archive.UnsupportedError{What: "ZIP method XZ"}
}
