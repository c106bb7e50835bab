package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestBzip2DamageOffsetThreads: t of a .bz2 of four 900 kB blocks damaged
// in its third block reports the damage at the same input offset with
// --threads 1 and --threads 2 (blocks decoded in parallel, the stream
// read ahead), one at or after the damage, where decoding stopped. The
// symbol loop used to report where it had last refilled its bit buffer,
// which depends on how the input was buffered: before the damage, and
// another offset with two threads (720835 against 693105 in the report).
func TestBzip2DamageOffsetThreads(t *testing.T) {
	dir := t.TempDir()
	var text []byte
	r := rand.New(rand.NewPCG(27, 2))
	for i := 1000000; len(text) < 3300000; i += 1 + r.IntN(5) {
		text = strconv.AppendInt(text, int64(i), 10)
		text = append(text, '\n')
	}
	os.WriteFile(filepath.Join(dir, "n"), text, 0o644)
	comp := toolOutput(t, dir, "bzip2", "-9", "-c", "n")
	offset := regexp.MustCompile(`packed offset (\d+)`)
	located := 0
	for k := range 4 {
		at := len(comp)*5/8 + k*len(comp)/40 // inside the third block
		bad := append([]byte(nil), comp...)
		for i := range 200 {
			bad[at+i] = byte(r.IntN(256))
		}
		os.WriteFile(filepath.Join(dir, "bad.bz2"), bad, 0o644)
		one := garc(t, dir, "", "t", "--threads", "1", "bad.bz2")
		two := garc(t, dir, "", "t", "--threads", "2", "bad.bz2")
		if one.code == ExitOK || two.code != one.code || two.stderr != one.stderr {
			t.Fatalf("damage at %d: --threads 1 exit %d:\n%s\n--threads 2 exit %d:\n%s", at, one.code, one.stderr, two.code, two.stderr)
		}
		m := offset.FindStringSubmatch(one.stderr)
		if m == nil {
			continue // a checksum mismatch: the damage decoded to other symbols
		}
		located++
		if off, _ := strconv.Atoi(m[1]); off < at {
			t.Errorf("damage at %d..%d reported at offset %d:\n%s", at, at+200, off, one.stderr)
		}
	}
	if located == 0 {
		t.Error("no damaged stream gave a located error")
	}
}
