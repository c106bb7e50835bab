package lzcore

// PrecodeSyms is the number of symbols of the precode that RAR 2.9-4.x
// and RAR5 use to send the code lengths of their main tables.
const PrecodeSyms = 20

// ReadCodeLengths reads code lengths in the form shared by RAR 2.9-4.x
// and RAR5: first the PrecodeSyms precode lengths, four bits each, where
// 15 followed by a nonzero four-bit count n stands for n+2 zeros; then
// precode symbols until lens is full: 0-15 a length, 16 and 17 repeat the
// previous length 3+(3 bits) or 11+(7 bits) times, 18 and 19 give as many
// zeros. With add (RAR 2.9-4.x), symbols 0-15 are added modulo 16 to the
// length lens already holds from the previous table instead of replacing
// it. pre is scratch space for the precode's decoder.
//
// It reports false when a repeat has no previous length. A truncated
// stream reads as zero bits; the caller checks br.Truncated.
func ReadCodeLengths(br *BitReader, pre *Huffman, lens []byte, add bool) bool {
	var bl [PrecodeSyms]byte
	for i := 0; i < PrecodeSyms; {
		l := byte(br.ReadBits(4))
		if l == 15 {
			z := int(br.ReadBits(4))
			if z != 0 {
				for z += 2; z > 0 && i < PrecodeSyms; z-- {
					bl[i] = 0
					i++
				}
				continue
			}
		}
		bl[i] = l
		i++
	}
	pre.Init(bl[:])
	n := len(lens)
	for i := 0; i < n; {
		br.Refill()
		s := pre.Decode(br)
		switch {
		case s < 16:
			if add {
				lens[i] = (lens[i] + byte(s)) & 15
			} else {
				lens[i] = byte(s)
			}
			i++
		case s < 18:
			if i == 0 {
				return false
			}
			var cnt int
			if s == 16 {
				cnt = 3 + int(br.ReadBits(3))
			} else {
				cnt = 11 + int(br.ReadBits(7))
			}
			v := lens[i-1]
			for ; cnt > 0 && i < n; cnt-- {
				lens[i] = v
				i++
			}
		default:
			var cnt int
			if s == 18 {
				cnt = 3 + int(br.ReadBits(3))
			} else {
				cnt = 11 + int(br.ReadBits(7))
			}
			for ; cnt > 0 && i < n; cnt-- {
				lens[i] = 0
				i++
			}
		}
	}
	return true
}
