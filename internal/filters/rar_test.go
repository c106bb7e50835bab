package filters

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// The encoders below are the exact inverses of the RAR filters, written for
// the tests from the decoders' definitions.

func encodeRARE8(buf []byte, fileOffset uint32, e8e9, rar5 bool) {
	for i := 0; i < len(buf)-4; {
		b := buf[i]
		i++
		if b != 0xE8 && !(e8e9 && b == 0xE9) {
			continue
		}
		off := fileOffset + uint32(i)
		if rar5 {
			off &= rarE8FileSize - 1
		}
		rel := binary.LittleEndian.Uint32(buf[i:])
		switch {
		case rel+off < rarE8FileSize:
			binary.LittleEndian.PutUint32(buf[i:], rel+off)
		case rel >= rarE8FileSize-off && rel < rarE8FileSize:
			binary.LittleEndian.PutUint32(buf[i:], rel-rarE8FileSize)
		}
		i += 4
	}
}

func encodeRARARM(buf []byte, pc uint32) {
	for i := 0; i+4 <= len(buf); i += 4 {
		if buf[i+3] == 0xEB {
			v := binary.LittleEndian.Uint32(buf[i:]) + (pc+uint32(i))>>2
			binary.LittleEndian.PutUint32(buf[i:], v&0xFFFFFF|0xEB000000)
		}
	}
}

func encodeRARItanium(buf []byte, fileOffset uint32) {
	bundle := fileOffset >> 4
	for i := 0; i < len(buf)-21; i, bundle = i+16, bundle+1 {
		m := uint(ia64Templates>>(buf[i]&0x1E)) & 3
		if m == 0 {
			continue
		}
		for m++; m <= 4; m++ {
			p := i + int(m)*5 - 8
			if (buf[p+3]>>m)&15 == 5 {
				raw := binary.LittleEndian.Uint32(buf[p:])
				v := (raw>>m + bundle) & 0xFFFFF
				binary.LittleEndian.PutUint32(buf[p:], raw&^(0xFFFFF<<m)|v<<m)
			}
		}
	}
}

func encodeRARDelta(data []byte, channels int) []byte {
	out := make([]byte, 0, len(data))
	for ch := 0; ch < channels; ch++ {
		var prev byte
		for i := ch; i < len(data); i += channels {
			out = append(out, prev-data[i])
			prev = data[i]
		}
	}
	return out
}

func encodeRARRGB(img []byte, width, posR int) []byte {
	n := len(img)
	x := bytes.Clone(img)
	for i := posR; i < n-2; i += 3 {
		x[i] -= x[i+1]
		x[i+2] -= x[i+1]
	}
	out := make([]byte, 0, n)
	for ch := 0; ch < 3; ch++ {
		var prev byte
		for i := ch; i < n; i += 3 {
			pred := uint32(prev)
			if i >= width {
				ul, up := uint32(x[i-width]), uint32(x[i-width+3])
				pred = uint32(prev) + up - ul
				pa, pb, pc := absDiff(pred, uint32(prev)), absDiff(pred, up), absDiff(pred, ul)
				switch {
				case pa <= pb && pa <= pc:
					pred = uint32(prev)
				case pb <= pc:
					pred = up
				default:
					pred = ul
				}
			}
			out = append(out, byte(pred)-x[i])
			prev = x[i]
		}
	}
	return out
}

func encodeRARAudio(data []byte, channels int) []byte {
	out := make([]byte, 0, len(data))
	for ch := 0; ch < channels; ch++ {
		var prevByte, prevDelta uint32
		var d1, d2, d3, k1, k2, k3 int32
		var dif [7]uint32
		for i, count := ch, 0; i < len(data); i, count = i+channels, count+1 {
			d3 = d2
			d2 = int32(prevDelta) - d1
			d1 = int32(prevDelta)
			pred := uint32(int32(8*prevByte)+k1*d1+k2*d2+k3*d3) >> 3 & 0xFF
			cur := byte(pred) - data[i]
			out = append(out, cur)
			prevDelta = uint32(int32(int8(data[i] - byte(prevByte))))
			prevByte = uint32(data[i])
			e := int32(int8(cur)) << 3
			for j, v := range []int32{e, e - d1, e + d1, e - d2, e + d2, e - d3, e + d3} {
				dif[j] += absInt(v)
			}
			if count&0x1F != 0 {
				continue
			}
			best, idx := dif[0], 0
			for j := 1; j < 7; j++ {
				if dif[j] < best {
					best, idx = dif[j], j
				}
			}
			dif = [7]uint32{}
			k := []*int32{nil, &k1, &k1, &k2, &k2, &k3, &k3}[idx]
			if k != nil {
				if idx%2 == 1 && *k >= -16 {
					*k--
				} else if idx%2 == 0 && *k < 16 {
					*k++
				}
			}
		}
	}
	return out
}

func TestRARE8RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for iter := 0; iter < 200; iter++ {
		data := make([]byte, rng.Intn(5000))
		rng.Read(data)
		plantX86(rng, data)
		// Make many operands small relative addresses, the common case.
		for i := 0; i+5 <= len(data); i++ {
			if data[i]&0xFE == 0xE8 && rng.Intn(2) == 0 {
				binary.LittleEndian.PutUint32(data[i+1:], uint32(rng.Intn(1<<22)-1<<21))
			}
		}
		off := uint32(rng.Intn(1 << 24))
		e9 := rng.Intn(2) == 0
		rar5 := rng.Intn(2) == 0
		enc := bytes.Clone(data)
		encodeRARE8(enc, off, e9, rar5)
		if rar5 {
			RAR5E8(enc, int64(off), e9)
		} else {
			RARE8(enc, int64(off), e9)
		}
		if !bytes.Equal(enc, data) {
			t.Fatalf("iteration %d (rar5 %v e9 %v offset %d): round trip differs at %d", iter, rar5, e9, off, firstDiff(enc, data))
		}
	}
	// RAR3 and RAR5 differ only for offsets past 16 MiB.
	data := []byte{0xE8, 0x10, 0, 0, 0, 0, 0, 0, 0}
	a, b := bytes.Clone(data), bytes.Clone(data)
	RARE8(a, 1<<24+5, false)
	RAR5E8(b, 1<<24+5, false)
	rar3Off, rar5Off := uint32(1<<24+6), uint32(6)
	if binary.LittleEndian.Uint32(a[1:]) != 0x10-rar3Off || binary.LittleEndian.Uint32(b[1:]) != 0x10-rar5Off {
		t.Errorf("offset handling: rar3 %x rar5 %x", a[1:5], b[1:5])
	}
}

func TestRARARMItaniumRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for iter := 0; iter < 100; iter++ {
		data := make([]byte, rng.Intn(3000))
		rng.Read(data)
		plantARM(rng, data)
		off := rng.Uint32() &^ 3
		enc := bytes.Clone(data)
		encodeRARARM(enc, off)
		if len(data) > 100 && bytes.Equal(enc, data) {
			t.Fatal("ARM encoder changed nothing")
		}
		RARARM(enc, int64(off))
		if !bytes.Equal(enc, data) {
			t.Fatalf("ARM round trip differs at %d", firstDiff(enc, data))
		}

		rng.Read(data)
		plantIA64(rng, data)
		off = rng.Uint32()
		enc = bytes.Clone(data)
		encodeRARItanium(enc, off)
		if len(data) > 100 && bytes.Equal(enc, data) {
			t.Fatal("Itanium encoder changed nothing")
		}
		RARItanium(enc, int64(off))
		if !bytes.Equal(enc, data) {
			t.Fatalf("Itanium round trip differs at %d", firstDiff(enc, data))
		}
	}
}

func TestRARDeltaAudioRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	for iter := 0; iter < 100; iter++ {
		n := rng.Intn(5000)
		data := make([]byte, n)
		// A sampled waveform: predictors have something to do.
		for i := range data {
			data[i] = byte(100*sinApprox(i*(1+iter%5)) + float64(rng.Intn(5)))
		}
		ch := 1 + rng.Intn(8)
		got := make([]byte, n)
		RARDelta(got, encodeRARDelta(data, ch), ch)
		if !bytes.Equal(got, data) {
			t.Fatalf("delta %d channels: differs at %d", ch, firstDiff(got, data))
		}
		clear(got)
		RARAudio(got, encodeRARAudio(data, ch), ch)
		if !bytes.Equal(got, data) {
			t.Fatalf("audio %d channels: differs at %d", ch, firstDiff(got, data))
		}
	}
}

func sinApprox(i int) float64 {
	x := float64(i%200)/100 - 1
	return x * (1 - x*x) * 2
}

func TestRARRGBRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	for iter := 0; iter < 100; iter++ {
		pixels := 2 + rng.Intn(60) // width 3 reads the byte being produced
		width := 3 * pixels
		n := 3 + rng.Intn(5000)
		img := make([]byte, n)
		for i := range img {
			img[i] = byte(i%width + (i/width)*3 + rng.Intn(3))
		}
		posR := rng.Intn(3)
		if width-3 > n {
			continue
		}
		src := encodeRARRGB(img, width, posR)
		got := make([]byte, n)
		if err := RARRGB(got, src, width, posR); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, img) {
			t.Fatalf("rgb width %d posR %d size %d: differs at %d", width, posR, n, firstDiff(got, img))
		}
	}
	dst := make([]byte, 100)
	for _, c := range []struct{ width, posR, size int }{{2, 0, 100}, {200, 0, 100}, {30, 3, 100}, {30, -1, 100}, {3, 0, 2}, {-5, 0, 100}} {
		if err := RARRGB(dst[:c.size], make([]byte, c.size), c.width, c.posR); !errors.Is(err, archive.ErrFormat) {
			t.Errorf("RARRGB(width %d, posR %d, size %d) = %v, want ErrFormat", c.width, c.posR, c.size, err)
		}
	}
	if err := RARRGB(dst, make([]byte, 10), 30, 0); err == nil {
		t.Error("short src accepted")
	}
}

// TestRARHostileParameters checks that no parameter makes a filter panic.
func TestRARHostileParameters(t *testing.T) {
	for _, n := range []int{0, 1, 4, 5, 21, 22, 37} {
		buf := bytes.Repeat([]byte{0xE8, 0xEB, 0x10, 0xFF}, n)[:n]
		for _, off := range []int64{-1, 0, 1 << 40, -1 << 62} {
			RARE8(buf, off, true)
			RAR5E8(buf, off, true)
			RARARM(buf, off)
			RARItanium(buf, off)
		}
		for _, ch := range []int{-3, 0, 1, 3, 1000, 1 << 40} {
			RARDelta(make([]byte, n), buf, ch)
			RARAudio(make([]byte, n), buf, ch)
			RARDelta(make([]byte, n/2), buf, ch)
			RARAudio(make([]byte, n), buf[:n/2], ch)
		}
		for _, w := range []int{-1, 0, 3, 4, 5, n + 3, 1 << 40} {
			for _, p := range []int{-1, 0, 2, 3} {
				_ = RARRGB(make([]byte, n), buf, w, p)
			}
		}
	}
}

func FuzzRARFilters(f *testing.F) {
	f.Add([]byte{0xE8, 1, 2, 3, 4, 5, 6, 7}, int64(5), 3, 0)
	f.Fuzz(func(t *testing.T, data []byte, off int64, a, b int) {
		buf := bytes.Clone(data)
		RARE8(buf, off, a&1 == 0)
		RAR5E8(buf, off, a&1 == 0)
		RARARM(buf, off)
		RARItanium(buf, off)
		dst := make([]byte, len(data))
		RARDelta(dst, data, a)
		RARAudio(dst, data, a%2000)
		_ = RARRGB(dst, data, a, b)
		// Round trips that must hold for any data.
		ch := 1 + (a&0xFF)%32
		got := make([]byte, len(data))
		RARDelta(got, encodeRARDelta(data, ch), ch)
		if !bytes.Equal(got, data) {
			t.Fatal("delta round trip")
		}
		RARAudio(got, encodeRARAudio(data, ch), ch)
		if !bytes.Equal(got, data) {
			t.Fatal("audio round trip")
		}
		enc := bytes.Clone(data)
		encodeRARARM(enc, uint32(off))
		RARARM(enc, off)
		if !bytes.Equal(enc, data) {
			t.Fatal("arm round trip")
		}
	})
}
