package sevenzip

import (
	"fmt"
	"io"
	"strconv"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/filters"
)

// addFilterMethods adds the file's methods to the registry (see methods).
func addFilterMethods(register func(uint64, *method)) {
	branch := func(name string, arch filters.Arch) *method {
		return &method{name: name, numIn: 1, newDecoder: func(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
			start, ok := filters.ParseStartOffset(arch, props)
			if !ok {
				return nil, fmt.Errorf("%s properties %x: %w", name, props, archive.ErrFormat)
			}
			return filters.NewReader(in[0], filters.NewBranch(arch, false, start)), nil
		}}
	}
	for _, b := range []struct {
		ids  []uint64
		name string
		arch filters.Arch
	}{
		{[]uint64{methodBCJ, methodX86}, "BCJ", filters.ArchX86},
		{[]uint64{methodPPCOld, methodPPC}, "PPC", filters.ArchPPC},
		{[]uint64{methodIA64Old, methodIA64}, "IA64", filters.ArchIA64},
		{[]uint64{methodARMOld, methodARM}, "ARM", filters.ArchARM},
		{[]uint64{methodARMTOld, methodARMT}, "ARMT", filters.ArchARMT},
		{[]uint64{methodSPARCOld, methodSPARC}, "SPARC", filters.ArchSPARC},
		{[]uint64{methodARM64}, "ARM64", filters.ArchARM64},
		{[]uint64{methodRISCV}, "RISCV", filters.ArchRISCV},
	} {
		for _, id := range b.ids {
			register(id, branch(b.name, b.arch))
		}
	}
	register(methodDelta, &method{name: "Delta", numIn: 1, newDecoder: newDeltaDecoder, describe: describeDelta})
	register(methodBCJ2, &method{name: "BCJ2", numIn: 4, newDecoder: newBCJ2Decoder})
}

// deltaDistance decodes the Delta property byte (distance - 1).
func deltaDistance(props []byte) (int, error) {
	if len(props) != 1 {
		return 0, fmt.Errorf("properties of the Delta filter: %d bytes, want 1: %w", len(props), archive.ErrFormat)
	}
	return int(props[0]) + 1, nil
}

func describeDelta(props []byte) string {
	d, err := deltaDistance(props)
	if err != nil {
		return "Delta"
	}
	return "Delta:" + strconv.Itoa(d)
}

func newDeltaDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	dist, err := deltaDistance(props)
	if err != nil {
		return nil, err
	}
	return filters.NewReader(in[0], filters.NewDelta(false, dist)), nil
}

func newBCJ2Decoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	return filters.NewBCJ2Reader(in[0], in[1], in[2], in[3], size)
}
