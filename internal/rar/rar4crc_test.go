package rar

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// rar4End returns an end-of-archive block.
func rar4End() []byte { return rar4Block(block4End, 0x4000, nil, nil) }

// withBadCRC returns block with its header CRC field made wrong.
func withBadCRC(block []byte) []byte {
	b := bytes.Clone(block)
	b[off4CRC] ^= 0x5a
	return b
}

// withType returns block with its type byte replaced, the CRC left as it
// was (the damage a flipped bit of the type byte does).
func withType(block []byte, typ byte) []byte {
	b := bytes.Clone(block)
	b[off4Type] = typ
	return b
}

// readRAR4 opens data and extracts every entry, returning the names read
// and the first error.
func readRAR4(data []byte) ([]string, error) {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var names []string
	var first error
	err = r.Extract(context.Background(), nil, func(e *archive.Entry, rd io.Reader) error {
		names = append(names, e.Name)
		if _, err := io.Copy(io.Discard, rd); err != nil && first == nil {
			first = err
		}
		return nil
	})
	if first == nil {
		first = err
	}
	return names, first
}

// TestRAR4HeaderCRCOfSkippedBlocks damages the headers of blocks the RAR
// 1.5–4.x reader skips or reads only for metadata: a block whose header
// CRC does not hold is a checksum error naming its offset, so a file
// header whose type byte is flipped no longer vanishes silently; unknown
// blocks with a good CRC and optional blocks with a wrong one (as some
// writers made them) are still skipped.
func TestRAR4HeaderCRCOfSkippedBlocks(t *testing.T) {
	fileA := rar4File(0, "a.txt", 29, 0x30, 0x81a4, []byte("alpha\n"), []byte("alpha\n"))
	fileB := rar4File(0, "b.txt", 29, 0x30, 0x81a4, []byte("bravo\n"), []byte("bravo\n"))
	main := rar4Block(block4Main, 0, make([]byte, 6), nil)
	at := func(blocks ...[]byte) int64 { // offset of the block after these
		n := int64(len(sigRAR4))
		for _, b := range blocks {
			n += int64(len(b))
		}
		return n
	}
	unknown := rar4Block(0x70, 0, []byte{1, 2, 3}, []byte("skipped"))
	av := rar4Block(block4AV, 0, []byte{1, 2, 3}, nil)
	owner := rar4Block(block4Sub, 0, append(binary.LittleEndian.AppendUint16(nil, sub4TypeOwner),
		[]byte{0, 4, 0, 5, 0}...), []byte("rootwheel"))
	// The old sub-block's CRC covers its data too.
	binary.LittleEndian.PutUint16(owner[off4CRC:],
		uint16(crc32.Update(crc32.ChecksumIEEE(owner[off4Type:sub4OwnerSize]), crc32.IEEETable, []byte("rootwheel"))))
	// A RAR 1.5 file header embedding a comment: its CRC covers the
	// fields before the comment.
	withComment := func() []byte {
		text := []byte("a comment")
		cmt := []byte{block4Comment, 0, 0, cmt4Size + byte(len(text)), 0, byte(len(text)), 0, 15, 0x30}
		cmt = binary.LittleEndian.AppendUint16(cmt, uint16(crc32.ChecksumIEEE(text)))
		cmt = append(binary.LittleEndian.AppendUint16(nil, uint16(crc32.ChecksumIEEE(cmt))), cmt...)
		cmt = append(cmt, text...)
		b := rar4File(lhdComment, "c.txt", 15, 0x30, 0x20, []byte("charlie\n"), []byte("charlie\n"))
		hs := int(binary.LittleEndian.Uint16(b[off4Size:]))
		b = slices.Concat(b[:hs], cmt, b[hs:])
		binary.LittleEndian.PutUint16(b[off4Size:], uint16(hs+len(cmt)))
		binary.LittleEndian.PutUint16(b[off4CRC:], uint16(crc32.ChecksumIEEE(b[off4Type:hs])))
		return b
	}()
	// fileB's type byte flipped to a comment's and a byte of its name
	// damaged: no type makes the CRC fit.
	damagedB := withType(fileB, block4Comment)
	damagedB[len(damagedB)-len("bravo\n")-1] ^= 0x10
	damagedB2 := withType(fileB, block4AV)
	damagedB2[len(damagedB2)-len("bravo\n")-1] ^= 0x10
	avData := rar4Block(block4AV, 0, []byte{1, 2, 3}, []byte("data"))
	tests := []struct {
		name    string
		blocks  [][]byte
		want    []string // the entries read
		wantErr error
		offset  int64 // of the error, when wantErr is set
	}{
		{"intact", [][]byte{main, fileA, fileB, rar4End()}, []string{"a.txt", "b.txt"}, nil, 0},
		{"file type flipped to an unknown type", [][]byte{main, withType(fileA, 0x70), fileB, rar4End()},
			nil, archive.ErrChecksum, at(main)},
		{"file type flipped to an optional type", [][]byte{main, fileA, withType(fileB, block4AV), rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"file type flipped to a comment", [][]byte{main, fileA, withType(fileB, block4Comment), rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"file with a comment", [][]byte{main, fileA, withComment, rar4End()}, []string{"a.txt", "c.txt"}, nil, 0},
		{"file with a comment, type flipped to an optional type", [][]byte{main, fileA, withType(withComment, block4Sign), rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"file type flipped to a comment, name damaged", [][]byte{main, fileA, damagedB, rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"file type flipped to an optional type, name damaged", [][]byte{main, fileA, damagedB2, rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"optional block with data and a bad CRC", [][]byte{main, fileA, withBadCRC(avData), fileB, rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"optional block with data", [][]byte{main, fileA, avData, fileB, rar4End()}, []string{"a.txt", "b.txt"}, nil, 0},
		{"archive header type flipped to end", [][]byte{withType(main, block4End), fileA, rar4End()},
			nil, archive.ErrChecksum, at()},
		{"end block with a bad CRC", [][]byte{main, fileA, withBadCRC(rar4End())},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"end block before the archive header", [][]byte{rar4End(), main, fileA},
			nil, archive.ErrFormat, at()},
		{"second archive header with a bad CRC", [][]byte{main, fileA, withBadCRC(main), fileB, rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"unknown block with a bad CRC", [][]byte{main, fileA, withBadCRC(unknown), fileB, rar4End()},
			nil, archive.ErrChecksum, at(main, fileA)},
		{"unknown block with a good CRC", [][]byte{main, fileA, unknown, fileB, rar4End()},
			[]string{"a.txt", "b.txt"}, nil, 0},
		{"optional block with a bad CRC", [][]byte{main, fileA, withBadCRC(av), fileB, rar4End()},
			[]string{"a.txt", "b.txt"}, nil, 0},
		{"owner sub-block, CRC over header and data", [][]byte{main, fileA, owner, fileB, rar4End()},
			[]string{"a.txt", "b.txt"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := append([]byte(nil), sigRAR4...)
			for _, b := range tt.blocks {
				data = append(data, b...)
			}
			names, err := readRAR4(data)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !slices.Equal(names, tt.want) {
					t.Fatalf("entries %q, want %q", names, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v (entries %q), want %v", err, names, tt.wantErr)
			}
			var ae *archive.Error
			if !errors.As(err, &ae) || ae.Offset != tt.offset {
				t.Errorf("error %v does not name offset %d", err, tt.offset)
			}
		})
	}
}
