//go:build race

package sevenzip

const raceEnabled = true
