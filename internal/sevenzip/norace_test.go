//go:build !race

package sevenzip

// raceEnabled says whether the race detector is on (it adds allocations).
const raceEnabled = false
