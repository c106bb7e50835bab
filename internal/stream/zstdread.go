package stream

import (
	"bufio"
	"encoding/binary"
	"io"
	"reflect"
	"runtime"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/garc-dev/garc/internal/hugemem"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// newZstdDecoder returns the decoder of the zstd file read from r, whose
// frames' windows may be up to maxDict bytes: garc's own decoder for a
// file of mostly RLE blocks (zstdMostlyRuns) or, in the first
// zstdRawLook bytes of one that starts with a raw block of the largest
// size, of mostly raw blocks (zstdMostlyRaw), klauspost's with a
// zstdCheck in front of it for any other.
func newZstdDecoder(r io.Reader, maxDict int64) (Decoder, Header, error) {
	h := Header{Size: -1}
	// The decoder's own bound is a backstop: zstdCheck names the
	// window a frame needs. Its default (zstd.MaxWindowSize, 512 MiB)
	// is what klauspost's encoder writes, not what the format allows.
	win := uint64(min(max(maxDict, zstdMinWindow), zstdMaxWindow))
	z, _ := zstdDecoders.Get().(*zstdParts)
	if z == nil {
		z = &zstdParts{in: bufio.NewReaderSize(r, zstdInputSize)}
	} else {
		z.in.Reset(r)
	}
	start, _ := z.in.Peek(zstdInputSize)
	var src io.Reader = z.in
	own := zstdMostlyRuns(start)
	if !own && zstdRawFirst(start) {
		if z.look == nil {
			z.look = zstdWindowMemory(z, zstdRawLook)
		}
		if z.look != nil {
			n, err := io.ReadFull(z.in, z.look)
			start = z.look[:n]
			z.lookR.Reset(start)
			var rest io.Reader = z.in
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				rest = zstdFailed{err}
			}
			src = io.MultiReader(&z.lookR, rest)
			own = zstdMostlyRaw(start)
		}
	}
	if own {
		if z.own == nil {
			z.own = ownzstd.NewReader(src, maxDict)
		} else {
			z.own.Reset(src, maxDict)
		}
		return &zstdRunsDecoder{zstdParts: z}, h, nil
	}
	w := zstdFirstWindow(start) // before the decoder reads what start holds
	chk := newZstdCheck(src, maxDict)
	var err error
	if z.dec == nil {
		z.dec, err = zstd.NewReader(chk, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win))
	} else {
		err = z.dec.ResetWithOptions(chk, zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win))
	}
	if err != nil {
		z.dec = nil
		zstdDecoders.Put(z)
		return nil, h, zstdError(err, maxDict)
	}
	if w <= win {
		z.giveWindow(w)
	}
	return &zstdDecoder{zstdParts: z, chk: chk, limit: maxDict}, h, nil
}

// zstdFailed is a reader that fails with err: the file after the bytes
// newZstdDecoder read ahead, when reading them failed.
type zstdFailed struct{ err error }

// Read fails.
func (f zstdFailed) Read([]byte) (int, error) { return 0, f.err }

// Window memory. klauspost's decoder keeps a frame's window in a ring
// (its history's ring field) of the window and two blocks' room, made
// with make when the first block is decoded: a fresh allocation of 2.3
// MB for zstd's default window of 2 MiB, whose first touch was about 580
// page faults (12 µs each on this machine under load: 7 ms, as much as
// decoding 5 MB) and which took the heap past its first goal (a
// collection). garc gives the decoder a ring of its own instead, mapped
// outside the Go heap and advised for transparent huge pages
// (zstdWindowMemory): two page faults. garc t of mixed.tar.zst went from
// 1,455 to 663 page faults and 1.18x to 1.05x 7zz's CPU time (cpupairs,
// 10 rounds), random.tar.zst from 1,152 to 516 faults.
//
// The ring is not part of the decoder's API: giveWindow sets the field
// through reflection, and leaves the decoder to allocate its own where
// the field is not found (TestZstdWindowGiven fails then) or the memory
// cannot be mapped. The decoder keeps a ring as long as it is large
// enough for the next frame's window (history.ensureBlockRing), and the
// mapping lives as long as the zstdParts holding the decoder
// (zstdWindowMemory's cleanup).

// The same mapping holds, behind the ring, the block decoder's two
// buffers of a block each (giveBlockBuffers): the compressed block as
// read (dataStorage) and its literals (literalBuf). In the low-memory
// mode garc runs it in, the decoder makes them for each block larger
// than the ones before, on the heap: some 100 to 180 page faults for
// them in garc t of a 100 MB .tar.zst. Behind the ring they lie in the
// huge page the ring's end takes anyway.

// zstdRingRoom is what the ring needs past the window: klauspost's
// ensureBlockRing makes it the window and twice a block's room (a block
// of 128 KiB and 32 bytes of overrun), with some margin.
const zstdRingRoom = 2*(128<<10+64) + 4096

// zstdBlockBuf is the size of each of the block decoder's buffers given
// behind the ring: a block of 128 KiB and klauspost's 32 bytes of
// overrun, with some margin.
const zstdBlockBuf = 128<<10 + 64

// zstdWindowLeast is the smallest window given memory of its own (below,
// the decoder's own allocation is a few pages), zstdWindowMost the
// largest (zstd --ultra -22's 128 MiB): a frame header may declare
// terabytes, which the decoder allocates only if blocks follow.
const (
	zstdWindowLeast = 256 << 10
	zstdWindowMost  = 128 << 20
)

// giveWindow gives z's decoder a ring for a window of w bytes if it has
// none as large.
func (z *zstdParts) giveWindow(w uint64) {
	if w < zstdWindowLeast || w > zstdWindowMost {
		return
	}
	need := int(w) + zstdRingRoom
	ring, ok := zstdRing(z.dec)
	if !ok || ring.Cap() >= need {
		return
	}
	if cap(z.win) < need+2*zstdBlockBuf {
		// A smaller earlier mapping stays until z goes: the decoder
		// holds no data in it after its Reset, but nothing here proves
		// that to the unmapping.
		b := zstdWindowMemory(z, need+2*zstdBlockBuf)
		if b == nil {
			return
		}
		z.win = b
	}
	ring.Set(reflect.ValueOf(z.win[:0:need]))
	rest := z.win[need:]
	giveBlockBuffers(z.dec, rest[:0:zstdBlockBuf], rest[zstdBlockBuf:zstdBlockBuf:2*zstdBlockBuf])
}

// giveBlockBuffers gives the block decoder of d, which waits in its
// channel of decoders before a stream's first block, data and lits for
// its dataStorage and literalBuf fields. Where the decoder or a field is
// not found, it leaves the decoder to make its own.
func giveBlockBuffers(d *zstd.Decoder, data, lits []byte) {
	ch := reflect.ValueOf(d).Elem().FieldByName("decoders")
	if ch.Kind() != reflect.Chan || ch.Type().Elem().Kind() != reflect.Pointer {
		return
	}
	ch = reflect.NewAt(ch.Type(), unsafe.Pointer(ch.UnsafeAddr())).Elem()
	if ch.Cap() != 1 || ch.Len() != 1 {
		return
	}
	b, ok := ch.TryRecv()
	if !ok {
		return
	}
	defer ch.Send(b)
	if b.IsNil() || b.Elem().Kind() != reflect.Struct {
		return
	}
	for _, f := range []struct {
		name string
		buf  []byte
	}{{"dataStorage", data}, {"literalBuf", lits}} {
		v := b.Elem().FieldByName(f.name)
		if !v.IsValid() || v.Type() != reflect.TypeFor[[]byte]() {
			continue
		}
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
		if v.Cap() < cap(f.buf) {
			v.Set(reflect.ValueOf(f.buf))
		}
	}
}

// zstdRing returns, settable, the ring field of the frame decoder's
// history in d, and false when d has no such field.
func zstdRing(d *zstd.Decoder) (reflect.Value, bool) {
	f := reflect.ValueOf(d).Elem().FieldByName("frame")
	if f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	h := f.Elem().FieldByName("history")
	if h.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	r := h.FieldByName("ring")
	if !r.IsValid() || r.Type() != reflect.TypeFor[[]byte]() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(r.Type(), unsafe.Pointer(r.UnsafeAddr())).Elem(), true
}

// zstdFirstWindow returns the window of the first data frame whose header
// lies in b, the start of a zstd file (past skippable frames), and 0
// when there is none.
func zstdFirstWindow(b []byte) uint64 {
	for p := 0; len(b)-p >= 4 && p >= 0; {
		switch m := binary.LittleEndian.Uint32(b[p:]); {
		case m&zstdSkipMagicHi == zstdSkipMagic:
			if len(b)-p < 8 {
				return 0
			}
			p += 8 + int(binary.LittleEndian.Uint32(b[p+4:]))
			continue
		case m != zstdFrameMagic:
			return 0
		}
		h, ok := parseZstdFrameHeader(b[p+4:])
		if !ok {
			return 0
		}
		if h.descriptor&0x20 != 0 {
			return max(h.contentSize, zstdMinWindow)
		}
		wd := h.windowDescriptor
		return uint64(8+wd&7) << (wd>>3 + 10 - 3)
	}
	return 0
}

// zstdWindowMemory returns n zero bytes for a zstd decoder's window ring,
// outside the Go heap (hugemem.Mapped, as ringMemory): their first touch
// is a page fault per 2 MiB rather than per 4 KiB, and they count in no
// heap goal. The mapping is removed once owner is unreachable (the
// decoder using the memory goes with it). It returns nil where nothing is
// mapped (mapping failed, or not Linux): the decoder allocates its own.
func zstdWindowMemory(owner *zstdParts, n int) []byte {
	b, m := hugemem.Mapped(n)
	if b != nil {
		runtime.AddCleanup(owner, hugemem.Unmap, m)
	}
	return b
}
