package zstd

import (
	"math"
	"sync"
)

// encTablesOnce builds the encoder's tables at the first NewEncoder:
// built by package-level initializers they cost every garc process
// (0.3-0.8 ms of start-up, issue 27), most of which never compress.
var encTablesOnce sync.Once

// buildEncTables builds llSmall, mlSmall, the predefined distributions'
// coding tables, rleTables and log2s.
func buildEncTables() {
	llSmall, mlSmall = smallCodes(llBase[:], 64), smallCodes(mlBase[:], 131)
	llDefaultTable = newCTable(llDefault, 6)
	mlDefaultTable = newCTable(mlDefault, 6)
	ofDefaultTable = newCTable(ofDefault, 5)
	for s := range rleTables {
		rleTables[s] = cTable{log: 0, norm: make([]int16, s+1), states: []uint16{0}, syms: make([]fseSym, s+1)}
		rleTables[s].norm[s] = 1
	}
	log2s = make([]float64, 1<<llMaxLog+1)
	for n := 1; n < len(log2s); n++ {
		log2s[n] = math.Log2(float64(n))
	}
}
