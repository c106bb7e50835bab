package unpack20

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

// A test-only RAR 2.0 stream writer. It uses equal-length codes (so a
// symbol's code is its index), writes random literals, matches of every
// kind, table switches between LZ and audio mode mid-file and tables
// after a file's last byte, and computes the expected output naively
// alongside. It checks the decoder's plumbing (window wrap, solid
// carry-over, tail tables, channel rotation) against an independent
// model of the same format rules.

// bitWriter writes the test streams.
type bitWriter = rartest.BitWriter

type synth struct {
	rng      *rand.Rand
	w        bitWriter
	out      []byte
	prev     [maxLens]byte
	audio    bool
	channels int
	channel  int
	chDelta  int
	st       [4]audioState
	mainL    uint // code length of every main (or audio) symbol
	distL    uint
	lenL     uint
	dists    [4]uint32
	distPtr  int
	lastDist uint32
	lastLen  int
}

// tables writes a table block for the given mode with random equal code
// lengths.
func (s *synth) tables(audio bool, channels int) {
	w := &s.w
	s.audio = audio
	keep := s.rng.IntN(2) == 0
	b := uint32(0)
	if audio {
		b = 1
	}
	w.Bits(uint64(b), 1)
	if keep {
		w.Bits(1, 1)
	} else {
		w.Bits(0, 1)
		s.prev = [maxLens]byte{}
	}
	var lens []byte
	if audio {
		s.channels = channels
		w.Bits(uint64(uint32(channels-1)), 2)
		if s.channel >= channels {
			s.channel = 0
		}
		s.mainL = uint(9 + s.rng.IntN(3))
		for range channels * audioSyms {
			lens = append(lens, byte(s.mainL))
		}
	} else {
		s.mainL = uint(9 + s.rng.IntN(3))
		s.distL = uint(6 + s.rng.IntN(3))
		s.lenL = uint(5 + s.rng.IntN(3))
		for i := range lzLens {
			switch {
			case i < mainSyms:
				lens = append(lens, byte(s.mainL))
			case i < mainSyms+distSyms:
				lens = append(lens, byte(s.distL))
			default:
				lens = append(lens, byte(s.lenL))
			}
		}
	}
	// bit-length code: 19 symbols of 5 bits
	for range blSyms {
		w.Bits(5, 4)
	}
	for i, l := range lens {
		w.Bits(uint64(uint32((l-s.prev[i])&15)), 5)
		s.prev[i] = l
	}
}

// lengthSlot picks a length slot and extra bits, writing them.
func (s *synth) lengthSlot() int {
	i := s.rng.IntN(lenSyms)
	extra := uint32(0)
	if lengthBits[i] > 0 {
		extra = uint32(s.rng.IntN(1 << lengthBits[i]))
	}
	return i<<16 | int(extra)
}

func (s *synth) copyOut(dist uint32, length int) {
	for range length {
		s.out = append(s.out, s.out[len(s.out)-int(dist)])
	}
	s.dists[s.distPtr&3] = dist
	s.distPtr++
	s.lastDist, s.lastLen = dist, length
}

// lzOp writes one random LZ symbol (with its expected output).
func (s *synth) lzOp() {
	w := &s.w
	have := uint32(len(s.out))
	switch r := s.rng.IntN(10); {
	case r < 4 || have == 0:
		b := byte(s.rng.IntN(256))
		if s.rng.IntN(3) > 0 && have > 0 {
			b = s.out[have-1] + 1
		}
		w.Bits(uint64(uint32(b)), s.mainL)
		s.out = append(s.out, b)
	case r < 6:
		// long match: a distance slot within the history
		var ds int
		for {
			ds = s.rng.IntN(distSyms)
			if distBase[ds]+1 <= have {
				break
			}
		}
		span := uint32(1) << distBits[ds]
		extra := uint32(s.rng.IntN(int(min(span, have-distBase[ds]))))
		dist := distBase[ds] + 1 + extra
		ls := s.lengthSlot()
		li, lx := ls>>16, uint32(ls&0xffff)
		w.Bits(uint64(uint32(270+li)), s.mainL)
		w.Bits(uint64(lx), uint(lengthBits[li]))
		w.Bits(uint64(uint32(ds)), s.distL)
		w.Bits(uint64(extra), uint(distBits[ds]))
		length := int(lengthBase[li]) + 3 + int(lx)
		if dist >= 0x2000 {
			length++
		}
		if dist >= 0x40000 {
			length++
		}
		s.copyOut(dist, length)
	case r < 7:
		i := s.rng.IntN(8)
		extra := uint32(s.rng.IntN(1 << shortBits[i]))
		dist := shortBase[i] + 1 + extra
		if dist > have {
			return
		}
		w.Bits(uint64(uint32(261+i)), s.mainL)
		w.Bits(uint64(extra), uint(shortBits[i]))
		s.copyOut(dist, 2)
	case r < 9:
		k := 1 + s.rng.IntN(4)
		dist := s.dists[(s.distPtr-k)&3]
		if dist == 0 || dist > have {
			return
		}
		ls := s.lengthSlot()
		li, lx := ls>>16, uint32(ls&0xffff)
		w.Bits(uint64(uint32(256+k)), s.mainL)
		w.Bits(uint64(uint32(li)), s.lenL)
		w.Bits(uint64(lx), uint(lengthBits[li]))
		length := int(lengthBase[li]) + 2 + int(lx)
		if dist >= 0x101 {
			length++
		}
		if dist >= 0x2000 {
			length++
		}
		if dist >= 0x40000 {
			length++
		}
		s.copyOut(dist, length)
	default:
		if s.lastLen == 0 || s.lastDist == 0 || s.lastDist > have {
			return
		}
		w.Bits(256, s.mainL)
		s.copyOut(s.lastDist, s.lastLen)
	}
}

// audioOp writes one audio symbol.
func (s *synth) audioOp() {
	delta := byte(s.rng.IntN(256))
	if s.rng.IntN(4) > 0 {
		delta = byte(int8(s.rng.IntN(9) - 4))
	}
	s.w.Bits(uint64(uint32(delta)), s.mainL)
	s.out = append(s.out, s.st[s.channel].decode(&s.chDelta, delta))
	s.channel = (s.channel + 1) % s.channels
}

// switchTables writes the table symbol of the current mode and new
// tables for a random mode.
func (s *synth) switchTables() {
	if s.audio {
		s.w.Bits(256, s.mainL)
	} else {
		s.w.Bits(269, s.mainL)
	}
	s.tables(s.rng.IntN(2) == 0, 1+s.rng.IntN(4))
}

type synthFile struct {
	packed []byte
	size   int64
	solid  bool
}

// makeStream writes nfiles solid files of about size bytes each and
// returns them with the expected output of the whole stream.
func makeStream(seed uint64, nfiles, size int) ([]synthFile, []byte) {
	s := &synth{rng: rand.New(rand.NewPCG(seed, seed^0x9e37))}
	var files []synthFile
	s.tables(s.rng.IntN(3) == 0, 1+s.rng.IntN(4))
	for f := range nfiles {
		start := len(s.out)
		for len(s.out)-start < size {
			if s.rng.IntN(2000) == 0 {
				s.switchTables()
			}
			if s.audio {
				s.audioOp()
			} else {
				s.lzOp()
			}
		}
		if f+1 < nfiles && s.rng.IntN(2) == 0 {
			// the next file's tables follow this file's last byte
			s.switchTables()
		}
		files = append(files, synthFile{packed: s.w.Flush(), size: int64(len(s.out) - start), solid: f > 0})
	}
	return files, s.out
}

func TestSynthetic(t *testing.T) {
	d := NewDecoder()
	defer d.Close()
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		size := 2000 + int(seed%5)*150000
		files, want := makeStream(seed, 3, size)
		pos := 0
		for i, f := range files {
			if err := d.Reset(bytes.NewReader(f.packed), Params{DictSize: 1 << 20, UnpackedSize: f.size, Solid: f.solid, Version: 20}); err != nil {
				t.Fatalf("seed %d file %d: Reset: %v", seed, i, err)
			}
			var out []byte
			var err error
			switch {
			case seed%3 == 1 && i < len(files)-1:
				// read a little, leave the rest for the next Reset to
				// decode and discard
				out = make([]byte, min(f.size, 100))
				_, err = io.ReadFull(d, out)
			case i%2 == 0:
				out, err = io.ReadAll(d)
			default:
				var buf bytes.Buffer
				_, err = d.WriteTo(&buf)
				out = buf.Bytes()
			}
			if err != nil {
				t.Fatalf("seed %d file %d: %v", seed, i, err)
			}
			exp := want[pos : pos+int(f.size)]
			pos += int(f.size)
			if !bytes.HasPrefix(exp, out) || (len(out) != len(exp) && len(out) != 100) {
				n := 0
				for n < min(len(out), len(exp)) && out[n] == exp[n] {
					n++
				}
				t.Fatalf("seed %d file %d: output differs at byte %d of %d (got %d bytes)", seed, i, n, len(exp), len(out))
			}
		}
	}
}
