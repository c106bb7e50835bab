package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/garc-dev/garc/internal/tempname"
)

// errRemovingTemporaries refuses to create a temporary file once
// RemoveTemporaries has run.
var errRemovingTemporaries = errors.New("the process is exiting: no new temporary files")

// pending is the process-wide registry of temporary files that
// Extractors have created (or are creating) and not yet renamed into
// place or removed, for RemoveTemporaries. A new file written directly
// at its final name counts as a temporary file until its content is
// complete and verified.
var pending = temporaries{paths: make(map[tempKey]temporary)}

// tempKey names a pending file: the path name when dir is empty (a
// temporary name), else name in the directory dir (a new file at its
// final name, whose full path is made only if it must be removed).
type tempKey struct{ dir, name string }

// path returns the file's path.
func (k tempKey) path() string {
	if k.dir == "" {
		return k.name
	}
	return filepath.Join(k.dir, k.name)
}

// temporary is a pending temporary file: the Extractor that made it and,
// where package os writes it (not on Unix, whose writers hold a bare
// descriptor and where an open file is removed like any other), the open
// file, which removeOf closes before removing the file: Windows does not
// delete an open file, except one opened for deletion too, which
// createFile does there for a writer caught inside a system call.
type temporary struct {
	x *Extractor
	f *os.File
}

// temporaries maps each pending temporary path to the Extractor that made
// it. A path is registered before the file is created, so that
// RemoveTemporaries, which may run at any moment in another goroutine,
// sees every file that can exist; creating counts the creations in
// flight, whose files RemoveTemporaries waits for.
type temporaries struct {
	mu       sync.Mutex
	paths    map[tempKey]temporary
	creating int
	closed   bool // RemoveTemporaries ran: no new temporary files
}

// begin registers p, a temporary file x is about to create. It fails
// after RemoveTemporaries.
func (t *temporaries) begin(x *Extractor, p tempKey) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errRemovingTemporaries
	}
	t.paths[p] = temporary{x: x}
	t.creating++
	return nil
}

// end follows begin once the creation of p returned; discard is nil when
// it failed, else it undoes the creation (closing and removing the file).
// A p not created is forgotten. When RemoveTemporaries ran meanwhile, a
// created p is discarded and end returns an error.
func (t *temporaries) end(p tempKey, discard func()) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.creating--
	if t.closed {
		if discard != nil {
			discard()
		}
		delete(t.paths, p)
		return errRemovingTemporaries
	}
	if discard == nil {
		delete(t.paths, p)
	}
	return nil
}

// done forgets p: it was renamed into place, completed at its final
// name, or removed. It reports whether p was still pending: false when
// Abort or RemoveTemporaries has removed it meanwhile.
func (t *temporaries) done(p tempKey) bool {
	t.mu.Lock()
	_, ok := t.paths[p]
	delete(t.paths, p)
	t.mu.Unlock()
	return ok
}

// removeOf removes the temporary files of x (all of them for nil).
func (t *temporaries) removeOf(x *Extractor) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, tmp := range t.paths {
		if x == nil || tmp.x == x {
			if tmp.f != nil {
				// A writer still at work fails on its next write.
				tmp.f.Close()
			}
			os.Remove(p.path())
			delete(t.paths, p)
		}
	}
}

// creationWait bounds how long RemoveTemporaries waits for creations in
// flight: a system call that hangs (a stuck network file system) must not
// keep the process from exiting.
const creationWait = 100 * time.Millisecond

// RemoveTemporaries removes the temporary files of every Extractor in the
// process, extracted content not yet verified and renamed into place.
// It is for a process that must exit at once (an interrupted run that
// does not unwind in time) and may be called from any goroutine while
// extraction runs: afterwards no Extractor creates a temporary file
// (Write fails with ErrCreate), and a creation already in flight removes
// its file itself; RemoveTemporaries waits up to 100 ms for those.
// Completed files stay. The Extractors should not be used afterwards.
func RemoveTemporaries() {
	pending.mu.Lock()
	pending.closed = true
	pending.mu.Unlock()
	pending.removeOf(nil)
	for deadline := time.Now().Add(creationWait); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		pending.mu.Lock()
		n := pending.creating
		pending.mu.Unlock()
		if n == 0 {
			return
		}
	}
}

// atFinal makes an error about a temporary file name the file it was to
// become, final: the user knows "dest/big.bin", not ".garc-5188413f.tmp"
// (a full disk, a failed rename). Other errors pass unchanged.
func atFinal(err error, final string) error {
	switch pe := err.(type) {
	case *fs.PathError:
		if tempname.Is(filepath.Base(pe.Path)) {
			return &fs.PathError{Op: pe.Op, Path: final, Err: pe.Err}
		}
	case *os.LinkError:
		if tempname.Is(filepath.Base(pe.Old)) || tempname.Is(filepath.Base(pe.New)) {
			return &fs.PathError{Op: pe.Op, Path: final, Err: pe.Err}
		}
	}
	return err
}
