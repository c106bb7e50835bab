package lzma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// parseXZ extracts the LZMA2 stream and its dictionary property from a
// single-block .xz file (as 7zz writes with one thread).
func parseXZ(b []byte) ([]byte, byte, error) {
	if len(b) < 12+8 || !bytes.Equal(b[:6], []byte{0xFD, '7', 'z', 'X', 'Z', 0}) {
		return nil, 0, errors.New("not xz")
	}
	hdrLen := (int(b[12]) + 1) * 4
	hdr := b[12 : 12+hdrLen]
	i := bytes.Index(hdr, []byte{0x21, 0x01})
	if i < 0 {
		return nil, 0, errors.New("no LZMA2 filter")
	}
	return b[12+hdrLen:], hdr[i+2], nil
}

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// wrapXZ puts an LZMA2 stream into a minimal single-block .xz container
// without integrity check, so that 7zz and ulikunitz can decode it.
func wrapXZ(lzma2 []byte, prop byte, unpacked int64) []byte {
	var out []byte
	flags := []byte{0, 0}
	out = append(out, 0xFD, '7', 'z', 'X', 'Z', 0)
	out = append(out, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(flags))
	bh := []byte{0, 0x00, 0x21, 0x01, prop}
	for len(bh)%4 != 0 {
		bh = append(bh, 0)
	}
	bh[0] = byte((len(bh)+4)/4 - 1)
	bh = binary.LittleEndian.AppendUint32(bh, crc32.ChecksumIEEE(bh))
	out = append(out, bh...)
	out = append(out, lzma2...)
	unpadded := uint64(len(bh) + len(lzma2))
	for len(out)%4 != 0 {
		out = append(out, 0)
	}
	idx := []byte{0}
	idx = appendVarint(idx, 1)
	idx = appendVarint(idx, unpadded)
	idx = appendVarint(idx, uint64(unpacked))
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	out = append(out, idx...)
	ft := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	ft = append(ft, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(ft))
	out = append(out, ft...)
	return append(out, 'Y', 'Z')
}

// wrapLZMAAlone prefixes a raw LZMA stream with the .lzma header.
func wrapLZMAAlone(raw, props []byte, size int64) []byte {
	out := append([]byte(nil), props...)
	out = binary.LittleEndian.AppendUint64(out, uint64(size))
	return append(out, raw...)
}
