package archivefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/garc-dev/garc/internal/tempname"
)

// ErrWrite is wrapped by every error of writing an archive: the disk is
// full, the directory is not writable, the rename fails. The message
// names the archive, not its temporary file.
var ErrWrite = errors.New("cannot write the archive")

// File is an archive being written by `garc a` or `garc d`. Its
// bytes go to temporary files (".garc-XXXXXXXX.tmp", created with O_EXCL)
// beside the target, so an existing archive is never touched until Commit
// has flushed the new one to disk and renames it into place. Abort (or a
// failed Commit) removes the temporary files.
//
// With a volume size the archive is split into TARGET.001, TARGET.002 …
// of that many bytes each (the last one shorter), as 7-Zip's -v does.
// File implements io.Writer and io.WriterAt, so a writer can fill
// in the signature header at offset 0 after the rest.
type File struct {
	target  string
	volSize int64       // 0: one file
	perm    fs.FileMode // kept from an existing target; 0: new file (0666 less the umask)
	parts   []*os.File
	temps   []string
	size    int64
	done    bool
	err     error
}

// Create starts writing the archive target. volumeSize > 0 splits it
// into volumes. An existing target keeps its permission bits.
func Create(target string, volumeSize int64) (*File, error) {
	if volumeSize < 0 {
		return nil, fmt.Errorf("%s: negative volume size", target)
	}
	a := &File{target: target, volSize: volumeSize}
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", target)
		}
		a.perm = fi.Mode().Perm()
	}
	if err := a.addPart(); err != nil {
		return nil, a.fail(err)
	}
	return a, nil
}

// VolumeName returns the name of volume i (0-based) of a split archive:
// TARGET.001 for i = 0.
func VolumeName(target string, i int) string {
	return fmt.Sprintf("%s.%03d", target, i+1)
}

// addPart creates the next temporary file.
func (a *File) addPart() error {
	f, p, err := tempname.Create(filepath.Dir(a.target), os.O_RDWR, 0o666)
	if err != nil {
		return err
	}
	a.parts = append(a.parts, f)
	a.temps = append(a.temps, p)
	pending.add(p)
	return nil
}

// pending are the temporary files of every File not yet committed or
// aborted, for RemoveTemporaries.
var pending = temporaries{paths: map[string]bool{}}

type temporaries struct {
	sync.Mutex
	paths map[string]bool
}

func (t *temporaries) add(p string) {
	t.Lock()
	t.paths[p] = true
	t.Unlock()
}

func (t *temporaries) done(p string) {
	t.Lock()
	delete(t.paths, p)
	t.Unlock()
}

// RemoveTemporaries removes the temporary files of every File not yet
// committed or aborted. It is for a process that must exit at once (an
// interrupted run that does not unwind in time); the Files must not be
// used afterwards.
func RemoveTemporaries() {
	pending.Lock()
	defer pending.Unlock()
	for p := range pending.paths {
		os.Remove(p)
		delete(pending.paths, p)
	}
}

// Size returns the bytes written so far.
func (a *File) Size() int64 { return a.size }

// Stat returns the file information of the temporary file being written
// (the last volume's), to tell it among the inputs of the archive.
func (a *File) Stat() (fs.FileInfo, error) { return a.parts[len(a.parts)-1].Stat() }

// Volumes returns the number of files written so far.
func (a *File) Volumes() int { return len(a.parts) }

// Write appends p, starting new volumes as they fill up.
func (a *File) Write(p []byte) (int, error) {
	if a.done {
		return 0, fs.ErrClosed
	}
	if a.err != nil {
		return 0, a.err
	}
	written := 0
	for len(p) > 0 {
		cur := a.parts[len(a.parts)-1]
		chunk := p
		if a.volSize > 0 {
			used := a.size - int64(len(a.parts)-1)*a.volSize
			if used == a.volSize {
				if err := a.retire(len(a.parts) - 1); err != nil {
					return written, a.fail(err)
				}
				if err := a.addPart(); err != nil {
					return written, a.fail(err)
				}
				continue
			}
			if room := a.volSize - used; int64(len(chunk)) > room {
				chunk = chunk[:room]
			}
		}
		n, err := cur.Write(chunk)
		written += n
		a.size += int64(n)
		p = p[n:]
		if err != nil {
			return written, a.fail(err)
		}
	}
	return written, nil
}

// WriteAt overwrites bytes already written.
func (a *File) WriteAt(p []byte, off int64) (int, error) {
	if a.done {
		return 0, fs.ErrClosed
	}
	if a.err != nil {
		return 0, a.err
	}
	if off < 0 || off+int64(len(p)) > a.size {
		return 0, errors.New("archive file: WriteAt beyond the written data")
	}
	written := 0
	for len(p) > 0 {
		i, local := 0, off
		if a.volSize > 0 {
			i, local = int(off/a.volSize), off%a.volSize
		}
		chunk := p
		if a.volSize > 0 && int64(len(chunk)) > a.volSize-local {
			chunk = chunk[:a.volSize-local]
		}
		f := a.parts[i]
		if f == nil {
			var err error
			if f, err = os.OpenFile(a.temps[i], os.O_WRONLY|tempname.NoFollow, 0); err != nil {
				return written, a.fail(err)
			}
		}
		n, err := f.WriteAt(chunk, local)
		if f != a.parts[i] {
			if err == nil {
				err = f.Sync()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		written += n
		if err != nil {
			return written, a.fail(err)
		}
		p = p[n:]
		off += int64(n)
	}
	return written, nil
}

// CutBack drops the bytes written from offset size on, so that the next
// Write continues there (the ZIP writer stores an entry whose compressed
// data came out larger than the input). It changes nothing and returns
// false when size lies before the last volume, which is finished.
func (a *File) CutBack(size int64) (bool, error) {
	if a.done {
		return false, fs.ErrClosed
	}
	if a.err != nil {
		return false, a.err
	}
	first := int64(0)
	if a.volSize > 0 {
		first = int64(len(a.parts)-1) * a.volSize
	}
	if size < first || size > a.size {
		return false, nil
	}
	f := a.parts[len(a.parts)-1]
	if err := f.Truncate(size - first); err != nil {
		return false, a.fail(err)
	}
	if _, err := f.Seek(size-first, io.SeekStart); err != nil {
		return false, a.fail(err)
	}
	a.size = size
	return true, nil
}

// Commit flushes the archive to disk and renames it into place: the
// target itself, or its volumes TARGET.001 … It removes the temporary
// files if anything fails.
func (a *File) Commit() error {
	if a.done {
		return fs.ErrClosed
	}
	if a.err != nil {
		a.Abort()
		return a.err
	}
	for i := range a.parts {
		if err := a.retire(i); err != nil {
			a.Abort()
			return a.fail(err)
		}
	}
	a.done = true
	for i, tmp := range a.temps {
		final := a.target
		if a.volSize > 0 {
			final = VolumeName(a.target, i)
		}
		if err := os.Rename(tmp, final); err != nil {
			for _, t := range a.temps[i:] {
				os.Remove(t)
				pending.done(t)
			}
			return a.fail(err)
		}
		pending.done(tmp)
	}
	if d, err := os.Open(filepath.Dir(a.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// retire sets the permissions of volume i, flushes it to disk and closes
// it. Volumes are retired as they fill up, so a split archive keeps one
// or two files open.
func (a *File) retire(i int) error {
	f := a.parts[i]
	if f == nil {
		return nil
	}
	a.parts[i] = nil
	err := error(nil)
	if a.perm != 0 {
		err = f.Chmod(a.perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fail records err as the error of writing the archive: wrapping ErrWrite,
// naming the target and not the temporary file (the path of an
// *fs.PathError or *os.LinkError is dropped).
func (a *File) fail(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	a.err = fmt.Errorf("%s: %w: %w", a.target, ErrWrite, err)
	return a.err
}

// Abort closes and removes the temporary files. It is safe to call more
// than once and after Commit (then it does nothing).
func (a *File) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	var first error
	for i, f := range a.parts {
		if f != nil {
			f.Close()
		}
		if err := os.Remove(a.temps[i]); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
		pending.done(a.temps[i])
	}
	return first
}
