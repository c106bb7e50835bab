package xz

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/garc-dev/garc/internal/checksum"
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

// foldRegister returns the CRC register that the 16-byte message (lo, hi)
// leaves from zero.
func foldRegister(lo, hi uint64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return crc64Raw(0, b[:])
}

// TestFoldVPCLMUL compares checksum.FoldVPCLMUL, given crc64Keys, with
// crc64FoldCLMUL over every length it takes up to 4 KiB (multiples of 64
// from 256), from several registers, where the CPU has it.
func TestFoldVPCLMUL(t *testing.T) {
	if !checksum.HasVPCLMUL() {
		t.Skip("the CPU (or the operating system) lacks AVX-512 with VPCLMULQDQ")
	}
	data := make([]byte, 4<<10)
	for i := range data {
		data[i] = byte(i*131 + i>>8*7 + 1)
	}
	for n := 256; n <= len(data); n += 64 {
		for _, r := range []uint64{0, 1, 0xFFFFFFFFFFFFFFFF, 0x0123456789ABCDEF} {
			// The folds may differ by a multiple of the polynomial:
			// compare the registers they leave.
			got, want := foldRegister(checksum.FoldVPCLMUL(r, data[:n], &crc64Keys)), foldRegister(crc64FoldCLMUL(r, data[:n]))
			if got != want {
				t.Fatalf("%d bytes from %#x: register %#x, want %#x", n, r, got, want)
			}
		}
	}
}
