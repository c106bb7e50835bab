package zip

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// copyBase copies the entries of base that survive the changes into the
// new archive, as they are stored, and returns which items of ch.Add not
// to add: those the base has unchanged.
func (w *writer) copyBase(base *Existing, ch *Changes) (skip []bool, err error) {
	rd, err := newReader(base.R, base.Size, nil, &archive.Options{Name: w.opts.Name, MaxDict: w.opts.MaxDict, Memory: w.opts.Memory})
	if err != nil {
		return nil, fmt.Errorf("cannot update: %w", err)
	}
	if rd.cut != nil {
		return nil, fmt.Errorf("cannot update: %w", rd.Err())
	}
	// The items by name, 4 bytes each instead of a map's entry: of
	// those of one name, the last is the one that counts.
	byName := make([]int32, len(ch.Add))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortStableFunc(byName, func(a, b int32) int { return strings.Compare(ch.Add[a].Name, ch.Add[b].Name) })
	find := func(name string) (int, bool) {
		k := sort.Search(len(byName), func(k int) bool { return ch.Add[byName[k]].Name > name }) - 1
		if k < 0 || ch.Add[byName[k]].Name != name {
			return 0, false
		}
		return int(byName[k]), true
	}
	skip = make([]bool, len(ch.Add))
	le := binary.LittleEndian
	// The kept entries are read in the order of the directory, mostly
	// front to back: through a window, and copied through one buffer (a
	// 32 KiB buffer of io.Copy per entry was most of the CPU time of
	// adding one file to 200,000, in collections).
	src := &windowReader{r: base.R, size: base.Size, buf: make([]byte, 0, copyWindow)}
	buf := make([]byte, copyWindow)
	for i, e := range rd.entries {
		f := &rd.files[i]
		if ch.Delete != nil && ch.Delete(e) {
			w.st.Deleted++
			continue
		}
		if j, ok := find(e.Name); ok {
			it := &ch.Add[j]
			if archive.UpdateReplaces(it.Type, it.Size, it.ModTime, e, time.Second) {
				continue // replaced by the item
			}
			skip[j] = true
			w.st.Skipped++
		}
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		var h [localLen]byte
		if _, err := src.ReadAt(h[:], f.headerOff); err != nil {
			return nil, err
		}
		nlen, xlen := int64(le.Uint16(h[26:])), int64(le.Uint16(h[28:]))
		w.local = slices.Grow(w.local[:0], int(xlen))[:xlen]
		if _, err := src.ReadAt(w.local, f.headerOff+localLen+nlen); err != nil {
			return nil, err
		}
		r := record{
			name: string(f.rawName), flags: f.flags, method: f.method, version: f.version,
			dosTime: f.dosTime, dosDate: f.dosDate, crc: f.crc, csize: f.csize, usize: f.usize,
			offset: w.pos, external: f.external, madeBy: uint16(f.host)<<8 | 63,
			isDir: e.Type == archive.TypeDir, unpacked: f.usize,
		}
		w.extra, r.zip64 = appendCentralExtra(w.extra[:0], w.local)
		r.extra = w.extra
		if c := e.Comment(); c != "" && (f.flags&flagUTF8 != 0 || isASCII(c)) && len(c) <= maxCommentLen {
			r.comment = c
		}
		for off := f.headerOff; off < f.dataEnd; {
			n, err := src.ReadAt(buf[:min(int64(len(buf)), f.dataEnd-off)], off)
			if err != nil && !(err == io.EOF && off+int64(n) == f.dataEnd) {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
			if err := w.write(buf[:n]); err != nil {
				return nil, err
			}
			off += int64(n)
		}
		w.cd.add(&r, w.opts.ForceZip64)
		w.st.Kept++
	}
	if ch.Delete != nil && w.st.Deleted == 0 && len(ch.Add) == 0 {
		return nil, ErrNoMatch
	}
	return skip, nil
}

// copyWindow is the size of the window through which an update reads
// the kept entries, and of the buffer it copies them through.
const copyWindow = 256 << 10

// windowReader reads r through a window of cap(buf) bytes, refilled at
// the offset of a read outside it; a read of at least the window's size
// goes to r.
type windowReader struct {
	r    io.ReaderAt
	size int64
	buf  []byte // r's bytes from off
	off  int64
}

func (b *windowReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= b.off && off+int64(len(p)) <= b.off+int64(len(b.buf)) {
		return copy(p, b.buf[off-b.off:]), nil
	}
	if len(p) >= cap(b.buf) {
		return b.r.ReadAt(p, off)
	}
	n := int(min(int64(cap(b.buf)), max(b.size-off, 0)))
	m, err := b.r.ReadAt(b.buf[:n], off)
	b.buf, b.off = b.buf[:m], off
	if m >= len(p) {
		return copy(p, b.buf), nil
	}
	k := copy(p, b.buf)
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return k, err
}

// appendCentralExtra appends to extra the central directory's extra
// fields derived from a local header's: without the Zip64 field (the
// directory writes its own; zip64 says the local header had one) and with
// the extended timestamp cut to the modification time, as Info-ZIP
// writes it there.
func appendCentralExtra(extra, local []byte) (_ []byte, zip64 bool) {
	le := binary.LittleEndian
	for len(local) >= 4 {
		id, n := le.Uint16(local), int(le.Uint16(local[2:]))
		if 4+n > len(local) {
			break
		}
		field := local[:4+n]
		local = local[4+n:]
		switch id {
		case extraZip64:
			zip64 = true
			continue
		case extraExtTime:
			if n >= 1 {
				d := field[4:]
				keep := 1
				if d[0]&1 != 0 && n >= 5 {
					keep = 5
				}
				extra = le.AppendUint16(le.AppendUint16(extra, id), uint16(keep))
				extra = append(extra, d[:keep]...)
				continue
			}
		}
		extra = append(extra, field...)
	}
	return extra, zip64
}
