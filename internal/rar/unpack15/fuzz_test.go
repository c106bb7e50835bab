package unpack15

import (
	"testing"

	"github.com/garc-dev/garc/internal/corpus"
	"github.com/garc-dev/garc/internal/rar/rartest"
)

// FuzzDecoder decodes data[:split] as one file and the rest as a solid
// continuation, each of the given size: no panic, no more output than the
// size, errors wrap ErrFormat. Seeded from the corpus.
func FuzzDecoder(f *testing.F) {
	if _, ok := corpus.Root(); ok {
		for _, u := range corpusFiles(f) {
			rartest.AddFuzzSeeds(f, u.Files, func(m rartest.File) bool { return isV15(m) && !m.Encrypted && !m.Split })
		}
	}
	f.Add([]byte{0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x06, 0xd9, 0xb7, 0xb6, 0x90, 0x2f, 0xc0, 0xc0}, uint32(1), uint16(16), uint32(1))
	rartest.FuzzSolidPair(f, rartest.File{Dict: 64 << 10, Version: 15}, func() rartest.Resetter { return tester{NewDecoder()} })
}
