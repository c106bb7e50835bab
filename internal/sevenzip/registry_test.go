package sevenzip

import "testing"

// TestMethodRegistry checks the coder registry, built on first use
// (methods) rather than at package initialization: every method ID with
// its 7-Zip name, its number of inputs, whether garc decodes it and
// whether it has a memory model, as the coder files' init functions
// registered them before.
func TestMethodRegistry(t *testing.T) {
	want := []struct {
		id            uint64
		name          string
		numIn         int
		decodes, mems bool
	}{
		{methodCopy, "Copy", 1, true, false},
		{methodDelta, "Delta", 1, true, false},
		{methodX86, "BCJ", 1, true, false},
		{methodPPC, "PPC", 1, true, false},
		{methodIA64, "IA64", 1, true, false},
		{methodARM, "ARM", 1, true, false},
		{methodARMT, "ARMT", 1, true, false},
		{methodSPARC, "SPARC", 1, true, false},
		{methodARM64, "ARM64", 1, true, false},
		{methodRISCV, "RISCV", 1, true, false},
		{methodLZMA2, "LZMA2", 1, true, true},
		{methodLZMA, "LZMA", 1, true, true},
		{methodPPMd, "PPMD", 1, true, true},
		{methodDeflate, "Deflate", 1, true, false},
		{methodDeflate64, "Deflate64", 1, true, false},
		{methodBZip2, "BZip2", 1, true, false},
		{methodBCJ, "BCJ", 1, true, false},
		{methodBCJ2, "BCJ2", 4, true, false},
		{methodPPCOld, "PPC", 1, true, false},
		{methodIA64Old, "IA64", 1, true, false},
		{methodARMOld, "ARM", 1, true, false},
		{methodARMTOld, "ARMT", 1, true, false},
		{methodSPARCOld, "SPARC", 1, true, false},
		{methodZstd, "ZSTD", 1, true, true},
		{methodBrotli, "Brotli", 1, false, false},
		{methodLZ4, "LZ4", 1, false, false},
		{methodLZ5, "LZ5", 1, false, false},
		{methodLizard, "Lizard", 1, false, false},
		{methodAES, "7zAES", 1, true, false},
	}
	reg := methods()
	if len(reg) != len(want) {
		t.Errorf("%d methods registered, want %d", len(reg), len(want))
	}
	for _, w := range want {
		m, ok := reg[w.id]
		if !ok {
			t.Errorf("method %#x (%s) not registered", w.id, w.name)
			continue
		}
		if m.name != w.name || m.numIn != w.numIn || (m.newDecoder != nil) != w.decodes || (m.memory != nil) != w.mems {
			t.Errorf("method %#x: %q, %d inputs, decodes %v, memory model %v; want %q, %d, %v, %v",
				w.id, m.name, m.numIn, m.newDecoder != nil, m.memory != nil, w.name, w.numIn, w.decodes, w.mems)
		}
	}
	if methodName(methodLZMA2) != "LZMA2" || methodName(0x1234) != "1234" {
		t.Errorf("methodName: %q, %q", methodName(methodLZMA2), methodName(0x1234))
	}
}
