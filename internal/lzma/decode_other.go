//go:build !amd64

package lzma

// decodeLiteral decodes an unmatched literal with the coder probs; in must
// hold 8 bytes at ip (see decodeByte).
func decodeLiteral(probs *[0x100]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	return decodeByte(probs, rng, code, in, ip)
}

// decodeMatchedLit decodes a literal after a match against the byte match
// (see decodeMatchedLiteral); in must hold 8 bytes at ip.
func decodeMatchedLit(probs *[matchedLiteralProbs]uint16, match uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	return decodeMatchedLiteral(probs, match, rng, code, in, ip)
}

// decodeDist decodes the distance of a simple match whose length
// (0-based) is length (see decodeDistance); in must hold 36 bytes at ip.
func decodeDist(probs *[offLiteral]uint16, length uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	return decodeDistance(probs[:], length, rng, code, in, ip)
}
