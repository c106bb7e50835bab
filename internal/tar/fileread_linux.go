//go:build linux && (amd64 || arm64)

package tar

import (
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileSection reads an archive file on a local file system front to
// back with pread(2) as a raw system call (RawSyscall) when there is more
// than one P, where io.SectionReader's ReadAt went through os.File and
// syscall.Syscall. A compressed tar's decoder reads its input 64 KiB at
// a time on the read-ahead's goroutine while the extractor's goroutine
// holds the other P writing files (raw writes, extract's outFile): the
// runtime's system monitor, finding the decoder's P in a system call and
// no P idle, took the P away at nearly every one of its ticks (handoffp:
// a thread woken to look for work, finding none, sleeping again) and,
// taking something each time, never slowed its ticks down from 20 µs.
// Raw, the call keeps its P, as a read of bsdtar keeps its CPU: garc x
// of random.tar.gz (100 MB, stored blocks, 1,607 reads) to tmpfs took
// 0.956 +-0.027 of the CPU time (cpupairs 50, load 9), with half the
// context switches; random.tar.zst 0.962 +-0.034, mixed.tar.zst 0.977
// +-0.041. Only on a local file system (localReads), where a read waits
// at most for the local disk, and never with one P, where the call's P
// is the only one the other goroutines have.
//
// The descriptor is used through the file's syscall.RawConn, which holds
// it open for the call: a file closed meanwhile fails the read rather
// than reading whatever file was opened under the same number.
type fileSection struct {
	// at answers ReadAt and Size: the same section through os.File, for
	// decoders that read a file's end first (xz's indexes decide whether
	// its blocks are worth decoding in parallel).
	at   *io.SectionReader
	conn syscall.RawConn
	name string
	off  int64 // the next byte's offset
	end  int64 // the section's end
	// The call in progress: pread's buffer and results. pread is the
	// method value s.call, made once, so that a read allocates nothing.
	buf   []byte
	n     uintptr
	errno unix.Errno
	pread func(fd uintptr) bool
}

// localReads reports whether the file system of type t (statfs's f_type)
// reads from the page cache or the local disk: not a network file system
// or FUSE, whose reads may wait for a server or a process.
func localReads(t int64) bool {
	switch t {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC,
		unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}

// newFileSection returns the first n bytes of src read by a fileSection
// when src is a file on a local file system, else nil.
func newFileSection(src io.ReaderAt, n int64) io.Reader {
	f, ok := src.(*os.File)
	if !ok {
		return nil
	}
	conn, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	local := false
	if err := conn.Control(func(fd uintptr) {
		var st unix.Statfs_t
		local = unix.Fstatfs(int(fd), &st) == nil && localReads(int64(st.Type))
	}); err != nil || !local {
		return nil
	}
	s := &fileSection{at: io.NewSectionReader(f, 0, n), conn: conn, name: f.Name(), end: n}
	s.pread = s.call
	return s
}

// Read reads the next bytes of the section: io.EOF at its end or the
// file's.
func (s *fileSection) Read(p []byte) (int, error) {
	if s.off >= s.end {
		return 0, io.EOF
	}
	if int64(len(p)) > s.end-s.off {
		p = p[:s.end-s.off]
	}
	if len(p) == 0 {
		return 0, nil
	}
	s.buf = p
	for {
		if err := s.conn.Read(s.pread); err != nil {
			// The only failure of RawConn.Read on a file that is
			// not polled: the file is closed.
			s.buf = nil
			return 0, &fs.PathError{Op: "read", Path: s.name, Err: fs.ErrClosed}
		}
		if s.errno != unix.EINTR {
			break
		}
	}
	s.buf = nil
	if s.errno != 0 {
		return 0, &fs.PathError{Op: "read", Path: s.name, Err: s.errno}
	}
	if s.n == 0 {
		return 0, io.EOF
	}
	s.off += int64(s.n)
	return int(s.n), nil
}

// ReadAt reads the section at off, as io.SectionReader does; the
// sequential Read's position does not move.
func (s *fileSection) ReadAt(p []byte, off int64) (int, error) { return s.at.ReadAt(p, off) }

// Size returns the section's size.
func (s *fileSection) Size() int64 { return s.end }

// call makes the pread of s.buf at s.off on fd: raw with more than one P.
func (s *fileSection) call(fd uintptr) bool {
	p, k, off := uintptr(unsafe.Pointer(unsafe.SliceData(s.buf))), uintptr(len(s.buf)), uintptr(s.off)
	if runtime.GOMAXPROCS(0) > 1 {
		s.n, _, s.errno = unix.RawSyscall6(unix.SYS_PREAD64, fd, p, k, off, 0, 0)
	} else {
		s.n, _, s.errno = unix.Syscall6(unix.SYS_PREAD64, fd, p, k, off, 0, 0)
	}
	return true
}
