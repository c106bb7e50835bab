package unpack20

import (
	"flag"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated fuzz seed corpora under testdata/fuzz")

// TestFuzzSeeds keeps testdata/fuzz in step with small synthetic solid
// pairs (LZ and audio tables, switches between them): go test -run
// TestFuzzSeeds -update-seeds rewrites them.
func TestFuzzSeeds(t *testing.T) {
	seeds := map[string][]any{}
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		files, _ := makeStream(seed, 2, 1200)
		data := append(append([]byte(nil), files[0].packed...), files[1].packed...)
		seeds[string(rune('a'+seed-1))] = []any{data, uint32(files[0].size), uint16(len(files[0].packed)), uint32(files[1].size)}
	}
	rartest.CheckSeeds(t, "FuzzDecoder", seeds, *updateSeeds)
}
