package filters

// NewDelta returns the 7z Delta converter (method 03): each byte is stored as
// its difference to the byte distance positions earlier. distance is the
// properties byte + 1 (1..256); values outside that range are clamped to it.
func NewDelta(encode bool, distance int) Converter {
	if distance < 1 {
		distance = 1
	}
	if distance > 256 {
		distance = 256
	}
	return &deltaConverter{encode: encode, dist: distance}
}

// deltaConverter keeps the last dist plain bytes in hist, oldest first.
type deltaConverter struct {
	encode bool
	dist   int
	hist   [256]byte
	tmp    [256]byte
}

func (c *deltaConverter) Reset() { c.hist = [256]byte{} }

func (c *deltaConverter) Convert(buf []byte) int {
	n := len(buf)
	if n == 0 {
		return 0
	}
	d := c.dist
	hist := c.hist[:d]
	if c.encode {
		// Save the new history before buf is overwritten, then subtract
		// from the end backwards so earlier plain bytes are still intact.
		next := c.tmp[:d]
		if n >= d {
			copy(next, buf[n-d:])
		} else {
			copy(next, hist[n:])
			copy(next[d-n:], buf)
		}
		if n > d {
			// Backwards, so buf[i-d] is still plain when buf[i] is coded.
			dst, src := buf[d:n], buf[:n-d]
			for i := len(dst) - 1; i >= 0; i-- {
				dst[i] -= src[i]
			}
		}
		for i := 0; i < d && i < n; i++ {
			buf[i] -= hist[i]
		}
		copy(hist, next)
		return n
	}
	i := 0
	for ; i < d && i < n; i++ {
		buf[i] += hist[i]
	}
	if n > d {
		if d == 1 {
			acc := buf[0]
			rest := buf[1:n]
			for j := range rest {
				acc += rest[j]
				rest[j] = acc
			}
		} else {
			dst, src := buf[d:n], buf[:n-d]
			src = src[:len(dst)]
			for j := range dst {
				dst[j] += src[j]
			}
		}
	}
	if n >= d {
		copy(hist, buf[n-d:])
	} else {
		copy(hist, hist[n:])
		copy(hist[d-n:], buf)
	}
	return n
}
