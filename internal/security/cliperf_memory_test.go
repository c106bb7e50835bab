package security

import (
	"os"
	"path/filepath"
	"testing"
)

// TestManyEntriesWithinMaxDict: x, t and l of a 7z declaring a million
// empty entries, with a --max-dict that admits its header, stay within
// --max-dict + 256 MiB (issue 11.5): the garbage collector must not let
// the heap grow to twice the live heap.
func TestManyEntriesWithinMaxDict(t *testing.T) {
	dir := t.TempDir()
	arc := filepath.Join(dir, "many.7z")
	if err := os.WriteFile(arc, manyEntries7z(1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 512 << 20
	for _, cmd := range []string{"x", "t", "l"} {
		args := []string{cmd, "--max-dict", "512m", arc}
		if cmd == "x" {
			args = append(args, "-o"+filepath.Join(dir, "out"), "-y")
		}
		code, rss := peakRSS(t, dir, args...)
		t.Logf("%s: exit %d, peak RSS %d MiB", cmd, code, rss>>20)
		if code != 0 {
			t.Errorf("%s: exit %d, want 0", cmd, code)
		}
		if rss > limit+256<<20 {
			t.Errorf("%s: peak RSS %d MiB, above --max-dict + 256 MiB", cmd, rss>>20)
		}
	}
}
