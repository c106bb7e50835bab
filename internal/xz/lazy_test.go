package xz

import "testing"

// crc64BuiltAtInit records, during package initialisation (before any test
// runs), whether the CRC-64 table already existed.
var crc64BuiltAtInit = crc64Slices != nil

// TestCRC64TableLazy checks that the 16 KiB slicing table is built on first
// use, not at init: every garc process links this package, few read .xz.
func TestCRC64TableLazy(t *testing.T) {
	if crc64BuiltAtInit {
		t.Fatal("CRC-64 table built at package initialisation")
	}
	if crc64Table() == nil || crc64Slices == nil {
		t.Fatal("crc64Table did not build the table")
	}
}
