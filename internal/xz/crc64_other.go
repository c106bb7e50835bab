//go:build !amd64

package xz

// crc64Update returns the CRC-64 of the data crc was computed over
// followed by p.
func crc64Update(crc uint64, p []byte) uint64 { return crc64UpdateGeneric(crc, p) }
