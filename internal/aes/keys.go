package aes

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
)

// Cost limits of the key derivations.
const (
	// MaxCycles7z is the default limit on the 7z cycles power (2^n SHA-256
	// rounds); 7-Zip refuses more than 24 as well.
	MaxCycles7z = 24
	// MaxLg2CountRAR5 is the limit on the RAR 5.0 PBKDF2 iteration count
	// exponent, as unrar's.
	MaxLg2CountRAR5 = 24
	// cycles7zRaw is the 7z cycles power meaning "no hashing".
	cycles7zRaw = 0x3f
	// maxPasswordRAR3 bounds the UTF-16 units of a RAR 3.x password, as
	// RAR itself (127 characters).
	maxPasswordRAR3 = 127
	// roundsRAR3 is the fixed SHA-1 round count of RAR 2.9–4.x.
	roundsRAR3 = 0x40000
)

// appendUTF16LE appends s as UTF-16LE (with surrogate pairs for characters
// outside the BMP; invalid UTF-8 bytes become U+FFFD) and returns the
// number of UTF-16 units appended.
func appendUTF16LE(b []byte, s string, maxUnits int) ([]byte, int) {
	units := 0
	for len(s) > 0 && units < maxUnits {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			if units+2 > maxUnits {
				break
			}
			b = binary.LittleEndian.AppendUint16(b, uint16(r1))
			b = binary.LittleEndian.AppendUint16(b, uint16(r2))
			units += 2
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
		units++
	}
	return b, units
}

func limitErr(what string, need, limit int) error {
	return &archive.LimitError{What: what, Need: int64(need), Limit: int64(limit), Fixed: true}
}

// Key7z derives the AES-256 key of 7-Zip's 7zAES coder with the default
// cost limit MaxCycles7z. See Key7zLimit.
func Key7z(password string, salt []byte, cyclesPower int) ([32]byte, error) {
	return Key7zLimit(password, salt, cyclesPower, MaxCycles7z)
}

// Key7zLimit derives the AES-256 key of 7-Zip's 7zAES coder: SHA-256 over
// 2^cyclesPower repetitions of salt || UTF-16LE(password) || the round
// number as 8 little-endian bytes. cyclesPower 0x3F is the special
// "no hashing" case where the key is salt || UTF-16LE(password) truncated
// or zero-padded to 32 bytes. A cyclesPower above limit (but not 0x3F)
// is refused with an error wrapping archive.ErrLimit; limit <= 0 means
// MaxCycles7z. Salt is at most 16 bytes in 7z.
func Key7zLimit(password string, salt []byte, cyclesPower, limit int) ([32]byte, error) {
	var key [32]byte
	if limit <= 0 {
		limit = MaxCycles7z
	}
	if cyclesPower < 0 || cyclesPower > 63 {
		return key, fmt.Errorf("%w: 7zAES cycles power %d", archive.ErrFormat, cyclesPower)
	}
	if cyclesPower != cycles7zRaw && cyclesPower > limit {
		return key, limitErr("7zAES key derivation cycles power", cyclesPower, limit)
	}
	// One small buffer holds salt || password || counter; only the counter
	// changes from round to round.
	msg := make([]byte, 0, len(salt)+2*len(password)+8)
	msg = append(msg, salt...)
	msg, _ = appendUTF16LE(msg, password, 1<<30)
	if cyclesPower == cycles7zRaw {
		copy(key[:], msg)
		clear(msg)
		return key, nil
	}
	ctrAt := len(msg)
	msg = append(msg, make([]byte, 8)...)
	h := sha256.New()
	rounds := uint64(1) << cyclesPower
	for i := uint64(0); i < rounds; i++ {
		binary.LittleEndian.PutUint64(msg[ctrAt:], i)
		h.Write(msg)
	}
	h.Sum(key[:0])
	clear(msg)
	return key, nil
}

// KeyRAR5Limit derives the RAR 5.0 keys from a UTF-8 password, the 16-byte
// salt and the iteration count exponent of the encryption record:
// PBKDF2-HMAC-SHA256 (one block) with 2^lg2Count iterations gives the
// AES-256 key; continuing the same chain for 16 more iterations gives the
// hash key (for RAR5MAC* in package checksum), and 16 more the password
// check value, whose 32 bytes are XOR-folded to 8 (byte i into i mod 8).
// The whole chain is computed once. lg2Count above limit (limit <= 0
// means MaxLg2CountRAR5) is refused with an error wrapping
// archive.ErrLimit.
func KeyRAR5Limit(password string, salt []byte, lg2Count, limit int) (key, hashKey [32]byte, pswCheck [8]byte, err error) {
	if limit <= 0 {
		limit = MaxLg2CountRAR5
	}
	if lg2Count < 0 || lg2Count > 63 {
		err = fmt.Errorf("%w: RAR5 KDF count exponent %d", archive.ErrFormat, lg2Count)
		return
	}
	if lg2Count > limit {
		err = limitErr("RAR5 key derivation iterations log2", lg2Count, limit)
		return
	}
	prf := hmac.New(sha256.New, []byte(password))
	prf.Write(salt)
	prf.Write([]byte{0, 0, 0, 1}) // PBKDF2 block index 1
	var u, f [32]byte
	prf.Sum(u[:0])
	f = u
	iterate := func(n uint64) {
		for ; n > 0; n-- {
			prf.Reset()
			prf.Write(u[:])
			prf.Sum(u[:0])
			for i := range f {
				f[i] ^= u[i]
			}
		}
	}
	iterate(uint64(1)<<lg2Count - 1)
	key = f
	iterate(16)
	hashKey = f
	iterate(16)
	for i, b := range f {
		pswCheck[i%8] ^= b
	}
	clear(u[:])
	clear(f[:])
	return
}

// KeyRAR3 derives the AES-128 key and IV of RAR 2.9–4.x from the password
// (UTF-16LE, at most 127 units) and the optional 8-byte salt (nil when the
// archive has none).
//
// The scheme: 0x40000 rounds, each feeding SHA-1 with raw || round number
// (3 bytes little-endian), where raw is UTF-16LE(password) || salt. Every
// 0x4000 rounds (at rounds 0, 0x4000, …) the last byte of the
// intermediate digest becomes the next IV byte. The key is the first 16
// bytes of the final digest with each 4-byte word byte-reversed.
//
// RAR's own SHA-1 expanded the message schedule in place, in the caller's
// buffer, for blocks it hashed straight from that buffer; when raw is long
// enough to contain such blocks, later rounds hash the altered bytes. We
// reproduce that (see rar3ScrambleBlock), which matters for passwords of
// roughly 28 characters and more.
func KeyRAR3(password string, salt []byte) (key [16]byte, iv [16]byte) {
	var rawBuf [2*maxPasswordRAR3 + 8]byte
	raw, _ := appendUTF16LE(rawBuf[:0], password, maxPasswordRAR3)
	raw = append(raw, salt[:min(len(salt), 8)]...)

	h := sha1.New()
	var ctr [3]byte
	var digest [sha1.Size]byte
	pos := uint64(0) // bytes fed to SHA-1 so far
	for i := 0; i < roundsRAR3; i++ {
		h.Write(raw)
		rar3Scramble(raw, pos)
		pos += uint64(len(raw))
		ctr[0], ctr[1], ctr[2] = byte(i), byte(i>>8), byte(i>>16)
		h.Write(ctr[:])
		pos += 3
		if i%(roundsRAR3/16) == 0 {
			h.Sum(digest[:0])
			iv[i/(roundsRAR3/16)] = digest[19]
		}
	}
	h.Sum(digest[:0])
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			key[4*i+j] = digest[4*i+3-j]
		}
	}
	clear(rawBuf[:])
	clear(digest[:])
	return key, iv
}

// rar3Scramble applies RAR's in-place SHA-1 side effect to raw, which was
// just hashed starting at stream offset pos. RAR's SHA-1 first completed
// its internal partial block by copying; every later 64-byte block lying
// entirely inside raw was then transformed directly from raw, leaving the
// last 16 words of the expanded schedule in it.
func rar3Scramble(raw []byte, pos uint64) {
	end := pos + uint64(len(raw))
	// First block boundary strictly after pos: blocks starting there are
	// the ones hashed in place.
	for s := (pos &^ 63) + 64; s+64 <= end; s += 64 {
		rar3ScrambleBlock(raw[s-pos : s-pos+64])
	}
}

// rar3ScrambleBlock replaces a 64-byte block by words 64..79 of its SHA-1
// message schedule, stored little-endian (RAR ran on little-endian
// machines and kept the schedule in native byte order).
func rar3ScrambleBlock(b []byte) {
	var w [16]uint32
	for i := range w {
		w[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	for i := 16; i < 80; i++ {
		t := w[(i-3)&15] ^ w[(i-8)&15] ^ w[(i-14)&15] ^ w[i&15]
		w[i&15] = t<<1 | t>>31
	}
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
}
