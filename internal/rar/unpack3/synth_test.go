package unpack3

import (
	"bytes"
	"io"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// A tiny RAR 2.9 LZ stream writer for tests, with fixed-length codes
// (main 9 bits, distance 6, low distance 5, length 5), to drive the
// decoder through cases the corpus does not reach: distances of exactly
// the dictionary size, matches across the end of the ring, all symbol
// kinds, table changes between blocks.

// bitWriter writes the test streams.
type bitWriter = rartest.BitWriter

type op3 struct {
	lit    byte
	kind   int // 0 literal, 1 long match, 2 short match, 3 rep, 4 repeat last, 5 new block
	length int
	dist   uint32
	idx    int
}

func writeTables(w *bitWriter) {
	w.Align()
	w.Bits(0, 1) // LZ
	w.Bits(0, 1) // fresh tables
	for range blSyms {
		w.Bits(5, 4)
	}
	put := func(n, l int) {
		for range n {
			w.Bits(uint64(l), 5)
		}
	}
	put(mainSyms, 9)
	put(distSyms, 6)
	put(lowSyms, 5)
	put(lenSyms, 5)
}

func lenSlot3(l int) (int, uint64, uint) {
	for s := lenSyms - 1; s >= 0; s-- {
		if int(lengthBase[s]) <= l {
			return s, uint64(l - int(lengthBase[s])), uint(lengthBits[s])
		}
	}
	panic("length")
}

func writeOps(w *bitWriter, ops []op3) {
	writeTables(w)
	for _, o := range ops {
		switch o.kind {
		case 0:
			w.Bits(uint64(o.lit), 9)
		case 1:
			l := o.length - 3
			if o.dist >= 0x2000 {
				l--
			}
			if o.dist >= 0x40000 {
				l--
			}
			s, x, k := lenSlot3(l)
			w.Bits(uint64(271+s), 9)
			w.Bits(x, k)
			dv := o.dist - 1
			ds := 0
			for s := distSyms - 1; s >= 0; s-- {
				if distBase[s] <= dv {
					ds = s
					break
				}
			}
			w.Bits(uint64(ds), 6)
			x2 := uint64(dv - distBase[ds])
			if k := uint(distBits[ds]); k >= 4 {
				w.Bits(x2>>4, k-4)
				w.Bits(x2&15, 5)
			} else {
				w.Bits(x2, k)
			}
		case 2:
			w.Bits(uint64(263+o.idx), 9)
			w.Bits(uint64(o.dist-1-shortBase[o.idx]), uint(shortBits[o.idx]))
		case 3:
			w.Bits(uint64(259+o.idx), 9)
			s, x, k := lenSlot3(o.length - 2)
			w.Bits(uint64(s), 5)
			w.Bits(x, k)
		case 4:
			w.Bits(258, 9)
		case 5:
			w.Bits(256, 9)
			w.Bits(1, 1) // new tables follow
			writeTables(w)
		}
	}
	w.Bits(256, 9)
	w.Bits(0, 2) // end of file, tables kept
	w.Align()
}

func synth3(rng *rand.Rand, n int, dict uint32) ([]op3, []byte) {
	var ops []op3
	var out []byte
	var dists [4]uint32
	lastLen := 0
	cp := func(l int, d uint32) {
		for range l {
			out = append(out, out[len(out)-int(d)])
		}
	}
	for len(out) < n {
		r := rng.Intn(100)
		switch {
		case len(out) < 300 || r < 40:
			b := byte('a' + rng.Intn(5))
			ops = append(ops, op3{lit: b})
			out = append(out, b)
		case r < 45 && lastLen > 0:
			ops = append(ops, op3{kind: 4})
			cp(lastLen, dists[0])
		case r < 55 && dists[3] != 0:
			i := rng.Intn(4)
			d := dists[i]
			copy(dists[1:i+1], dists[:i])
			dists[0] = d
			l := 2 + rng.Intn(250)
			ops = append(ops, op3{kind: 3, idx: i, length: l})
			cp(l, d)
			lastLen = l
		case r < 62:
			i := rng.Intn(8)
			d := shortBase[i] + 1 + uint32(rng.Intn(1<<shortBits[i]))
			ops = append(ops, op3{kind: 2, idx: i, dist: d})
			cp(2, d)
			copy(dists[1:], dists[:3])
			dists[0] = d
			lastLen = 2
		case r < 63:
			ops = append(ops, op3{kind: 5})
		default:
			var d uint32
			switch rng.Intn(3) {
			case 0:
				d = uint32(1 + rng.Intn(min(len(out), int(dict))))
			default:
				d = min(uint32(len(out)), dict) - uint32(rng.Intn(30))
			}
			l := 3 + rng.Intn(250)
			if d >= 0x2000 {
				l++
			}
			if d >= 0x40000 {
				l++
			}
			ops = append(ops, op3{kind: 1, length: l, dist: d})
			cp(l, d)
			copy(dists[1:], dists[:3])
			dists[0] = d
			lastLen = l
		}
	}
	return ops, out
}

func TestSynthetic(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	d := NewDecoder()
	defer d.Close()
	for iter := range 10 {
		dict := uint32(256 << 10)
		if iter%2 == 1 {
			dict = 1 << 20
		}
		ops, want := synth3(rng, 200<<10+rng.Intn(1500<<10), dict)
		var w bitWriter
		writeOps(&w, ops)
		for _, unknown := range []bool{false, true} {
			p := Params{DictSize: int64(dict), UnpackedSize: int64(len(want)), Version: 29}
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
