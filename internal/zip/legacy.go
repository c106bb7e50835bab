package zip

import (
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// The legacy PKZIP methods, Shrink (1), Reduce (2–5) and Implode (6),
// written from APPNOTE sections 5.1–5.3. Each decoder is an io.Reader that
// produces its output in small pieces (one LZW string, one match) into
// out and hands them on.

// bitReader reads bits least significant first, as all three methods
// store them.
type bitReader struct {
	r    io.ByteReader
	bits uint64
	n    uint
	eof  bool // the input ended
}

// need makes n (≤ 32) bits available and reports whether it could.
func (b *bitReader) need(n uint) bool {
	for b.n < n {
		c, err := b.r.ReadByte()
		if err != nil {
			b.eof = true
			return false
		}
		b.bits |= uint64(c) << b.n
		b.n += 8
	}
	return true
}

// read returns the next n bits; ok is false at the end of the input.
func (b *bitReader) read(n uint) (v uint32, ok bool) {
	if !b.need(n) {
		return 0, false
	}
	v = uint32(b.bits & (1<<n - 1))
	b.bits >>= n
	b.n -= n
	return v, true
}

var errLegacyTruncated = fmt.Errorf("compressed data cut short: %w", archive.ErrFormat)

// ---------------------------------------------------------------- Shrink

// Shrink is LZW with codes of 9 to 13 bits whose width the compressor
// raises explicitly (code 256 followed by 1), and "partial clearing"
// (256 followed by 2) that frees every code that is not the prefix of
// another. New codes take the lowest free slot from 257 up. The decoder
// adds the code for (previous string + first byte of the current one)
// before expanding the current code, provisionally with the previous
// string's first byte as suffix, which is right when the current code is
// the one being added (the KwKwK case). A code whose chain reaches a freed
// slot is corrupt.
const (
	shrinkMaxBits  = 13
	shrinkItems    = 1 << shrinkMaxBits
	shrinkEmpty    = 0xFFFF
	shrinkFirstNew = 257
)

type shrinkReader struct {
	br       bitReader
	parent   [shrinkItems]uint16
	suffix   [shrinkItems]byte
	stack    [shrinkItems]byte
	out      []byte // pending output (a slice of stack)
	bits     uint
	head     int
	last     int // previous code; -1 at the start
	lastByte byte
	err      error
}

func newShrinkReader(r io.ByteReader) *shrinkReader {
	s := &shrinkReader{br: bitReader{r: r}, bits: 9, head: shrinkFirstNew, last: -1}
	for i := range s.parent {
		s.parent[i] = shrinkEmpty
	}
	return s
}

func (s *shrinkReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.err = s.step()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// step decodes one code into out.
func (s *shrinkReader) step() error {
	code, ok := s.br.read(s.bits)
	if !ok {
		return io.EOF
	}
	if code == 256 {
		ctl, ok := s.br.read(s.bits)
		if !ok {
			return errLegacyTruncated
		}
		switch ctl {
		case 1:
			if s.bits >= shrinkMaxBits {
				return fmt.Errorf("shrink: code size above %d bits: %w", shrinkMaxBits, archive.ErrFormat)
			}
			s.bits++
		case 2:
			s.partialClear()
		default:
			return fmt.Errorf("shrink: control code %d: %w", ctl, archive.ErrFormat)
		}
		return nil
	}
	added := -1
	if s.last >= 0 {
		for s.head < shrinkItems && s.parent[s.head] != shrinkEmpty {
			s.head++
		}
		if s.head < shrinkItems {
			added = s.head
			s.parent[added] = uint16(s.last)
			s.suffix[added] = s.lastByte
			s.head++
		}
	}
	s.last = int(code)
	// Expand the code from its last byte back to its first.
	i := len(s.stack)
	cur := int(code)
	for cur >= 256 {
		if cur == 256 || s.parent[cur] == shrinkEmpty || i <= 1 {
			return fmt.Errorf("shrink: code %d undefined: %w", code, archive.ErrFormat)
		}
		i--
		s.stack[i] = s.suffix[cur]
		cur = int(s.parent[cur])
	}
	i--
	s.stack[i] = byte(cur)
	s.lastByte = byte(cur)
	if added >= 0 {
		s.suffix[added] = byte(cur)
	}
	s.out = s.stack[i:]
	return nil
}

// partialClear frees every code from 257 up that no other code uses as
// its prefix.
func (s *shrinkReader) partialClear() {
	var isPrefix [shrinkItems]bool
	for i := shrinkFirstNew; i < shrinkItems; i++ {
		if p := s.parent[i]; p != shrinkEmpty {
			isPrefix[p] = true
		}
	}
	for i := shrinkFirstNew; i < shrinkItems; i++ {
		if !isPrefix[i] {
			s.parent[i] = shrinkEmpty
		}
	}
	s.head = shrinkFirstNew
}

// ---------------------------------------------------------------- Reduce

// Reduce (factor f = 1..4) is two stages. The compressed stream codes
// bytes with "follower sets": for each preceding byte a list of up to 32
// likely successors, coded as an index when the flag bit is 0. The bytes
// it yields are a simple LZ77 stream in which 0x90 (DLE) introduces a
// match: DLE 0 is a literal 0x90; otherwise the next byte V holds the
// length in its low 8-f bits (all ones: one more length byte follows)
// and the high f bits of the distance, and a last byte the low 8 bits.
type reduceReader struct {
	br      bitReader
	factor  uint
	size    int64 // declared output size: Reduce has no end marker
	done    int64
	sets    [256][]byte
	last    byte
	started bool
	window  [1 << 13]byte // the longest distance is 16*256 + 256 = 4352
	out     []byte
	buf     [512]byte
	err     error
}

func newReduceReader(r io.ByteReader, factor int, size int64) *reduceReader {
	return &reduceReader{br: bitReader{r: r}, factor: uint(factor), size: size}
}

// bitsFor returns how many bits index a follower set of n entries.
func bitsFor(n int) uint {
	b := uint(1)
	for 1<<b < n {
		b++
	}
	return b
}

// readSets reads the follower sets, from byte 255 down to 0.
func (r *reduceReader) readSets() error {
	for j := 255; j >= 0; j-- {
		n, ok := r.br.read(6)
		if !ok {
			return errLegacyTruncated
		}
		if n > 32 {
			return fmt.Errorf("reduce: follower set of %d: %w", n, archive.ErrFormat)
		}
		set := make([]byte, n)
		for i := range set {
			c, ok := r.br.read(8)
			if !ok {
				return errLegacyTruncated
			}
			set[i] = byte(c)
		}
		r.sets[j] = set
	}
	return nil
}

// next returns the next byte of the first stage.
func (r *reduceReader) next() (byte, error) {
	set := r.sets[r.last]
	var c uint32
	var ok bool
	if len(set) == 0 {
		c, ok = r.br.read(8)
	} else {
		var flag uint32
		if flag, ok = r.br.read(1); ok {
			if flag == 1 {
				c, ok = r.br.read(8)
			} else {
				var i uint32
				if i, ok = r.br.read(bitsFor(len(set))); ok {
					if int(i) >= len(set) {
						return 0, fmt.Errorf("reduce: follower index %d of %d: %w", i, len(set), archive.ErrFormat)
					}
					c = uint32(set[i])
				}
			}
		}
	}
	if !ok {
		return 0, errLegacyTruncated
	}
	r.last = byte(c)
	return byte(c), nil
}

func (r *reduceReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.err = r.step()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// emit appends a byte to the output and the window.
func (r *reduceReader) emit(b []byte, c byte) []byte {
	r.window[r.done&(int64(len(r.window))-1)] = c
	r.done++
	return append(b, c)
}

// step decodes one literal or match into out.
func (r *reduceReader) step() error {
	if !r.started {
		r.started = true
		if err := r.readSets(); err != nil {
			return err
		}
	}
	if r.done >= r.size {
		return io.EOF
	}
	out := r.buf[:0]
	c, err := r.next()
	if err != nil {
		return err
	}
	if c != 0x90 {
		r.out = r.emit(out, c)
		return nil
	}
	v, err := r.next()
	if err != nil {
		return err
	}
	if v == 0 {
		r.out = r.emit(out, 0x90)
		return nil
	}
	lenMask := byte(0xFF >> r.factor)
	length := int(v & lenMask)
	if v&lenMask == lenMask {
		b, err := r.next()
		if err != nil {
			return err
		}
		length += int(b)
	}
	lo, err := r.next()
	if err != nil {
		return err
	}
	dist := int64(v>>(8-r.factor))<<8 + int64(lo) + 1
	for k := length + 3; k > 0 && r.done < r.size; k-- {
		var b byte
		if dist <= r.done {
			b = r.window[(r.done-dist)&(int64(len(r.window))-1)]
		}
		out = r.emit(out, b)
	}
	r.out = out
	return nil
}

// ---------------------------------------------------------------- Implode

// Implode is LZ77 with a 4 KiB or 8 KiB window (flag bit 1) whose
// lengths, high distance bits and, with flag bit 2, literals are coded
// with Shannon-Fano trees stored at the start of the data. Each tree is
// given as run-length pairs of (code length, count); codes are assigned
// canonically and stored complemented, most significant bit first. A 1
// bit introduces a literal, a 0 bit a match: 6 or 7 raw low distance
// bits, the coded high 6 bits, and the coded length (63: plus a raw
// byte) plus the minimum match, 3 with a literal tree and 2 without.
type implodeReader struct {
	br         bitReader
	bigWindow  bool
	litTree    bool
	size       int64
	done       int64
	lit, ln, d sfTree
	started    bool
	window     [1 << 13]byte
	out        []byte
	buf        [320]byte
	err        error
}

// sfTree is a canonical prefix code: counts per length and the symbols
// in code order.
type sfTree struct {
	count [17]uint16
	syms  []uint16
}

func newImplodeReader(r io.ByteReader, flags uint16, size int64) *implodeReader {
	return &implodeReader{br: bitReader{r: r}, bigWindow: flags&2 != 0, litTree: flags&4 != 0, size: size}
}

// readTree reads a stored Shannon-Fano tree of n symbols.
func (z *implodeReader) readTree(t *sfTree, n int) error {
	nb, ok := z.br.read(8)
	if !ok {
		return errLegacyTruncated
	}
	lengths := make([]uint8, 0, n)
	for i := 0; i <= int(nb); i++ {
		v, ok := z.br.read(8)
		if !ok {
			return errLegacyTruncated
		}
		l, cnt := uint8(v&0xF)+1, int(v>>4)+1
		if len(lengths)+cnt > n {
			return fmt.Errorf("implode: tree of more than %d codes: %w", n, archive.ErrFormat)
		}
		for ; cnt > 0; cnt-- {
			lengths = append(lengths, l)
		}
	}
	if len(lengths) != n {
		return fmt.Errorf("implode: tree of %d codes, want %d: %w", len(lengths), n, archive.ErrFormat)
	}
	t.count = [17]uint16{}
	for _, l := range lengths {
		t.count[l]++
	}
	// The code must not be oversubscribed (a complete or incomplete
	// prefix code both occur in practice).
	left := 1
	for l := 1; l <= 16; l++ {
		left = left<<1 - int(t.count[l])
		if left < 0 {
			return fmt.Errorf("implode: tree oversubscribed: %w", archive.ErrFormat)
		}
	}
	t.syms = t.syms[:0]
	for l := uint8(1); l <= 16; l++ {
		for s, sl := range lengths {
			if sl == l {
				t.syms = append(t.syms, uint16(s))
			}
		}
	}
	return nil
}

// decode reads one symbol: the stored bits are complemented.
func (z *implodeReader) decode(t *sfTree) (int, error) {
	code, first, index := 0, 0, 0
	for l := 1; l <= 16; l++ {
		b, ok := z.br.read(1)
		if !ok {
			return 0, errLegacyTruncated
		}
		code |= int(b ^ 1)
		cnt := int(t.count[l])
		if code-first < cnt {
			return int(t.syms[index+code-first]), nil
		}
		index += cnt
		first = (first + cnt) << 1
		code <<= 1
	}
	return 0, fmt.Errorf("implode: code not in its tree: %w", archive.ErrFormat)
}

func (z *implodeReader) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

func (z *implodeReader) emit(b []byte, c byte) []byte {
	z.window[z.done&(int64(len(z.window))-1)] = c
	z.done++
	return append(b, c)
}

// step decodes one literal or match into out.
func (z *implodeReader) step() error {
	if !z.started {
		z.started = true
		if z.litTree {
			if err := z.readTree(&z.lit, 256); err != nil {
				return err
			}
		}
		if err := z.readTree(&z.ln, 64); err != nil {
			return err
		}
		if err := z.readTree(&z.d, 64); err != nil {
			return err
		}
	}
	if z.done >= z.size {
		return io.EOF
	}
	out := z.buf[:0]
	flag, ok := z.br.read(1)
	if !ok {
		return errLegacyTruncated
	}
	if flag == 1 {
		var c int
		if z.litTree {
			var err error
			if c, err = z.decode(&z.lit); err != nil {
				return err
			}
		} else {
			v, ok := z.br.read(8)
			if !ok {
				return errLegacyTruncated
			}
			c = int(v)
		}
		z.out = z.emit(out, byte(c))
		return nil
	}
	lowBits := uint(6)
	if z.bigWindow {
		lowBits = 7
	}
	low, ok := z.br.read(lowBits)
	if !ok {
		return errLegacyTruncated
	}
	high, err := z.decode(&z.d)
	if err != nil {
		return err
	}
	dist := int64(high)<<lowBits | int64(low) + 1
	length, err := z.decode(&z.ln)
	if err != nil {
		return err
	}
	if length == 63 {
		v, ok := z.br.read(8)
		if !ok {
			return errLegacyTruncated
		}
		length += int(v)
	}
	length += 2
	if z.litTree {
		length++
	}
	for ; length > 0 && z.done < z.size; length-- {
		var b byte
		if dist <= z.done {
			b = z.window[(z.done-dist)&(int64(len(z.window))-1)]
		}
		out = z.emit(out, b)
	}
	z.out = out
	return nil
}
