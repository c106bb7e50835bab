package unpack15

import (
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// TestUnknownSize decodes the samples without their size: the stream then
// ends with its input, and the output must be the file, followed at most
// by what the padding bits of the last byte decode to.
func TestUnknownSize(t *testing.T) {
	d := tester{NewDecoder()}
	defer d.Close()
	rartest.CheckUnknownSize(t, d, samples(t), 7)
}
