package sevenzip

import (
	"errors"
	"testing"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
)

// TestKDFWorkBudget checks that distinct salts cannot make key derivation
// unbounded: the budget allows two derivations at the highest accepted
// cost, then refuses with ErrLimit, while cached keys stay free.
func TestKDFWorkBudget(t *testing.T) {
	rd := &Reader{opts: &archive.Options{MaxKDFCost: 10}}
	salt := func(i byte) []byte { return []byte{i, 1, 2, 3} }
	for i := byte(0); i < 2; i++ {
		if _, err := rd.key7z("pw", salt(i), 10); err != nil {
			t.Fatalf("derivation %d: %v", i, err)
		}
	}
	if _, err := rd.key7z("pw", salt(0), 10); err != nil {
		t.Fatalf("cached key refused: %v", err)
	}
	_, err := rd.key7z("pw", salt(9), 10)
	if !errors.Is(err, archive.ErrLimit) {
		t.Fatalf("third distinct salt: %v, want ErrLimit", err)
	}
	// Cheap derivations fit many times into the budget.
	rd = &Reader{opts: &archive.Options{MaxKDFCost: 10}}
	for i := byte(0); i < 30; i++ {
		if _, err := rd.key7z("pw", salt(i), 6); err != nil {
			t.Fatalf("cheap derivation %d: %v", i, err)
		}
	}
	// The keys (secrets) and the charged salts are bounded.
	if rd.keys.Len() > aes.DefaultKeyCacheSize || len(rd.kdfCharged) > aes.DefaultKeyCacheSize {
		t.Errorf("%d keys, %d charged salts kept", rd.keys.Len(), len(rd.kdfCharged))
	}
	rd.Close()
	if rd.keys.Len() != 0 {
		t.Error("Close keeps derived keys")
	}
}
