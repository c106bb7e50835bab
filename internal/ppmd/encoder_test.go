package ppmd

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// A test-only PPMd7z encoder: the mirror image of decodeSymbol driving the
// shared model and the 7z test range encoder. It lets the tests reach model
// parameters 7zz does not offer (orders above 32, 2 KiB arenas) and streams
// with an end marker. Checked against 7zz's own output below.

func (m *Model) encodeSymbol(e *encoder7z, sym int, charMask *[256]byte) {
	mem := m.mem
	mc := m.minContext
	ns := m.numStats(mc)
	if ns != 1 {
		s := m.stats(mc)
		st := mem[s : s+ns*stateSize]
		summFreq := m.summFreq(mc)
		cum := uint32(0)
		for i := uint32(0); i < ns; i++ {
			f := uint32(st[i*stateSize+1])
			if int(st[i*stateSize]) == sym {
				e.encode(cum, f, summFreq)
				m.foundState = s + i*stateSize
				if i == 0 {
					m.update1First()
				} else {
					m.prevSuccess = 0
					m.update1()
				}
				return
			}
			cum += f
		}
		m.prevSuccess = 0
		e.encode(cum, summFreq-cum, summFreq)
		m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
		*charMask = allUnmasked
		for i := uint32(0); i < ns; i++ {
			charMask[st[i*stateSize]] = 0
		}
	} else {
		s := mc + 2
		one := mem[s]
		freq := uint32(mem[s+1])
		m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
		col := m.prevSuccess + uint32(m.runLength>>26)&0x20 +
			uint32(ns2BSIndx[(m.numStats(m.suffix(mc))-1)&255]) + hiBitsFlag4(one) + m.hiBitsFlag
		prob := &m.binSumm[(freq-1)&127][col&63]
		pr0 := uint32(*prob)
		pr := pr0 - (pr0+1<<(periodBits-2))>>periodBits
		if int(one) == sym {
			e.encodeBit(pr0, false)
			*prob = uint16(pr + 1<<intBits)
			c := m.successor(s)
			m.foundState = s
			m.prevSuccess = 1
			m.runLength++
			if freq < 128 {
				mem[s+1] = byte(freq + 1)
			}
			if m.orderFall == 0 && c > m.text {
				m.minContext, m.maxContext = c, c
			} else {
				m.updateModel()
			}
			return
		}
		e.encodeBit(pr0, true)
		*prob = uint16(pr)
		m.initEsc = uint32(expEscape[(pr>>10)&15])
		*charMask = allUnmasked
		charMask[one] = 0
		m.prevSuccess = 0
	}
	for {
		mc = m.minContext
		numMasked := m.numStats(mc)
		for {
			m.orderFall++
			suf := m.suffix(mc)
			if suf == 0 {
				if sym >= 0 {
					panic("symbol not in the order-0 context")
				}
				return // end marker written
			}
			mc = suf
			if m.numStats(mc) != numMasked {
				break
			}
		}
		ns = m.numStats(mc)
		s := m.stats(mc)
		st := mem[s : s+ns*stateSize]
		hiCnt := uint32(0)
		for i := uint32(0); i < ns; i++ {
			hiCnt += uint32(st[i*stateSize+1] & charMask[st[i*stateSize]])
		}
		m.minContext = mc
		sc, freqSum := m.makeEscFreq(numMasked)
		freqSum += hiCnt
		cum := uint32(0)
		for i := uint32(0); i < ns; i++ {
			f := uint32(st[i*stateSize+1] & charMask[st[i*stateSize]])
			if f != 0 && int(st[i*stateSize]) == sym {
				e.encode(cum, f, freqSum)
				sc.update()
				m.foundState = s + i*stateSize
				m.update2()
				return
			}
			cum += f
		}
		e.encode(hiCnt, freqSum-hiCnt, freqSum)
		sc.summ += uint16(freqSum)
		for i := uint32(0); i < ns; i++ {
			charMask[st[i*stateSize]] = 0
		}
	}
}

// encode7z compresses data into a PPMd7z stream, optionally followed by an
// end marker.
func encode7z(t testing.TB, data []byte, order int, memSize uint32, endMark bool) []byte {
	t.Helper()
	m := NewModel()
	if err := m.Init(order, memSize); err != nil {
		t.Fatal(err)
	}
	e := newEncoder7z()
	var mask [256]byte
	for _, b := range data {
		m.encodeSymbol(e, int(b), &mask)
	}
	if endMark {
		m.encodeSymbol(e, -1, &mask)
	}
	return e.flush()
}

// TestTestEncoderMatches7zz checks the test encoder against 7-Zip: both
// must produce the same bytes, which pins the test encoder (and the shared
// model) to the reference.
func TestTestEncoderMatches7zz(t *testing.T) {
	for _, i := range []int{0, 2, 3} {
		c := testCases()[i]
		f := make7z(t, c)
		got := encode7z(t, c.data, f.order, f.memSize, false)
		if !bytes.Equal(got, f.packed) {
			n := 0
			for n < len(got) && n < len(f.packed) && got[n] == f.packed[n] {
				n++
			}
			t.Fatalf("%s: test encoder output (%d bytes) differs from 7zz (%d bytes) at byte %d", c.name, len(got), len(f.packed), n)
		}
	}
}

// TestModelRoundTrip covers orders and arena sizes 7zz cannot produce.
func TestModelRoundTrip(t *testing.T) {
	data := mixedData(250_000)
	d := &Reader7z{}
	for _, tc := range []struct {
		order int
		mem   uint32
	}{
		{2, MinMemSize},
		{64, MinMemSize},
		{33, 64 << 10},
		{48, 1 << 20},
		{64, 1 << 20},
		{64, 16 << 20},
	} {
		packed := encode7z(t, data, tc.order, tc.mem, false)
		if err := d.Reset(bytes.NewReader(packed), tc.order, tc.mem, int64(len(data))); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("order %d mem %d: err=%v equal=%v", tc.order, tc.mem, err, bytes.Equal(got, data))
		}
	}
}

func TestReader7zEndMarker(t *testing.T) {
	data := textData(50_000)
	packed := encode7z(t, data, 8, 1<<20, true)
	d, err := NewReader7z(bytes.NewReader(packed), 8, 1<<20, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readChunks(d, 1000)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("unknown size: err=%v equal=%v (%d bytes)", err, bytes.Equal(got, data), len(got))
	}
	// Known size with a trailing end marker, as 7-Zip accepts it.
	d.Reset(bytes.NewReader(packed), 8, 1<<20, int64(len(data)))
	got, err = io.ReadAll(d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("sized with end marker: err=%v equal=%v", err, bytes.Equal(got, data))
	}
	// An end marker before the announced size is an error.
	d.Reset(bytes.NewReader(packed), 8, 1<<20, int64(len(data))+1)
	if _, err := io.ReadAll(d); !errors.Is(err, ErrEndMarker) || !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("end marker inside data: %v", err)
	}
	// Unknown size without an end marker: the input runs out.
	plain := encode7z(t, data, 8, 1<<20, false)
	d.Reset(bytes.NewReader(plain), 8, 1<<20, -1)
	if _, err := io.ReadAll(d); !errors.Is(err, archive.ErrFormat) {
		t.Fatalf("no end marker: %v", err)
	}
}
