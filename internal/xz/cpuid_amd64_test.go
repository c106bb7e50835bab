package xz

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// clmulKnownAtInit records, during the package's initialization (before
// any test runs), whether the CPU had been asked for PCLMULQDQ.
var clmulKnownAtInit = clmulState.Load() != 0

// TestCLMULDetection checks that the package asks the CPU for the
// carry-less multiplication path at its first long CRC, not at its
// initialization (issue 27), and that the answer is golang.org/x/sys/cpu's.
func TestCLMULDetection(t *testing.T) {
	if clmulKnownAtInit {
		t.Error("the CPU was asked for PCLMULQDQ during the package's initialization")
	}
	want := cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41
	crc64Update(0, make([]byte, 256))
	if got := clmulState.Load(); got == 0 {
		t.Fatal("a 256-byte update left the CPU's features unknown")
	}
	if got := useCLMUL(); got != want {
		t.Errorf("useCLMUL() = %v, golang.org/x/sys/cpu says %v", got, want)
	}
}
