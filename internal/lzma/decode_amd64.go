package lzma

//go:generate python3 ../../scripts/gen-lzma-decode-asm.py

// decodeByteAsm is decodeByte in assembly (decode_amd64.s): each bit is a
// compare and conditional moves, as in 7-Zip's LzmaDecOpt.asm, so that the
// chain through the range is a shift, a multiplication, a subtraction and
// a move (the compiler makes masks or branches of it). in must hold 8
// bytes at ip.
//
//go:noescape
func decodeByteAsm(probs *[0x100]uint16, rng, code uint32, in []byte, ip int) (sym, rng2, code2 uint32, ip2 int)

// decodeLiteral decodes an unmatched literal with the coder probs: in
// assembly when in holds 8 bytes at ip, as the decoder's loop makes sure,
// else with decodeByte.
func decodeLiteral(probs *[0x100]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	if ip < 0 || len(in)-ip < 8 { // the assembly reads up to 8 bytes unchecked
		return decodeByte(probs, rng, code, in, ip)
	}
	return decodeByteAsm(probs, rng, code, in, ip)
}

// decodeMatchedLiteralAsm is decodeMatchedLiteral in assembly, with the
// bit decoding of decodeByteAsm. in must hold 8 bytes at ip.
//
//go:noescape
func decodeMatchedLiteralAsm(probs *[matchedLiteralProbs]uint16, match uint32, rng, code uint32, in []byte, ip int) (sym, rng2, code2 uint32, ip2 int)

// decodeMatchedLit decodes a literal after a match against the byte match
// (see decodeMatchedLiteral): in assembly when in holds 8 bytes at ip.
func decodeMatchedLit(probs *[matchedLiteralProbs]uint16, match uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	if ip < 0 || len(in)-ip < 8 { // the assembly reads up to 8 bytes unchecked
		return decodeMatchedLiteral(probs, match, rng, code, in, ip)
	}
	return decodeMatchedLiteralAsm(probs, match, rng, code, in, ip)
}

// decodeDistanceAsm is decodeDistance in assembly, with the bit decoding
// of decodeByteAsm. in must hold 36 bytes at ip (6 slot bits, at most 26
// direct and 4 aligned).
//
//go:noescape
func decodeDistanceAsm(probs *[offLiteral]uint16, length uint32, rng, code uint32, in []byte, ip int) (dist, rng2, code2 uint32, ip2 int)

// decodeDist decodes the distance of a simple match whose length
// (0-based) is length (see decodeDistance): in assembly when in holds 36
// bytes at ip.
func decodeDist(probs *[offLiteral]uint16, length uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	if ip < 0 || len(in)-ip < 36 { // the assembly reads up to 36 bytes unchecked
		return decodeDistance(probs[:], length, rng, code, in, ip)
	}
	return decodeDistanceAsm(probs, length, rng, code, in, ip)
}
