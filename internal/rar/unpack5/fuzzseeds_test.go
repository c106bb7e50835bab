package unpack5

import (
	"flag"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/rar/rartest"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated fuzz seed corpora under testdata/fuzz")

// TestFuzzSeeds keeps testdata/fuzz in step with small synthetic streams
// (both algorithm versions, with and without filters, several blocks):
// go test -run TestFuzzSeeds -update-seeds rewrites them.
func TestFuzzSeeds(t *testing.T) {
	rng := rand.New(rand.NewSource(55))
	decode := map[string][]any{}
	tables := map[string][]any{}
	for _, c := range []struct {
		name    string
		version int
		filters bool
	}{{"v0", 0, false}, {"v0-filters", 0, true}, {"v1", 1, false}, {"v1-filters", 1, true}} {
		ops, _ := synthesize(rng, 1500, 64<<10, c.filters)
		var w bitWriter
		half := len(ops) / 2
		synthBlock(&w, ops[:half], false, true, c.version)
		synthBlock(&w, ops[half:], true, false, c.version)
		w.Align()
		// mode: unknown size (4), version in the top bit
		decode[c.name] = []any{w.Buf, uint8(4 | c.version<<7)}
		if c.version == 1 {
			tables[c.name] = []any{w.Buf[3:min(len(w.Buf), 300)]}
		}
	}
	rartest.CheckSeeds(t, "FuzzDecode", decode, *updateSeeds)
	rartest.CheckSeeds(t, "FuzzTables", tables, *updateSeeds)
}
