package unpack5

import (
	"bytes"
	"io"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/filters"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// A tiny RAR5 stream writer for tests: fixed-length Huffman codes (every
// main symbol 9 bits, distance 7, low distance 4, length 6), so that the
// decoder can be driven through cases the corpus does not reach: distances
// of exactly the dictionary size, matches across the end of the ring,
// filters spanning the wrap, many blocks.

// bitWriter writes the test streams.
type bitWriter = rartest.BitWriter

type synthOp struct {
	lit    byte
	length int    // 0: literal
	dist   uint64 // match distance
	rep    int    // 1-4: reuse distance rep-1 (symbols 258-261); 5: symbol 257
	filter *filterDesc
}

// synthBlock writes one compressed block holding ops.
func synthBlock(out *bitWriter, ops []synthOp, last, tables bool, version int) {
	var w bitWriter
	ndist := distSyms5
	if version == 1 {
		ndist = distSyms7
	}
	if tables {
		for range blSyms {
			w.Bits(5, 4) // every bit-length symbol 5 bits long
		}
		put := func(n, l int) {
			for range n {
				w.Bits(uint64(l), 5) // canonical code of symbol l
			}
		}
		put(mainSyms, 9)
		put(ndist, 7)
		put(lowSyms, 4)
		put(lenSyms, 6)
	}
	lenSlot := func(l int) (int, uint64, uint) {
		l -= 2
		for s := lenSyms - 1; s >= 0; s-- {
			if base := int(lenSlotBase[s]); base <= l {
				return s, uint64(l - base), uint(lenSlotBits[s])
			}
		}
		panic("length")
	}
	for _, op := range ops {
		switch {
		case op.filter != nil:
			f := op.filter
			w.Bits(256, 9)
			num := func(v int64) {
				w.Bits(3, 2)
				for i := range 4 {
					w.Bits(uint64(v>>(8*i))&0xff, 8)
				}
			}
			num(f.start) // offset from the current position
			num(f.length)
			w.Bits(uint64(f.typ), 3)
			if f.typ == filterDelta {
				w.Bits(uint64(f.channels-1), 5)
			}
		case op.rep == 5:
			w.Bits(257, 9)
		case op.length == 0:
			w.Bits(uint64(op.lit), 9)
		case op.rep > 0:
			w.Bits(uint64(258+op.rep-1), 9)
			s, x, k := lenSlot(op.length)
			w.Bits(uint64(s), 6)
			w.Bits(x, k)
		default:
			l := op.length
			if op.dist > 0x100 {
				l--
			}
			if op.dist > 0x2000 {
				l--
			}
			if op.dist > 0x40000 {
				l--
			}
			s, x, k := lenSlot(l)
			w.Bits(uint64(262+s), 9)
			w.Bits(x, k)
			dv := op.dist - 1
			ds := 0
			for s := ndist - 1; s >= 0; s-- {
				if distSlotBase[s] <= dv {
					ds = s
					break
				}
			}
			w.Bits(uint64(ds), 7)
			x2 := dv - distSlotBase[ds]
			if k := uint(distSlotBits[ds]); k >= 4 {
				w.Bits(x2>>4, k-4)
				w.Bits(x2&15, 4)
			} else {
				w.Bits(x2, k)
			}
		}
	}
	nbits := w.BitLen()
	w.Align()
	size := len(w.Buf)
	lastBits := nbits - (size-1)*8
	if size == 0 {
		lastBits = 1
	}
	nb := 1
	for size >= 1<<(8*nb) {
		nb++
	}
	flags := byte(lastBits-1) | byte(nb-1)<<3
	if last {
		flags |= 0x40
	}
	if tables {
		flags |= 0x80
	}
	sum := 0x5a ^ flags
	hdr := []byte{flags, 0}
	for i := range nb {
		b := byte(size >> (8 * i))
		sum ^= b
		hdr = append(hdr, b)
	}
	hdr[1] = sum
	out.Align()
	out.Buf = append(out.Buf, hdr...)
	out.Buf = append(out.Buf, w.Buf...)
}

// synthesize makes random ops producing about n bytes and the expected
// output (filters applied).
func synthesize(rng *rand.Rand, n int, dict uint64, withFilters bool) ([]synthOp, []byte) {
	var ops []synthOp
	var out []byte
	var dists [4]uint64
	lastLen := 0
	type pend struct {
		start, length int64
		typ           filterType
		ch            uint8
	}
	var fl []pend
	for len(out) < n {
		r := rng.Intn(100)
		switch {
		case len(out) < 16 || r < 40:
			b := byte(rng.Intn(4)) + 'a'
			if rng.Intn(8) == 0 {
				b = 0xe8
			}
			ops = append(ops, synthOp{lit: b})
			out = append(out, b)
		case r < 50 && dists[0] != 0 && lastLen != 0:
			ops = append(ops, synthOp{rep: 5})
			for range lastLen {
				out = append(out, out[len(out)-int(dists[0])])
			}
		case r < 60 && dists[3] != 0:
			i := rng.Intn(4)
			l := 2 + rng.Intn(300)
			d := dists[i]
			copy(dists[1:i+1], dists[:i])
			dists[0] = d
			ops = append(ops, synthOp{rep: i + 1, length: l})
			for range l {
				out = append(out, out[len(out)-int(d)])
			}
			lastLen = l
		case r < 63 && withFilters && len(fl) < 3:
			typ := filterType(rng.Intn(4))
			f := pend{start: int64(len(out)) + int64(rng.Intn(5000)), length: int64(1 + rng.Intn(70000)), typ: typ, ch: uint8(1 + rng.Intn(4))}
			if len(fl) > 0 && f.start < fl[len(fl)-1].start+fl[len(fl)-1].length {
				continue
			}
			fl = append(fl, f)
			ops = append(ops, synthOp{filter: &filterDesc{start: f.start - int64(len(out)), length: f.length, typ: typ, channels: f.ch}})
		default:
			var d uint64
			switch rng.Intn(4) {
			case 0:
				d = uint64(1 + rng.Intn(16))
			case 1:
				d = uint64(1 + rng.Intn(min(len(out), int(dict))))
			default:
				d = min(uint64(len(out)), dict) - uint64(rng.Intn(40))
			}
			if d == 0 || d > uint64(len(out)) {
				d = 1
			}
			l := 2 + rng.Intn(20)
			if rng.Intn(10) == 0 {
				l = 2 + rng.Intn(4000)
			}
			// the distance bonus is implied: encodable lengths start above it
			for _, b := range []uint64{0x100, 0x2000, 0x40000} {
				if d > b {
					l++
				}
			}
			ops = append(ops, synthOp{length: l, dist: d})
			for range l {
				out = append(out, out[len(out)-int(d)])
			}
			copy(dists[1:], dists[:3])
			dists[0] = d
			lastLen = l
		}
	}
	// filters transform the output only; drop those not complete
	res := append([]byte(nil), out...)
	for _, f := range fl {
		if f.start+f.length > int64(len(out)) {
			continue
		}
		b := res[f.start : f.start+f.length]
		switch f.typ {
		case filterDelta:
			src := append([]byte(nil), b...)
			filters.RARDelta(b, src, int(f.ch))
		case filterE8, filterE8E9:
			filters.RAR5E8(b, f.start, f.typ == filterE8E9)
		case filterARM:
			filters.RARARM(b, f.start)
		}
	}
	return ops, res
}

func TestSynthetic(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	d := NewDecoder()
	defer d.Close()
	for iter := range 12 {
		const dict = 256 << 10
		size := 300<<10 + rng.Intn(900<<10)
		ops, want := synthesize(rng, size, dict, iter%2 == 1)
		version := iter % 3 / 2
		var w bitWriter
		for i := 0; i < len(ops); {
			n := min(len(ops)-i, 1+rng.Intn(30000))
			synthBlock(&w, ops[i:i+n], i+n == len(ops), i == 0 || rng.Intn(3) == 0, version)
			i += n
		}
		w.Align()
		for _, unknown := range []bool{false, true} {
			p := Params{DictSize: dict, UnpackedSize: int64(len(want)), Version: version}
			if unknown {
				p.UnpackedSize = -1
			}
			if err := d.Reset(bytes.NewReader(w.Buf), p); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(d)
			if err != nil {
				t.Fatalf("iter %d: %v after %d bytes", iter, err, len(got))
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("iter %d (unknown size %v): %d bytes, want %d; first difference at %d", iter, unknown, len(got), len(want), i)
			}
		}
	}
}
