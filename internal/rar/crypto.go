package rar

import (
	"bytes"
	"crypto/sha256"
	"io"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
)

// defaultMaxKDF is the largest RAR5 PBKDF2 log2 iteration count accepted
// by default (the format's own maximum).
const defaultMaxKDF = 24

// maxLg2Count is the largest log2 iteration count PBKDF2's 64-bit
// iteration counter can express; Options.MaxKDFCost cannot raise the
// limit above it.
const maxLg2Count = 63

// maxDistinctSalts bounds the key derivations one archive can demand
// (each costs milliseconds to seconds), so hostile archives with a new salt
// per header cannot stall the reader.
const maxDistinctSalts = 64

// kdfWorkFactor bounds the total RAR5 key-derivation work of one archive
// to that many derivations at the largest accepted iteration count: the
// salt cap alone still let 64 salts at 2^24 iterations cost minutes.
// Real archives use 2^15 iterations and rarely more than one salt.
const kdfWorkFactor = 2

// sharedKeys caches derived keys across Readers (volumes opened again,
// repeated test runs), bounded to aes.DefaultKeyCacheSize entries.
var sharedKeys aes.KeyCache

type rar5Keys struct {
	key, hashKey [32]byte
	check        [8]byte
}

type rar3Keys struct {
	key, iv [16]byte
}

// keyCache remembers derived keys per salt, so volumes and entries sharing
// a salt pay the key derivation once.
type keyCache struct {
	r5   map[string]*rar5Keys
	r3   map[string]*rar3Keys
	work uint64 // RAR5 PBKDF2 iterations asked for so far
}

// rar5Keys derives (or recalls) the RAR5 keys for salt and lg2Count.
func (r *reader) rar5Keys(salt []byte, lg2Count int) (*rar5Keys, error) {
	limit := r.opts.MaxKDFCost
	if limit <= 0 {
		limit = defaultMaxKDF
	}
	limit = min(limit, maxLg2Count)
	if lg2Count < 0 || lg2Count > limit {
		// Refused before the password is asked for: no prompt for an
		// archive that cannot be opened anyway. The field is one byte,
		// so this also covers counts above the 2^63 that PBKDF2's
		// 64-bit counter could express.
		return nil, &archive.LimitError{What: "RAR5 key derivation iterations log2", Need: int64(lg2Count), Limit: int64(limit), Fixed: true}
	}
	pw, err := r.password()
	if err != nil {
		return nil, err
	}
	id := string(salt) + string(rune(lg2Count))
	if k := r.keys.r5[id]; k != nil {
		return k, nil
	}
	if len(r.keys.r5) >= maxDistinctSalts {
		return nil, &archive.LimitError{What: "distinct RAR5 encryption salts", Need: int64(len(r.keys.r5) + 1), Limit: maxDistinctSalts, Fixed: true}
	}
	if limit < 60 {
		budget := uint64(kdfWorkFactor) << limit
		if need := r.keys.work + 1<<lg2Count; need > budget {
			return nil, &archive.LimitError{What: "RAR5 key derivation iterations (all salts)", Need: int64(need), Limit: int64(budget), Fixed: true}
		}
		r.keys.work += 1 << lg2Count
	}
	key, hashKey, check, err := sharedKeys.KeyRAR5(pw, salt, lg2Count, limit)
	if err != nil {
		return nil, err
	}
	k := &rar5Keys{key: key, hashKey: hashKey, check: check}
	if r.keys.r5 == nil {
		r.keys.r5 = map[string]*rar5Keys{}
	}
	r.keys.r5[id] = k
	return k, nil
}

// checkRAR5Password compares the derived check value with the stored one
// (8 bytes of value followed by 4 bytes of its SHA-256). A damaged stored
// value (its own checksum fails) is ignored rather than blamed on the
// password.
func checkRAR5Password(k *rar5Keys, stored *[12]byte) error {
	if stored == nil {
		return nil
	}
	sum := sha256.Sum256(stored[:8])
	if !bytes.Equal(sum[:4], stored[8:12]) {
		return nil
	}
	if !bytes.Equal(k.check[:], stored[:8]) {
		return archive.ErrWrongPassword
	}
	return nil
}

// rar3Keys derives (or recalls) the RAR 2.9–4.x AES key and IV for salt.
func (r *reader) rar3Keys(salt []byte) (*rar3Keys, error) {
	pw, err := r.password()
	if err != nil {
		return nil, err
	}
	id := string(salt)
	if k := r.keys.r3[id]; k != nil {
		return k, nil
	}
	if len(r.keys.r3) >= maxDistinctSalts {
		return nil, &archive.LimitError{What: "distinct RAR3 encryption salts", Need: int64(len(r.keys.r3) + 1), Limit: maxDistinctSalts, Fixed: true}
	}
	key, iv := sharedKeys.KeyRAR3(pw, salt)
	k := &rar3Keys{key: key, iv: iv}
	if r.keys.r3 == nil {
		r.keys.r3 = map[string]*rar3Keys{}
	}
	r.keys.r3[id] = k
	return k, nil
}

// decryptReader is an io.Reader that must be closed to return its buffer.
type decryptReader interface {
	io.Reader
	Close() error
}

func newAESReader(src io.Reader, key, iv []byte) (decryptReader, error) {
	d, err := aes.NewDecryptReader(src, key, iv)
	if err != nil {
		return nil, err
	}
	return d, nil
}
