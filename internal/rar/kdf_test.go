package rar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// encryptionRecord returns a RAR5 file encryption extra record with the
// given log2 iteration count.
func encryptionRecord(lg2 byte) []byte {
	var rec []byte
	rec = appendVint(rec, 1) // type: encryption
	rec = appendVint(rec, 0) // version
	rec = appendVint(rec, 0) // flags
	rec = append(rec, lg2)
	rec = append(rec, make([]byte, 32)...) // salt, IV
	return append(appendVint(nil, uint64(len(rec))), rec...)
}

// TestKDFCostLimit: a RAR5 key-derivation cost above the limit is a
// *LimitError (exit 8), like every other cost above its limit, for any
// exponent the one-byte field can hold — 64 and 255 used to be reported
// as corrupt data (exit 2) — and it is refused before a password is asked
// for.
func TestKDFCostLimit(t *testing.T) {
	for _, lg2 := range []byte{defaultMaxKDF + 1, 63, 64, 200, 255} {
		calls := 0
		opts := pwOpts("pw", &calls)
		check := func(what string, err error) {
			t.Helper()
			var le *archive.LimitError
			if !errors.As(err, &le) || !errors.Is(err, archive.ErrLimit) {
				t.Errorf("lg2 %d, %s: want a LimitError, got %v", lg2, what, err)
			}
			if calls != 0 {
				t.Errorf("lg2 %d, %s: the password was asked for", lg2, what)
			}
		}
		// Encrypted headers: refused by Open.
		hdr := newRAR5Builder().main(0).crypt(lg2).bytes()
		_, err := NewReader(bytes.NewReader(hdr), int64(len(hdr)), opts)
		check("encrypted headers", err)

		// Encrypted data: refused when the entry is extracted.
		data := newRAR5Builder().main(0).file("f", make([]byte, 16), encryptionRecord(lg2)).end(false).bytes()
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatalf("lg2 %d: %v", lg2, err)
		}
		var entryErr error
		err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
			_, entryErr = io.Copy(io.Discard, rd)
			return nil
		})
		if err == nil {
			err = entryErr
		}
		check("encrypted data", err)
		r.Close()

		// A raised limit never goes beyond what PBKDF2 can count.
		calls = 0
		if lg2 > 63 {
			r := newReader(&archive.Options{MaxKDFCost: 300, Password: opts.Password})
			_, err := r.rar5Keys(make([]byte, 16), int(lg2))
			check("MaxKDFCost 300", err)
		}
	}
}
