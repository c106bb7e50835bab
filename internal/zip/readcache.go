package zip

import "io"

// cacheBlock is the size of readCache's block, and cacheDirect the
// shortest read that bypasses it: large enough that small entries'
// data go through the block, small enough that the block's first
// touch (a page fault each 4 KiB, not cheap) stays a small cost for an
// archive read in large pieces, and that the decoders' 16 KiB input
// reads of a large entry are not copied twice.
const (
	cacheBlock  = 64 << 10
	cacheDirect = 8 << 10
)

// readCache serves the small reads of the archive (local headers, names
// and extra fields, data descriptors, the compressed data of small
// entries) from one block of the archive read ahead of them: the reader
// goes through the archive in order, so an archive of thousands of small
// entries is read in large reads instead of several per entry. Reads of
// cacheDirect bytes or more go to the archive directly.
// The block is allocated at the first small read. Like Reader, it is not
// safe for concurrent use.
type readCache struct {
	ra   io.ReaderAt
	size int64  // the archive's size: blocks stop there
	buf  []byte // archive bytes from off, n of them valid
	off  int64
	n    int
}

func (c *readCache) ReadAt(p []byte, off int64) (int, error) {
	if len(p) >= cacheDirect || off < 0 {
		return c.ra.ReadAt(p, off)
	}
	if off >= c.off && off+int64(len(p)) <= c.off+int64(c.n) {
		return copy(p, c.buf[off-c.off:]), nil
	}
	if c.buf == nil {
		c.buf = make([]byte, cacheBlock)
	}
	want := int64(cacheBlock)
	if rest := c.size - off; rest < want {
		want = max(rest, int64(len(p)))
	}
	n, err := c.ra.ReadAt(c.buf[:want], off)
	c.off, c.n = off, n
	k := copy(p, c.buf[:n])
	if k < len(p) {
		if err == nil {
			err = io.EOF
		}
		return k, err
	}
	return k, nil
}
