package checksum

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestVPCLMULDetection checks HasVPCLMUL against golang.org/x/sys/cpu,
// which also asks whether the system saves the 512-bit registers.
func TestVPCLMULDetection(t *testing.T) {
	want := cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41
	if got := HasVPCLMUL(); got != want {
		t.Errorf("HasVPCLMUL() = %v, golang.org/x/sys/cpu says %v", got, want)
	}
}
