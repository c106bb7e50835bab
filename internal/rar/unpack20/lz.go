package unpack20

import "github.com/garc-dev/garc/internal/rar/lzcore"

// decodeLZ decodes LZ symbols until the window reaches limit, the input
// is exhausted or new tables switch the mode.
func (d *Decoder) decodeLZ(limit int64) error {
	br := &d.br
	win := &d.win
	mainH := &d.mainH
	for win.Total() < limit {
		// a symbol needs at most 15+5 bits, its distance 15+16 more
		br.Fill(40)
		if br.Truncated() {
			return errTruncated
		}
		e := mainH.Quick(br.V)
		if e&15 == 0 {
			e = mainH.Slow(br.V)
		}
		br.Skip(uint(e & 15))
		sym := int(e >> 4)
		if sym < 256 {
			// a run of literals, with the bit buffer and the window
			// index in registers
			buf, w := win.Raw()
			mask := len(buf) - 1
			buf[w] = byte(sym)
			k := 1
			left := int(limit - win.Total())
			v, nb := br.V, br.N
			for k < left && nb >= lzcore.MaxCodeLen {
				e := mainH.Quick(v)
				if e&15 == 0 || e>>4 >= 256 {
					break
				}
				v <<= e & 15
				nb -= uint(e & 15)
				buf[(w+k)&mask] = byte(e >> 4)
				k++
			}
			br.V, br.N = v, nb
			win.Advance(k)
			continue
		}
		var length int
		var dist uint32
		switch {
		case sym >= 270:
			i := sym - 270
			length = int(lengthBase[i]) + 3 + int(br.Bits(uint(lengthBits[i])))
			br.Fill(31)
			ds := d.distH.Decode(br)
			dist = distBase[ds] + 1 + br.Bits(uint(distBits[ds]))
			if dist >= 0x2000 {
				length++
				if dist >= 0x40000 {
					length++
				}
			}
		case sym == 269:
			d.needTables = true
			return d.readTables()
		case sym >= 261:
			i := sym - 261
			dist = shortBase[i] + 1 + br.Bits(uint(shortBits[i]))
			length = 2
		case sym == 256:
			dist = d.lastDst
			length = d.lastLen
		default: // 257-260
			dist = d.dists[(d.distPtr-(sym-256))&3]
			br.Fill(20)
			ls := d.lenH.Decode(br)
			length = int(lengthBase[ls]) + 2 + int(br.Bits(uint(lengthBits[ls])))
			if dist >= 0x101 {
				length++
				if dist >= 0x2000 {
					length++
					if dist >= 0x40000 {
						length++
					}
				}
			}
		}
		d.dists[d.distPtr&3] = dist
		d.distPtr++
		d.lastDst = dist
		d.lastLen = length
		if length > 0 && !win.Copy(int(dist), length) {
			return errDistance
		}
	}
	return nil
}

// decodeAudio decodes audio symbols until the window reaches limit or new
// tables switch the mode.
func (d *Decoder) decodeAudio(limit int64) error {
	br := &d.br
	win := &d.win
	for win.Total() < limit {
		br.Fill(16)
		if br.Truncated() {
			return errTruncated
		}
		sym := d.audH[d.channel&3].Decode(br)
		if sym == 256 {
			d.needTables = true
			return d.readTables()
		}
		win.PutByte(d.audioSt[d.channel&3].decode(&d.chDelta, byte(sym)))
		d.channel++
		if d.channel >= d.channels {
			d.channel = 0
		}
	}
	return nil
}

// abs is branch-free: the signs of prediction errors are unpredictable.
func abs(x int) int {
	m := x >> 63
	return (x ^ m) - m
}

// decode turns one prediction error into the channel's next byte and
// adapts the weights.
func (s *audioState) decode(chDelta *int, delta byte) byte {
	s.d[3] = s.d[2]
	s.d[2] = s.d[1]
	s.d[1] = s.lastDelta - s.d[0]
	s.d[0] = s.lastDelta
	cd := *chDelta
	pred := (8*s.lastByte + s.k[0]*s.d[0] + s.k[1]*s.d[1] + s.k[2]*s.d[2] + s.k[3]*s.d[3] + s.k[4]*cd) >> 3
	b := byte(pred) - delta

	e := int(int8(delta)) << 3
	s.err[0] += abs(e)
	s.err[1] += abs(e - s.d[0])
	s.err[2] += abs(e + s.d[0])
	s.err[3] += abs(e - s.d[1])
	s.err[4] += abs(e + s.d[1])
	s.err[5] += abs(e - s.d[2])
	s.err[6] += abs(e + s.d[2])
	s.err[7] += abs(e - s.d[3])
	s.err[8] += abs(e + s.d[3])
	s.err[9] += abs(e - cd)
	s.err[10] += abs(e + cd)

	s.lastDelta = int(int8(b - byte(s.lastByte)))
	*chDelta = s.lastDelta
	s.lastByte = int(b)

	s.count++
	if s.count&31 == 0 {
		best := 0
		for i := 1; i < len(s.err); i++ {
			if s.err[i] < s.err[best] {
				best = i
			}
		}
		s.err = [11]int{}
		if best > 0 {
			k := &s.k[(best-1)/2]
			if best&1 == 1 {
				if *k >= -16 {
					*k--
				}
			} else if *k < 16 {
				*k++
			}
		}
	}
	return b
}
