package unpack20_test

import (
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// ours reports whether an entry is decoded by this package.
func ours(e *archive.Entry) bool {
	return strings.HasPrefix(e.Method, "RAR2 m") && !strings.HasPrefix(e.Method, "RAR2 m0")
}

const family = "RAR 2.0"

// TestContainer extracts, through the RAR container, every corpus unit
// with entries this package decodes (encrypted and multi-volume ones
// included) and compares the contents with the listing; units expected to
// fail must fail with an error wrapping ErrFormat, ErrChecksum or
// ErrUnsupported.
func TestContainer(t *testing.T) {
	rartest.ContainerSweep(t, family, ours, rar.OpenFile)
}
