package ppmd

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// The decoder primitives (threshold, decode, normalize, the
// binary-context split) are checked independently of the model against
// the 7z range encoder of Writer7z and a test encoder for the RAR flavour,
// written from its description.

// encoderRAR is Subbotin's carry-less range encoder of PPMd var.H.
type encoderRAR struct {
	low, rng uint32
	out      []byte
}

func newEncoderRAR() *encoderRAR { return &encoderRAR{rng: 0xFFFFFFFF} }

func (e *encoderRAR) norm() {
	for {
		if e.low^(e.low+e.rng) >= rcTop {
			if e.rng >= rcBot {
				return
			}
			e.rng = -e.low & (rcBot - 1)
		}
		e.out = append(e.out, byte(e.low>>24))
		e.low <<= 8
		e.rng <<= 8
	}
}

func (e *encoderRAR) encode(start, size, total uint32) {
	e.rng /= total
	e.low += start * e.rng
	e.rng *= size
	e.norm()
}

func (e *encoderRAR) encodeBit(pr uint32, bit bool) {
	if !bit {
		e.encode(0, pr, binScale)
	} else {
		e.encode(pr, binScale-pr, binScale)
	}
}

func (e *encoderRAR) flush() []byte {
	for i := 0; i < 4; i++ {
		e.out = append(e.out, byte(e.low>>24))
		e.low <<= 8
	}
	return e.out
}

type rcOp struct {
	bin                bool
	pr                 uint32 // binary: probability of 0 in 1/2^14
	bit                bool
	start, size, total uint32
}

func randomOps(r *rand.Rand, n int) []rcOp {
	ops := make([]rcOp, n)
	for i := range ops {
		if r.IntN(3) == 0 {
			ops[i] = rcOp{bin: true, pr: 95 + r.Uint32N(binScale-190), bit: r.IntN(2) == 0}
			continue
		}
		total := 1 + r.Uint32N(1<<15) // PPMd keeps totals below 2^15
		if r.IntN(4) == 0 {
			total = 1 + r.Uint32N(300)
		}
		start := r.Uint32N(total)
		size := 1 + r.Uint32N(total-start)
		ops[i] = rcOp{start: start, size: size, total: total}
	}
	return ops
}

func checkDecode(t *testing.T, rc *rangeDecoder, ops []rcOp) {
	t.Helper()
	for i, op := range ops {
		if op.bin {
			size0 := (rc.rng >> 14) * op.pr
			bit := rc.code >= size0
			if bit != op.bit {
				t.Fatalf("op %d: bit %v, want %v", i, bit, op.bit)
			}
			if !bit {
				rc.rng = size0
			} else {
				rc.decodeBinEscape(size0)
			}
			rc.normalize()
			continue
		}
		if op.total > rc.rng {
			t.Fatalf("op %d: total %d above range %d", i, op.total, rc.rng)
		}
		count := rc.threshold(op.total)
		if count < op.start || count >= op.start+op.size {
			t.Fatalf("op %d: count %d outside [%d,%d)", i, count, op.start, op.start+op.size)
		}
		rc.decode(op.start, op.size)
		rc.normalize()
	}
	if rc.err != nil {
		t.Fatalf("input error: %v", rc.err)
	}
}

func TestRangeDecoder7z(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		ops := randomOps(r, 2000)
		var out bytes.Buffer
		e := &rangeEncoder7z{}
		e.reset(&out)
		for _, op := range ops {
			if op.bin {
				e.encodeBit(op.pr, op.bit)
			} else {
				e.encode(op.start, op.size, op.total)
			}
		}
		if err := e.finish(); err != nil {
			t.Fatal(err)
		}
		data := out.Bytes()
		rc := &rangeDecoder{buf: make([]byte, 7), src: bytes.NewReader(data)}
		if err := rc.init7z(); err != nil {
			t.Fatal(err)
		}
		checkDecode(t, rc, ops)
		if rc.code != 0 {
			t.Fatalf("code %#x at the end, want 0", rc.code)
		}
		if _, err := rc.src.Read(make([]byte, 1)); rc.pos != rc.nbuf || err == nil {
			t.Fatal("decoder did not consume exactly the encoded bytes")
		}
	}
}

func TestRangeDecoderRAR(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 50; trial++ {
		ops := randomOps(r, 2000)
		e := newEncoderRAR()
		for _, op := range ops {
			if op.bin {
				e.encodeBit(op.pr, op.bit)
			} else {
				e.encode(op.start, op.size, op.total)
			}
		}
		data := e.flush()
		br := bytes.NewReader(data)
		rc := &rangeDecoder{br: br, rar: true}
		if err := rc.initRAR(); err != nil {
			t.Fatal(err)
		}
		checkDecode(t, rc, ops)
		if br.Len() != 0 || rc.overread != 0 {
			t.Fatalf("decoder left %d bytes, overread %d", br.Len(), rc.overread)
		}
	}
}

// TestRangeDecoderFlavours pins the parts where the flavours differ.
func TestRangeDecoderFlavours(t *testing.T) {
	// Init: 7z wants a zero byte before the code, RAR does not.
	rc := &rangeDecoder{buf: make([]byte, 8), src: bytes.NewReader([]byte{1, 2, 3, 4, 5})}
	if err := rc.init7z(); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("7z init with nonzero first byte: %v", err)
	}
	rc = &rangeDecoder{br: bytes.NewReader([]byte{1, 2, 3, 4}), rar: true}
	if err := rc.initRAR(); err != nil || rc.code != 0x01020304 {
		t.Fatalf("RAR init: code %#x, %v", rc.code, err)
	}
	rc = &rangeDecoder{br: bytes.NewReader([]byte{0xFF, 0xFF, 0xFF, 0xFF}), rar: true}
	if err := rc.initRAR(); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("RAR init with code 0xFFFFFFFF: %v", err)
	}

	// Binary escape: 7z subtracts size0 from the range, RAR keeps only
	// whole 2^14 steps of it.
	a := &rangeDecoder{rng: 0x12345678, code: 0x11111111}
	b := &rangeDecoder{rng: 0x12345678, code: 0x11111111, rar: true}
	size0 := (a.rng >> 14) * 1000
	a.decodeBinEscape(size0)
	b.decodeBinEscape(size0)
	if a.rng != 0x12345678-size0 || b.rng != (0x12345678>>14)*(binScale-1000) {
		t.Fatalf("bin escape ranges %#x %#x", a.rng, b.rng)
	}
	if b.low != size0 || a.low != 0 {
		t.Fatalf("bin escape lows %#x %#x", a.low, b.low)
	}

	// Normalisation: RAR renormalises a range below 2^15 even when the
	// top byte of low is not settled; 7z only looks at the range.
	b = &rangeDecoder{low: 0x00FFF000, rng: 0x2000, rar: true, br: bytes.NewReader([]byte{0xAA, 0xBB})}
	b.normalize()
	if b.rng != 0x100000 || b.low != 0xFFF00000 || b.code != 0xAA {
		t.Fatalf("RAR forced normalisation: rng %#x low %#x code %#x", b.rng, b.low, b.code)
	}
	a = &rangeDecoder{rng: 0x2000, buf: make([]byte, 4), src: bytes.NewReader([]byte{0xAA, 0xBB})}
	a.normalize()
	if a.rng != 0x20000000 || a.code != 0xAABB {
		t.Fatalf("7z normalisation: rng %#x code %#x", a.rng, a.code)
	}

	// End of input: RAR tolerates a few zero bytes, then reports truncation.
	b = &rangeDecoder{br: bytes.NewReader(nil), rar: true}
	for i := 0; i < maxOverread; i++ {
		b.readByte()
	}
	if b.err != nil {
		t.Fatalf("error after %d overread bytes: %v", maxOverread, b.err)
	}
	b.readByte()
	if !errors.Is(b.err, ErrTruncated) {
		t.Fatalf("overread error %v, want ErrTruncated", b.err)
	}
}

// TestRangeDecoderBelow checks that below(cum) answers count() < cum on
// the same scale, at the edges of the symbol intervals and for totals up
// to the range, where the product of cum and the scaled range is largest.
func TestRangeDecoderBelow(t *testing.T) {
	rnd := rand.New(rand.NewPCG(27, 1))
	for _, tc := range []struct{ rng, total uint32 }{
		{0xFFFFFFFF, 1},
		{0xFFFFFFFF, 257},
		{0xFFFFFFFF, 0xFFFF},
		{1 << 24, 3},
		{1<<24 + 12345, 0xFFFF},
		{1 << 24, 1 << 24},
	} {
		for range 2000 {
			rc := rangeDecoder{rng: tc.rng, code: rnd.Uint32N(tc.rng)}
			rc.scale(tc.total)
			count := rc.count()
			for _, cum := range []uint32{0, 1, count, count + 1, tc.total, tc.total + 255, 0xFFFFFFFF} {
				if got, want := rc.below(cum), count < cum; got != want {
					t.Fatalf("range %#x total %d code %#x: below(%d) = %v, count %d", tc.rng, tc.total, rc.code, cum, got, count)
				}
			}
		}
	}
}
