package lzma

// ChunkHeaderLen is the length of the LZMA2 chunk header whose control
// byte is c: 3 for an uncompressed chunk (1 resets the dictionary, 2 does
// not), 5 for an LZMA chunk (0x80–0xBF), 6 for one that also carries new
// properties (0xC0–0xFF), and 0 for the end marker (0) or a control byte
// no chunk starts with (3–0x7F).
func ChunkHeaderLen(c byte) int {
	switch {
	case c == 1 || c == 2:
		return 3
	case c >= 0xC0:
		return 6
	case c >= 0x80:
		return 5
	}
	return 0
}

// ChunkSizes returns the unpacked and packed sizes of the LZMA2 chunk
// whose header h holds at least its ChunkHeaderLen(h[0]) bytes (packed is
// the header's data after it: for an uncompressed chunk, its bytes).
func ChunkSizes(h []byte) (unpacked, packed int) {
	c := h[0]
	if c < 0x80 {
		unpacked = int(h[1])<<8 | int(h[2]) + 1
		return unpacked, unpacked
	}
	return int(c&0x1F)<<16 | int(h[1])<<8 | int(h[2]) + 1, int(h[3])<<8 | int(h[4]) + 1
}
