package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/extract"
)

// blockingReader gives some bytes, then blocks until released.
type blockingReader struct {
	first   bool
	reading chan struct{}
	release chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if !r.first {
		r.first = true
		return copy(p, "partial"), nil
	}
	close(r.reading)
	<-r.release
	return 0, errors.New("released")
}

// childEnv marks the child process of TestRemoveTemporariesOfExtraction:
// extract.RemoveTemporaries stops every later extraction of its process.
const childEnv = "GARC_TEST_REMOVE_TEMPORARIES"

// The forced exit of an interrupted run that does not unwind (Main's
// grace period) removes the temporary file of an entry being extracted,
// not only those of an archive being written. It runs in a child process.
func TestRemoveTemporariesOfExtraction(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRemoveTemporariesOfExtraction$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	dest := t.TempDir()
	x, err := extract.New(extract.Options{Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	r := &blockingReader{reading: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- x.Write(&archive.Entry{Name: "big.bin", Size: 1 << 20}, r)
	}()
	<-r.reading // the temporary file exists and the write is stuck
	removeTemporaries()
	ents, err := os.ReadDir(dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", filepath.Join(dest, e.Name()))
		}
	}
	close(r.release)
	<-done
	x.Abort()
}
