package rar

import (
	"errors"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestPPMdMemoryLimit: the PPMd model size of RAR 2.9–4.x blocks comes
// from the packed stream, not the file header; Options.MaxDict must bound
// it too (it used to be ignored, so --max-dict could not stop a 256 MiB
// model allocation).
func TestPPMdMemoryLimit(t *testing.T) {
	cases := []struct {
		unit  string
		limit int64
		fail  bool
	}{
		// MaxMB=63: a 64 MiB model.
		{"files/junrar/com__github__junrar__ppm__legit-maxmb63.rar", 32 << 20, true},
		{"files/junrar/com__github__junrar__ppm__legit-maxmb63.rar", 64 << 20, false},
		{"files/junrar/com__github__junrar__ppm__legit-maxmb63.rar", 0, false},
		// MaxMB=255: a 256 MiB model for a small file.
		{"files/junrar/com__github__junrar__ppm__hostile-maxmb255.rar", 64 << 20, true},
	}
	for _, c := range cases {
		r, err := Open(corpusFile(t, c.unit), &archive.Options{MaxDict: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		n, err := extractErrors(t, r)
		r.Close()
		var le *archive.LimitError
		if c.fail {
			if !errors.As(err, &le) || le.What != "PPMd memory" {
				t.Errorf("%s with limit %d: want a PPMd memory LimitError, got %v", c.unit, c.limit, err)
			}
		} else if err != nil || n == 0 {
			t.Errorf("%s with limit %d: %d bytes, %v", c.unit, c.limit, n, err)
		}
	}
}

// TestKDFWorkBudget: the iterations of all RAR5 key derivations of one
// archive are bounded, not only their count and each one's cost.
func TestKDFWorkBudget(t *testing.T) {
	r := newReader(&archive.Options{
		MaxKDFCost: 8,
		Password:   func() (string, error) { return "pw", nil },
	})
	// Budget: kdfWorkFactor derivations at 2^8 iterations.
	salt := func(i int) []byte { s := make([]byte, 16); s[0] = byte(i); return s }
	for i := 0; i < kdfWorkFactor; i++ {
		if _, err := r.rar5Keys(salt(i), 8); err != nil {
			t.Fatalf("derivation %d within the budget: %v", i, err)
		}
	}
	// A salt seen before costs nothing.
	if _, err := r.rar5Keys(salt(0), 8); err != nil {
		t.Fatalf("cached derivation: %v", err)
	}
	_, err := r.rar5Keys(salt(99), 8)
	var le *archive.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("derivation beyond the budget: want a LimitError, got %v", err)
	}
	// Cheap derivations still fit many times.
	r = newReader(&archive.Options{Password: func() (string, error) { return "pw", nil }})
	for i := 0; i < maxDistinctSalts; i++ {
		if _, err := r.rar5Keys(salt(i), 4); err != nil {
			t.Fatalf("cheap derivation %d: %v", i, err)
		}
	}
}
