package bzip2

import (
	"bytes"
	"io"
	"testing"

	"github.com/garc-dev/garc/internal/bzip2/internal/old"
)

var rndComp []byte

func rndInput(b *testing.B) []byte {
	if rndComp == nil {
		rndComp = compressWithTool(b, append(randomBytes(4<<20, 5), textBytes(4<<20, 6)...), 9)
	}
	return rndComp
}

func BenchmarkRndOld(b *testing.B) {
	comp := rndInput(b)
	z := old.NewReader(bytes.NewReader(comp))
	for b.Loop() {
		z.Reset(bytes.NewReader(comp))
		z.WriteTo(io.Discard)
	}
}

func BenchmarkRndNew(b *testing.B) {
	comp := rndInput(b)
	z := NewReader(bytes.NewReader(comp))
	for b.Loop() {
		z.Reset(bytes.NewReader(comp))
		z.WriteTo(io.Discard)
	}
}
