package bzip2

import "encoding/binary"

// bitSink collects bits most significant first into b. Up to 31 pending
// bits wait at the top of acc.
type bitSink struct {
	b   []byte
	acc uint64
	n   uint // pending bits in acc (< 32 between calls)
}

func (w *bitSink) reset() {
	w.b = w.b[:0]
	w.acc, w.n = 0, 0
}

// write appends the k (0..32) low bits of v.
func (w *bitSink) write(v uint32, k uint) {
	w.acc |= uint64(v) & (1<<k - 1) << (64 - w.n - k)
	w.n += k
	if w.n >= 32 {
		w.b = binary.BigEndian.AppendUint32(w.b, uint32(w.acc>>32))
		w.acc <<= 32
		w.n -= 32
	}
}

// write48 appends a 48-bit value (the block and end-of-stream magics).
func (w *bitSink) write48(v uint64) {
	w.write(uint32(v>>24), 24)
	w.write(uint32(v), 24)
}

// bits returns the number of bits written.
func (w *bitSink) bits() int { return len(w.b)*8 + int(w.n) }

// flushPartial moves the pending bits into b, the last byte padded with
// zeros; w must not be written to afterwards without reset.
func (w *bitSink) flushPartial() {
	for w.n > 0 {
		w.b = append(w.b, byte(w.acc>>56))
		w.acc <<= 8
		w.n -= min(w.n, 8)
	}
}

// appendBits appends the first nbits bits of src.
func (w *bitSink) appendBits(src []byte, nbits int) {
	full := nbits / 8
	if w.n == 0 {
		w.b = append(w.b, src[:full]...)
	} else {
		i := 0
		for ; i+4 <= full; i += 4 {
			w.write(binary.BigEndian.Uint32(src[i:]), 32)
		}
		for ; i < full; i++ {
			w.write(uint32(src[i]), 8)
		}
	}
	if r := uint(nbits % 8); r > 0 {
		w.write(uint32(src[full]>>(8-r)), r)
	}
}

// takeBytes returns the complete bytes written so far and forgets them,
// keeping the pending bits. The result is valid until the next write.
func (w *bitSink) takeBytes() []byte {
	p := w.b
	w.b = w.b[:0]
	return p
}
