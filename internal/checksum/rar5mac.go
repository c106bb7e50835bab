package checksum

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// RAR5MACCRC32 converts a plain CRC-32 into the value a RAR 5.0 archive
// stores for an encrypted file whose encryption record has the "use MAC"
// flag: HMAC-SHA256 keyed with the hash key (see aes.KeyRAR5) over the
// CRC's four little-endian bytes, with the 32-byte MAC folded to 32 bits by
// XORing byte i into byte i mod 4, read as little-endian.
func RAR5MACCRC32(hashKey []byte, crc uint32) uint32 {
	var raw [4]byte
	binary.LittleEndian.PutUint32(raw[:], crc)
	m := hmac.New(sha256.New, hashKey)
	m.Write(raw[:])
	var mac [32]byte
	m.Sum(mac[:0])
	var folded [4]byte
	for i, b := range mac {
		folded[i&3] ^= b
	}
	return binary.LittleEndian.Uint32(folded[:])
}

// RAR5MACBLAKE2sp converts a BLAKE2sp digest into the value a RAR 5.0
// archive stores for an encrypted file with the "use MAC" flag:
// HMAC-SHA256 keyed with the hash key over the 32-byte digest.
func RAR5MACBLAKE2sp(hashKey []byte, sum []byte) [32]byte {
	m := hmac.New(sha256.New, hashKey)
	m.Write(sum)
	var mac [32]byte
	m.Sum(mac[:0])
	return mac
}
