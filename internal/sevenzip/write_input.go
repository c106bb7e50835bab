package sevenzip

// File input: the files waiting to be compressed, read once each.

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
)

// srcFile is one file with data waiting to be compressed.
type srcFile struct {
	info fileInfo
	size int64
	name string
	open func() (io.ReadCloser, error)
	ext  string
	kind filterKind
}

// copyFile streams one file into the folder's encoder and returns the
// bytes read and their CRC.
func (w *writer) copyFile(ctx context.Context, dst io.Writer, sf *srcFile, buf []byte) (int64, uint32, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	rc, err := sf.open()
	if err != nil {
		return 0, 0, err
	}
	defer rc.Close()
	var n int64
	var crc uint32
	for {
		k, rerr := rc.Read(buf)
		if k > 0 {
			crc = crc32.Update(crc, crc32.IEEETable, buf[:k])
			if _, err := dst.Write(buf[:k]); err != nil {
				return n, crc, err
			}
			n += int64(k)
			w.progress(int64(k), sf.name)
			if err := ctx.Err(); err != nil {
				return n, crc, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return n, crc, fmt.Errorf("%s: %w", sf.name, rerr)
		}
	}
	w.progress(0, sf.name)
	return n, crc, nil
}

// progress counts content bytes read and reports them.
func (w *writer) progress(n int64, name string) {
	w.done.Add(n)
	if w.opts.Progress != nil {
		w.progMu.Lock()
		w.opts.Progress(w.done.Load(), name) // loaded under the lock: never goes back
		w.progMu.Unlock()
	}
}
