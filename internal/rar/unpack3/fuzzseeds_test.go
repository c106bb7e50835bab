package unpack3

import (
	"flag"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated fuzz seed corpora under testdata/fuzz")

// TestFuzzSeeds keeps testdata/fuzz in step with small synthetic LZ
// streams: go test -run TestFuzzSeeds -update-seeds rewrites them.
func TestFuzzSeeds(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	decode := map[string][]any{}
	tables := map[string][]any{}
	for i, n := range []int{200, 1500, 4000} {
		ops, _ := synth3(rng, n, 64<<10)
		var w bitWriter
		writeOps(&w, ops)
		name := []string{"small", "medium", "large"}[i]
		decode[name] = []any{w.Buf, uint8(4)} // unknown size
		tables[name] = []any{w.Buf[:min(len(w.Buf), 300)]}
	}
	rartest.CheckSeeds(t, "FuzzDecode", decode, *updateSeeds)
	rartest.CheckSeeds(t, "FuzzTables", tables, *updateSeeds)
}
