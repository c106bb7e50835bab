package security

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// rar5Header returns one RAR5 header (CRC32, size, fields) whose fields
// are given as single-byte vints and raw bytes.
func rar5Header(fields []byte) []byte {
	sized := append([]byte{byte(len(fields))}, fields...)
	return append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(sized)), sized...)
}

// TestRARKDFCostExitCode: a RAR5 archive whose encryption header asks for
// 2^lg2 key-derivation iterations beyond the limit ends with exit 8, the
// code for every limit, for any value of the one-byte field (64 and 255
// used to be exit 2), and garc does not ask for a password first.
func TestRARKDFCostExitCode(t *testing.T) {
	dir := t.TempDir()
	for _, lg2 := range []byte{25, 63, 64, 255} {
		data := []byte("Rar!\x1a\x07\x01\x00")
		data = append(data, rar5Header([]byte{1, 0, 0})...) // main header, no flags
		crypt := append([]byte{4, 0, 0, 0, lg2}, make([]byte, 16)...)
		data = append(data, rar5Header(crypt)...)
		name := filepath.Join(dir, "kdf.rar")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"l", "t"} {
			r := runGarc(t, dir, cmd, "-pX", "kdf.rar")
			if r.code != 8 {
				t.Errorf("garc %s with KDF exponent %d: exit %d, want 8\n%s", cmd, lg2, r.code, r.stderr)
			}
		}
	}
}
