//go:build unix

package opener

import (
	"errors"
	"github.com/garc-dev/garc/internal/testenv"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// TestOpenRefusesFIFO checks that a FIFO given as the archive is refused
// at once instead of blocking in open(2).
func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.7z")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		testenv.Missing(t, "mkfifo ("+err.Error()+")")
	}
	done := make(chan error, 1)
	go func() {
		r, err := Open(p, nil)
		if r != nil {
			r.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, archive.ErrNotArchive) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Open(FIFO) = %v, want a not-a-regular-file error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}
