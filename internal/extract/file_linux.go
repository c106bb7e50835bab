package extract

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirHandle does the file operations of the extractor relative to a
// descriptor of the directory they happen in (openat, renameat, fstatat,
// utimensat), so the kernel resolves one component instead of the whole
// path for each call. Descriptors of the last dirCacheSize directories
// stay open: archives list the files of a directory together, or (7-Zip's
// solid archives, sorted by extension) go round a set of directories.
// When a directory cannot be opened (no read permission), the operations
// fall back to whole paths. A dirHandle is used by one goroutine (the one
// writing); close releases the descriptors, and a cleanup does if the
// Extractor is dropped without Finish or Rollback.
type dirHandle struct {
	dir string // the directory used last
	fd  int    // its descriptor; -1 when none is open
	// open maps directories to their open descriptors (dir's included);
	// ring lists them for eviction, the oldest at next.
	open map[string]int
	ring []string
	next int
	// names holds the NUL-terminated names of the system call being made
	// (x/sys/unix would allocate them for every call).
	names []byte
	// raw says the destination's file system writes into the page
	// cache and waits for nothing but its local disk (localWrites): the
	// files it creates are written with raw system calls (outFile.Write).
	raw bool
}

// noteDest looks at the file system of dest, the destination directory,
// for raw writes.
func (h *dirHandle) noteDest(dest string) {
	var st unix.Statfs_t
	h.raw = unix.Statfs(dest, &st) == nil && localWrites(int64(st.Type))
}

// zfsMagic is ZFS's f_type (OpenZFS's ZFS_SUPER_MAGIC), which x/sys/unix
// does not name.
const zfsMagic = 0x2fc12fc1

// localWrites reports whether a file system of type t (statfs's f_type)
// takes a write into the page cache and returns, waiting at most for
// its flush to the local disk to catch up: not a network file system,
// whose writes may wait for a server, nor FUSE, whose writes wait for a
// process.
func localWrites(t int64) bool {
	switch t {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC,
		unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, zfsMagic:
		return true
	}
	return false
}

// cNames puts a and b (when not empty) into h.names, NUL-terminated,
// and returns pointers to them; ok is false when a name holds a NUL
// byte, which no file name can.
func (h *dirHandle) cNames(a, b string) (pa, pb unsafe.Pointer, ok bool) {
	if strings.IndexByte(a, 0) >= 0 || strings.IndexByte(b, 0) >= 0 {
		return nil, nil, false
	}
	h.names = append(append(h.names[:0], a...), 0)
	nb := len(h.names)
	h.names = append(append(h.names, b...), 0)
	return unsafe.Pointer(&h.names[0]), unsafe.Pointer(&h.names[nb]), true
}

func newDirHandle() *dirHandle { return &dirHandle{fd: -1} }

// at returns a descriptor and a name to reach p with an *at call.
func (h *dirHandle) at(p string) (int, string) {
	dir, name := filepath.Split(p)
	dir = dir[:len(dir)-1] // p is absolute: dir ends with '/'
	if dir == "" {
		dir = "/"
	}
	if fd, ok := h.dirFD(dir); ok {
		return fd, name
	}
	return unix.AT_FDCWD, p
}

// atKey is at for the file k names.
func (h *dirHandle) atKey(k tempKey) (int, string) {
	if k.dir == "" {
		return h.at(k.name)
	}
	if fd, ok := h.dirFD(k.dir); ok {
		return fd, k.name
	}
	return unix.AT_FDCWD, k.path()
}

// dirFD returns a descriptor of the directory dir, from the cache or
// opened now; ok is false when it cannot be opened.
func (h *dirHandle) dirFD(dir string) (int, bool) {
	if h.fd >= 0 && dir == h.dir {
		return h.fd, true
	}
	if fd, ok := h.open[dir]; ok {
		h.fd, h.dir = fd, dir
		return fd, true
	}
	for {
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, false
		}
		h.remember(dir, fd)
		h.fd, h.dir = fd, dir
		return fd, true
	}
}

// dirCacheSize is how many directory descriptors a dirHandle keeps open.
const dirCacheSize = 32

// remember adds fd, a descriptor of dir, to the cache, closing the oldest
// one when the cache is full.
func (h *dirHandle) remember(dir string, fd int) {
	if h.open == nil {
		h.open = make(map[string]int, dirCacheSize)
	}
	if len(h.ring) < dirCacheSize {
		h.ring = append(h.ring, dir)
	} else {
		old := h.ring[h.next]
		unix.Close(h.open[old])
		delete(h.open, old)
		h.ring[h.next] = dir
		h.next = (h.next + 1) % dirCacheSize
	}
	h.open[dir] = fd
}

// close closes the cached descriptors.
func (h *dirHandle) close() {
	for _, fd := range h.open {
		unix.Close(fd)
	}
	clear(h.open)
	h.ring, h.next = h.ring[:0], 0
	h.fd, h.dir = -1, ""
}

// create makes the new file k names with O_EXCL and O_NOFOLLOW. A name
// that exists (a file, a directory, a link, which is not followed) fails
// with an error wrapping fs.ErrExist.
func (h *dirHandle) create(k tempKey, perm fs.FileMode) (outFile, error) {
	dfd, name := h.atKey(k)
	cname, _, ok := h.cNames(name, "")
	if !ok {
		return outFile{fd: -1}, &fs.PathError{Op: "open", Path: k.path(), Err: unix.EINVAL}
	}
	const flags = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for {
		// openat(2), as unix.Openat makes it, without its copy of name.
		// Raw on a local file system, as outFile.Write's calls.
		var fd uintptr
		var errno unix.Errno
		if h.raw && runtime.GOMAXPROCS(0) > 1 {
			fd, _, errno = unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dfd), uintptr(cname), flags, uintptr(perm), 0, 0)
		} else {
			fd, _, errno = unix.Syscall6(unix.SYS_OPENAT, uintptr(dfd), uintptr(cname), flags, uintptr(perm), 0, 0)
		}
		switch errno {
		case 0:
			return outFile{fd: int(fd), key: k, raw: h.raw}, nil
		case unix.EINTR:
			continue
		}
		return outFile{fd: -1}, &fs.PathError{Op: "open", Path: k.path(), Err: errno}
	}
}

// rename renames oldpath to newpath, replacing a file or link there
// (never following it), without os.Rename's stat of newpath: callers have
// examined newpath already. Both are in the same directory.
func (h *dirHandle) rename(oldpath, newpath string) error {
	for {
		var err error
		if filepath.Dir(oldpath) == filepath.Dir(newpath) {
			dfd, oldname := h.at(oldpath)
			_, newname := filepath.Split(newpath)
			if dfd == unix.AT_FDCWD {
				oldname, newname = oldpath, newpath
			}
			err = unix.Renameat(dfd, oldname, dfd, newname)
		} else {
			err = unix.Rename(oldpath, newpath)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		return nil
	}
}

// setTimes sets the access and modification times of the open file (a
// zero time is left unchanged), as futimens does: no path to resolve.
func (o outFile) setTimes(atime, mtime time.Time) error {
	ts := [2]unix.Timespec{timespec(atime), timespec(mtime)}
	for {
		// utimensat(fd, NULL, ts, 0) is futimens(fd, ts).
		var errno unix.Errno
		if o.rawCalls() {
			_, _, errno = unix.RawSyscall6(unix.SYS_UTIMENSAT, uintptr(o.fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
		} else {
			_, _, errno = unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(o.fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}

// lstatType returns the type bits of the file at p, not following a link
// (fs.ErrNotExist when there is none), without allocating a FileInfo.
func (h *dirHandle) lstatType(p string) (fs.FileMode, error) {
	var st unix.Stat_t
	dfd, name := h.at(p)
	for {
		err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		break
	}
	return typeOf(&st), nil
}

// setTimes sets the access and modification times of the file p, not
// following a link; a zero time is left unchanged.
func (h *dirHandle) setTimes(p string, atime, mtime time.Time) error {
	dfd, name := h.at(p)
	ts := [2]unix.Timespec{timespec(atime), timespec(mtime)}
	for {
		err := unix.UtimesNanoAt(dfd, name, ts[:], unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// timespec converts t for utimensat: seconds and nanoseconds as they are
// (not through UnixNano, which overflows beyond the years 1678 to 2262: a
// GNU tar or pax time of 2300 became 1901); UTIME_OMIT for the zero time.
// Beyond a 32-bit time_t the nearest time it holds is set.
func timespec(t time.Time) unix.Timespec {
	if t.IsZero() {
		return unix.Timespec{Nsec: unix.UTIME_OMIT}
	}
	ts, err := unix.TimeToTimespec(t)
	if err != nil {
		if t.Unix() < 0 {
			ts, _ = unix.TimeToTimespec(time.Unix(math.MinInt32, 0))
		} else {
			ts, _ = unix.TimeToTimespec(time.Unix(math.MaxInt32, 0))
		}
	}
	return ts
}

// pathTimesNoFollow: setPathTimes never follows a symbolic link
// (utimensat with AT_SYMLINK_NOFOLLOW), so Finish need not examine a
// directory whose mode it leaves alone.
const pathTimesNoFollow = true

// setPathTimes sets the access and modification times of the file p (a
// directory, a symbolic link itself), not following a link; a zero time
// is left unchanged.
func setPathTimes(p string, atime, mtime time.Time) error {
	ts := [2]unix.Timespec{timespec(atime), timespec(mtime)}
	for {
		err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts[:], unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
