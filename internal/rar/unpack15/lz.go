package unpack15

import "math/bits"

// decode decodes until the window holds as much pending output as it
// safely can or the file's size is reached.
func (d *Decoder) decode() error {
	win := &d.win
	limit := win.Total() + win.Room() - maxMatch
	if d.fileEnd >= 0 && limit > d.fileEnd {
		limit = d.fileEnd
	}
	if limit <= win.Total() {
		return corrupt("internal window state")
	}
	br := &d.br
	if d.fileEnd < 0 {
		return d.decodeUnsized(limit)
	}
	for win.Total() < limit {
		if br.Truncated() {
			return errTruncated
		}
		if err := d.step(); err != nil {
			return err
		}
	}
	if br.Err() != nil {
		return corrupt(br.Err().Error())
	}
	if br.Truncated() {
		return errTruncated
	}
	return nil
}

// decodeUnsized decodes a stream of unknown size step by step: the format
// has no end marker, so the stream ends where its input does, and a step
// that needed bits past the end (padding) is taken back.
func (d *Decoder) decodeUnsized(limit int64) error {
	br := &d.br
	win := &d.win
	for win.Total() < limit {
		if br.BitsLeft() == 0 {
			break
		}
		before := win.Total()
		err := d.step()
		if br.Err() != nil {
			return corrupt(br.Err().Error())
		}
		if br.Truncated() {
			win.Truncate(before)
			break
		}
		if err != nil {
			return err
		}
	}
	if win.Total() < limit {
		d.done = true
		d.fileEnd = win.Total()
	}
	return nil
}

// step decodes one literal or match (or a mode change).
func (d *Decoder) step() error {
	if d.stMode {
		return d.literal()
	}
	b, err := d.flagBit()
	if err != nil {
		return err
	}
	if b == 1 {
		if d.nlzb > d.nhfb {
			return d.longLZ()
		}
		return d.literal()
	}
	if b, err = d.flagBit(); err != nil {
		return err
	}
	if b == 1 {
		if d.nlzb > d.nhfb {
			return d.literal()
		}
		return d.longLZ()
	}
	return d.shortLZ()
}

// decodeNum reads one symbol of a fixed code.
func (d *Decoder) decodeNum(c *fixedCode) (uint32, error) {
	br := &d.br
	br.Fill(fixedBits)
	e := c[br.V>>(64-fixedBits)]
	l := uint(e & 15)
	if l == 0 {
		return 0, errCode
	}
	br.Skip(l)
	return uint32(e >> 4), nil
}

// flagBit returns the next flag bit, decoding a new flag byte when the
// last one is used up.
func (d *Decoder) flagBit() (uint32, error) {
	if d.flagsLeft == 0 {
		place, err := d.decodeNum(&codeHf2)
		if err != nil {
			return 0, err
		}
		if place > 255 {
			return 0, corrupt("flag position out of range")
		}
		d.flagBuf = uint32(use(&d.chSetC, &d.nToPlC, uint8(place), 0xff))
		d.flagsLeft = 8
	}
	d.flagsLeft--
	b := d.flagBuf >> 7 & 1
	d.flagBuf <<= 1
	return b, nil
}

// copyMatch appends a match; a zero length is a no-op.
func (d *Decoder) copyMatch(dist uint32, length int) error {
	if length == 0 {
		return nil
	}
	if !d.win.Copy(int(dist), length) {
		return errDistance
	}
	return nil
}

// match records a match in the distance history and appends it.
func (d *Decoder) match(dist uint32, length int) error {
	d.dists[d.distPtr&3] = dist
	d.distPtr++
	d.lastDst = dist
	d.lastLen = length
	return d.copyMatch(dist, length)
}

// literal decodes a literal, or in run mode possibly a run-mode escape.
func (d *Decoder) literal() error {
	var c *fixedCode
	switch {
	case d.avrPlc > 0x75ff:
		c = &codeHf4
	case d.avrPlc > 0x5dff:
		c = &codeHf3
	case d.avrPlc > 0x35ff:
		c = &codeHf2
	case d.avrPlc > 0x0dff:
		c = &codeHf1
	default:
		c = &codeHf0
	}
	pos, err := d.decodeNum(c)
	if err != nil {
		return err
	}
	if d.stMode {
		if pos == 0 {
			br := &d.br
			if br.ReadBits(1) == 1 {
				d.numHuf = 0
				d.stMode = false
				return nil
			}
			length := 3 + int(br.ReadBits(1))
			hi, err := d.decodeNum(&codeHf2)
			if err != nil {
				return err
			}
			return d.copyMatch(hi<<5|br.ReadBits(5), length)
		}
		pos--
	} else {
		if d.numHuf >= 16 && d.flagsLeft == 0 {
			d.stMode = true
		}
		d.numHuf++
	}
	pos &= 0xff
	d.avrPlc += pos
	d.avrPlc -= d.avrPlc >> 8
	d.nhfb += 16
	if d.nhfb > 0xff {
		d.nhfb = 0x90
		d.nlzb >>= 1
	}
	d.win.PutByte(byte(use(&d.chSet, &d.nToPl, uint8(pos), 0xa1)))
	return nil
}

// longLZ decodes a long match.
func (d *Decoder) longLZ() error {
	br := &d.br
	d.numHuf = 0
	d.nlzb += 16
	if d.nlzb > 0xff {
		d.nlzb = 0x90
		d.nhfb >>= 1
	}
	oldAvr2 := d.avrLn2
	var length uint32
	var err error
	switch {
	case d.avrLn2 >= 122:
		length, err = d.decodeNum(&codeL2)
	case d.avrLn2 >= 64:
		length, err = d.decodeNum(&codeL1)
	default:
		if br.N < 16 {
			br.Refill()
		}
		v := br.Peek(16)
		if v < 0x100 {
			length = v
			br.Skip(16)
		} else {
			z := uint(bits.LeadingZeros16(uint16(v)))
			length = uint32(z)
			br.Skip(z + 1)
		}
	}
	if err != nil {
		return err
	}
	d.avrLn2 += length
	d.avrLn2 -= d.avrLn2 >> 5

	var c *fixedCode
	switch {
	case d.avrPlcB > 0x28ff:
		c = &codeHf2
	case d.avrPlcB > 0x6ff:
		c = &codeHf1
	default:
		c = &codeHf0
	}
	place, err := d.decodeNum(c)
	if err != nil {
		return err
	}
	if place > 255 {
		return corrupt("distance position out of range")
	}
	d.avrPlcB += place
	d.avrPlcB -= d.avrPlcB >> 8
	hi := use(&d.chSetB, &d.nToPlB, uint8(place), 0xff)
	dist := uint32(hi)<<7 | br.ReadBits(7)

	oldAvr3 := d.avrLn3
	if length != 1 && length != 4 {
		if length == 0 && dist <= d.maxDist3 {
			d.avrLn3++
			d.avrLn3 -= d.avrLn3 >> 8
		} else if d.avrLn3 > 0 {
			d.avrLn3--
		}
	}
	length += 3
	if dist >= d.maxDist3 {
		length++
	}
	if dist <= 256 {
		length += 8
	}
	if oldAvr3 > 0xb0 || (d.avrPlc >= 0x2a00 && oldAvr2 < 0x40) {
		d.maxDist3 = 0x7f00
	} else {
		d.maxDist3 = 0x2001
	}
	return d.match(dist, int(length))
}

// shortLZ decodes a short match or a repeat.
func (d *Decoder) shortLZ() error {
	br := &d.br
	d.numHuf = 0
	if d.lCount == 2 {
		if br.ReadBits(1) == 1 {
			return d.copyMatch(d.lastDst, d.lastLen)
		}
		d.lCount = 0
	}
	avg := 0
	if d.avrLn1 >= 37 {
		avg = 1
	}
	if br.N < 8 {
		br.Refill()
	}
	e := shortTables[avg][d.toggle&1][br.Peek(8)]
	if e&15 == 0 {
		return errCode
	}
	br.Skip(uint(e & 15))
	idx := uint32(e >> 4)
	var dist uint32
	var length uint32
	switch {
	case idx < 9:
		d.lCount = 0
		d.avrLn1 += idx
		d.avrLn1 -= d.avrLn1 >> 4
		place, err := d.decodeNum(&codeHf2)
		if err != nil {
			return err
		}
		place &= 0xff
		v := d.chSetA[place]
		if place > 0 {
			d.chSetA[place] = d.chSetA[place-1]
			d.chSetA[place-1] = v
		}
		dist = uint32(v) + 1
		length = idx + 2
	case idx == 9:
		d.lCount++
		return d.copyMatch(d.lastDst, d.lastLen)
	case idx == 14:
		d.lCount = 0
		l, err := d.decodeNum(&codeL2)
		if err != nil {
			return err
		}
		length = l + 5
		dist = 0x8000 + br.ReadBits(15)
		d.lastDst = dist
		d.lastLen = int(length)
		return d.copyMatch(dist, int(length))
	default: // 10-13
		d.lCount = 0
		dist = d.dists[(d.distPtr-int(idx-9))&3]
		l, err := d.decodeNum(&codeL1)
		if err != nil {
			return err
		}
		length = l + 2
		if length == 0x101 && idx == 10 {
			d.toggle ^= 1
			return nil
		}
		if dist > 256 {
			length++
		}
		if dist >= d.maxDist3 {
			length++
		}
	}
	return d.match(dist, int(length))
}
