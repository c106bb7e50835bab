package lzcore

import "sync"

// MinWindow is the smallest window WindowSize chooses. It leaves room for
// the longest match beyond a decoder's decoding limit.
const MinWindow = 256 << 10

var (
	poolMu sync.Mutex
	pools  = map[int]*sync.Pool{}
)

// GetWindow returns a window of exactly size bytes, reused from the pool
// when one is available. Its contents are stale: a decoder must never read
// a byte it has not written since its Reset.
func GetWindow(size int) *[]byte {
	poolMu.Lock()
	p := pools[size]
	poolMu.Unlock()
	if p != nil {
		if b, ok := p.Get().(*[]byte); ok && len(*b) == size {
			return b
		}
	}
	b := make([]byte, size)
	return &b
}

// PutWindow returns a window to the pool of its size. Nil and empty
// windows are ignored.
func PutWindow(b *[]byte) {
	if b == nil || len(*b) == 0 {
		return
	}
	poolMu.Lock()
	p := pools[len(*b)]
	if p == nil {
		p = new(sync.Pool)
		pools[len(*b)] = p
	}
	poolMu.Unlock()
	p.Put(b)
}

// WindowSize chooses the window for an entry: the whole dictionary for a
// solid continuation or an unknown size, otherwise the unpacked size when
// that is smaller; never below MinWindow. It is not rounded up (to a power
// of two or otherwise): the window a decoder allocates is what the caller
// checked against the memory limit (dictionary, or the size of a smaller
// non-solid file), give or take MinWindow and a decoder's few spare bytes.
func WindowSize(dict, unpacked int64, solid bool) int64 {
	w := dict
	if !solid && unpacked >= 0 {
		w = min(w, unpacked)
	}
	return max(w, MinWindow)
}

// Window is a pooled ring buffer of decoded bytes addressed by stream
// position: the byte at position p lives at index p mod the (power of two)
// size. It keeps the match history, lets the decoder copy matches with
// bounds checks, and hands out the decoded bytes not yet read.
type Window struct {
	bufp  *[]byte
	buf   []byte
	mask  int
	w     int   // index of the next byte written: total & mask
	total int64 // stream position of the next byte written
	hist  int64 // oldest stream position holding data written since Reset
	rpos  int64 // stream position of the next byte to hand out
}

// pow2 rounds n up to a power of two.
func pow2(n int64) int64 {
	p := int64(1)
	for p < n {
		p <<= 1
	}
	return p
}

// Reset empties the window, (re)allocating it from the pool with at least
// size bytes. A buffer that is already large enough is kept.
func (x *Window) Reset(size int64) {
	size = pow2(size)
	if x.buf != nil && int64(len(x.buf)) < size {
		x.Release()
	}
	if x.buf == nil {
		x.bufp = GetWindow(int(size))
		x.buf = *x.bufp
		x.mask = len(x.buf) - 1
	}
	x.w, x.total, x.hist, x.rpos = 0, 0, 0, 0
}

// Grow enlarges the window to at least size bytes, keeping the history
// and the bytes not yet handed out. A window that was never Reset is
// Reset instead.
func (x *Window) Grow(size int64) {
	size = pow2(size)
	if x.buf == nil {
		x.Reset(size)
		return
	}
	if size <= int64(len(x.buf)) {
		return
	}
	np := GetWindow(int(size))
	nb := *np
	nmask := len(nb) - 1
	from := max(x.hist, x.total-int64(len(x.buf)))
	for p := from; p < x.total; p++ {
		nb[int(p)&nmask] = x.buf[int(p)&x.mask]
	}
	PutWindow(x.bufp)
	x.bufp, x.buf, x.mask = np, nb, nmask
	x.w = int(x.total) & nmask
	x.hist = from
}

// Release returns the buffer to the pool; the Window must be Reset before
// it is used again.
func (x *Window) Release() {
	PutWindow(x.bufp)
	x.bufp, x.buf, x.mask = nil, nil, 0
	x.w, x.total, x.hist, x.rpos = 0, 0, 0, 0
}

// Allocated reports whether the window holds a buffer.
func (x *Window) Allocated() bool { return x.buf != nil }

// Size returns the window size in bytes.
func (x *Window) Size() int { return len(x.buf) }

// Total returns the stream position of the next byte written: the number
// of bytes decoded since Reset.
func (x *Window) Total() int64 { return x.total }

// ReadPos returns the stream position of the next byte to hand out.
func (x *Window) ReadPos() int64 { return x.rpos }

// Room returns how many bytes may be written before unread output would
// be overwritten.
func (x *Window) Room() int64 { return x.rpos + int64(len(x.buf)) - x.total }

// History returns how many bytes back a match may reach.
func (x *Window) History() int64 { return min(x.total-x.hist, int64(len(x.buf))) }

// PutByte appends one byte. The caller keeps Room positive.
func (x *Window) PutByte(b byte) {
	x.buf[x.w] = b
	x.w = (x.w + 1) & x.mask
	x.total++
}

// Byte returns the byte dist positions back (1 = the last byte written);
// dist must be within History.
func (x *Window) Byte(dist int) byte { return x.buf[(x.w-dist)&x.mask] }

// Copy appends n bytes copied from dist bytes back, which may overlap the
// bytes being written. It reports false, writing nothing, when dist is not
// within History. The caller keeps n within Room.
func (x *Window) Copy(dist, n int) bool {
	if dist <= 0 || int64(dist) > x.total-x.hist || dist > len(x.buf) {
		return false
	}
	buf := x.buf
	w := x.w
	src := (w - dist) & x.mask
	if w+n <= len(buf) && src+n <= len(buf) {
		if dist >= n {
			copy(buf[w:w+n], buf[src:src+n])
		} else {
			d := buf[w : w+n]
			s := buf[src : src+n]
			for i := range d {
				d[i] = s[i]
			}
		}
	} else {
		m := x.mask
		for i := 0; i < n; i++ {
			buf[(w+i)&m] = buf[(src+i)&m]
		}
	}
	x.w = (w + n) & x.mask
	x.total += int64(n)
	return true
}

// Pending returns the next decoded bytes not yet handed out, at most max
// of them, as one contiguous slice of the window (it may be shorter than
// what is pending when the ring wraps).
func (x *Window) Pending(max int64) []byte {
	n := x.total - x.rpos
	if n > max {
		n = max
	}
	if n <= 0 {
		return nil
	}
	i := int(x.rpos) & x.mask
	if rest := len(x.buf) - i; int64(rest) < n {
		n = int64(rest)
	}
	return x.buf[i : i+int(n)]
}

// Consume marks n bytes returned by Pending as handed out.
func (x *Window) Consume(n int) { x.rpos += int64(n) }

// Skip marks every decoded byte as handed out.
func (x *Window) Skip() { x.rpos = x.total }

// Truncate drops the bytes written at and after stream position pos,
// which must not precede ReadPos; decoders use it to take back a symbol
// decoded from padding bits past the end of a stream of unknown size.
func (x *Window) Truncate(pos int64) {
	if pos < x.rpos || pos > x.total {
		return
	}
	x.total = pos
	x.w = int(pos) & x.mask
}

// Raw gives hot loops direct access to the ring: the buffer (its length
// is a power of two) and the index of the next byte written. After
// storing k bytes at buf[(w+i)&(len(buf)-1)], the caller calls Advance(k);
// it keeps k within Room.
func (x *Window) Raw() (buf []byte, w int) { return x.buf, x.w }

// Advance accounts for n bytes stored through Raw.
func (x *Window) Advance(n int) {
	x.w = (x.w + n) & x.mask
	x.total += int64(n)
}

// MoveHistory copies the keep bytes written last before index w of the
// ring old[:ring] (which may wrap) to the start of dst, oldest first, and
// returns how many it copied: at most keep, ring and len(dst). Flat-window
// decoders (unpack3, unpack5) use it to move their history into a larger
// window for a solid file with a larger dictionary.
func MoveHistory(dst, old []byte, ring, w int, keep int64) int {
	keep = min(keep, int64(ring), int64(len(dst)))
	if keep <= 0 {
		return 0
	}
	n := 0
	i := w - int(keep)
	if i < 0 {
		n = copy(dst, old[i+ring:ring])
		i = 0
	}
	n += copy(dst[n:], old[i:w])
	return n
}
